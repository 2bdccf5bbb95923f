import fs from 'node:fs';
import path from 'node:path';
import { parseCommandArgs, type Command } from '../../platform/cli.js';
import { ModelError, installFolder, modelName, safeModelName } from '../models.js';
import { TTS_MANIFEST, detectVitsModel, installedTtsModels, probeVitsModel, readVoiceMap, ttsModelsDir, writeVoiceMap, type VoiceMap } from './models.js';
import { ALL_VOICES, VOICE_INFO, parseVoice, type Voice } from './voices.js';

const USAGE = `usage: saola models add tts <folder> --voice NAME[:SPEAKER][,NAME[:SPEAKER]...] [--name NAME] [--force] [--skip-probe]

Copies a VITS voice as sherpa-onnx runs it (model .onnx, tokens.txt, and
espeak-ng-data/ or lexicon.txt) into <data dir>/models/tts/NAME, loads it and
synthesises a sentence with each speaker in a child process, and makes the
voices given speak with it (the others keep eSpeak NG). SPEAKER is the
speaker id in a multi-speaker model (default 0). Voices: ${ALL_VOICES.join(', ')}.
An Ace variant (banmaiace) speaks with its speaker's model unless mapped itself.
Restart the server to use it.
`;

interface VoiceChoice {
  voice: Voice;
  speaker: number;
}

/** `banmai,lannhi:3` → [{banmai, 0}, {lannhi, 3}]; a message for the first bad item. */
export function parseVoiceList(raw: string): VoiceChoice[] | string {
  const choices: VoiceChoice[] = [];
  for (const item of raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const m = /^([A-Za-z]+)(?::(\d+))?$/.exec(item);
    const voice = m ? parseVoice(m[1]) : undefined;
    if (!m || !voice) return `"${item}" is not a voice (${ALL_VOICES.join(', ')}), optionally with :SPEAKER`;
    if (choices.some((c) => c.voice === voice)) return `${voice} is given twice`;
    choices.push({ voice, speaker: m[2] === undefined ? 0 : Number(m[2]) });
  }
  return choices.length > 0 ? choices : 'Give at least one voice with --voice';
}

/** `saola models add tts <folder> --voice ...`: install a voice model and map voices to it. */
export const ttsModelsAddCommand: Command = async (ctx) => {
  const parsed = parseCommandArgs(ctx, USAGE, {
    voice: { type: 'string' },
    name: { type: 'string' },
    force: { type: 'boolean', default: false },
    'skip-probe': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  });
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  if (positionals.length !== 1 || values.voice === undefined) {
    ctx.stderr(USAGE);
    return 2;
  }
  const choices = parseVoiceList(values.voice);
  if (typeof choices === 'string') {
    ctx.stderr(`${choices}\n`);
    return 2;
  }
  const source = path.resolve(positionals[0]);
  const name = modelName(ctx, values.name, source);
  if (!name) return 2;

  let spec;
  try {
    spec = detectVitsModel(source);
  } catch (err) {
    ctx.stderr(`${(err as Error).message}\n`);
    return 2;
  }

  const modelsDir = ttsModelsDir(ctx.config.dataDir);
  let map: VoiceMap;
  try {
    map = readVoiceMap(modelsDir);
  } catch (err) {
    ctx.stderr(`${(err as Error).message}\n`);
    return 1;
  }
  const target = path.join(modelsDir, name);
  if (fs.existsSync(target)) {
    if (!values.force) {
      ctx.stderr(`${target} already exists: choose another --name or pass --force to replace it\n`);
      return 2;
    }
    fs.rmSync(target, { recursive: true, force: true });
  }
  fs.mkdirSync(modelsDir, { recursive: true });
  installFolder(target, spec.files, {
    file: TTS_MANIFEST,
    content: { kind: 'vits', source, lengthScale: spec.lengthScale, noiseScale: spec.noiseScale, noiseScaleW: spec.noiseScaleW },
  });
  ctx.stdout(`Copied the voice model from ${source} to ${target}\n`);

  if (!values['skip-probe']) {
    try {
      const probe = await probeVitsModel(
        detectVitsModel(target),
        choices.map((c) => c.speaker),
      );
      const heard = Object.entries(probe.seconds)
        .map(([sid, s]) => `speaker ${sid}: ${s.toFixed(2)} s`)
        .join(', ');
      ctx.stdout(`The model loads and speaks (load ${probe.loadMs} ms, ${probe.sampleRate} Hz, ${Math.max(1, probe.numSpeakers)} speaker(s); ${heard})\n`);
    } catch (err) {
      fs.rmSync(target, { recursive: true, force: true });
      ctx.stderr(`${err instanceof ModelError ? err.message : String(err)}\nThe model was not installed.\n`);
      return 1;
    }
  }

  for (const { voice, speaker } of choices) {
    const before = map[voice];
    if (before && before.model !== name) ctx.stdout(`${voice} spoke with ${before.model}; it now speaks with ${name}\n`);
    map[voice] = { model: name, speaker };
  }
  writeVoiceMap(modelsDir, map);
  ctx.stdout(`${choices.map((c) => `${c.voice} (speaker ${c.speaker})`).join(', ')} speak with ${name}. Restart saola to use it.\n`);
  return 0;
};

/** Lines of `saola models list` for the voice models: each model and the voices mapped to it. */
export function listTtsModels(dataDir: string): { models: { name: string; voices: string[] }[]; unmappedVoices: string[]; brokenMap?: string } {
  const modelsDir = ttsModelsDir(dataDir);
  let map: VoiceMap = {};
  let brokenMap: string | undefined;
  try {
    map = readVoiceMap(modelsDir);
  } catch (err) {
    brokenMap = (err as Error).message;
  }
  // A voice's model: its own mapping, else (an Ace variant) its speaker's.
  const effective = (v: Voice) => map[v] ?? map[VOICE_INFO[v].speaker];
  const models = installedTtsModels(modelsDir).map((name) => ({
    name,
    voices: ALL_VOICES.filter((v) => effective(v)?.model === name).map((v) => `${v}:${effective(v)!.speaker}${map[v] ? '' : ` (as ${VOICE_INFO[v].speaker})`}`),
  }));
  return { models, unmappedVoices: ALL_VOICES.filter((v) => !effective(v)), ...(brokenMap ? { brokenMap } : {}) };
}

/** Removes an installed voice model and unmaps its voices (they go back to eSpeak NG). */
export function removeTtsModel(dataDir: string, name: string): { removed: boolean; unmapped: string[] } {
  const modelsDir = ttsModelsDir(dataDir);
  const target = path.join(modelsDir, safeModelName(name));
  const exists = safeModelName(name) === name && fs.existsSync(path.join(target, TTS_MANIFEST));
  const map = readVoiceMap(modelsDir);
  const unmapped = Object.entries(map)
    .filter(([, m]) => m?.model === name)
    .map(([v]) => v as Voice);
  for (const v of unmapped) delete map[v];
  if (unmapped.length > 0) writeVoiceMap(modelsDir, map);
  if (exists) fs.rmSync(target, { recursive: true, force: true });
  return { removed: exists, unmapped };
}

/** Unmaps voices (they go back to eSpeak NG); the model stays installed. */
export function unmapTtsVoices(dataDir: string, voices: Voice[]): Voice[] {
  const modelsDir = ttsModelsDir(dataDir);
  const map = readVoiceMap(modelsDir);
  const unmapped = voices.filter((v) => map[v] !== undefined);
  for (const v of unmapped) delete map[v];
  if (unmapped.length > 0) writeVoiceMap(modelsDir, map);
  return unmapped;
}
