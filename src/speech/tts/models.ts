import fs from 'node:fs';
import path from 'node:path';
import { checkModelFiles, ModelError, modelFolder, runSherpaProbe, writeJsonAtomic } from '../models.js';
import { parseVoice, type Voice } from './voices.js';

/**
 * Neural voices an operator installs with `saola models add tts`: VITS-family
 * models as sherpa-onnx runs them (Piper exports with espeak-ng-data, MMS-TTS
 * exports with character tokens, other VITS exports with a lexicon), and which
 * API voice speaks with which model and speaker. Layout under the data folder:
 *
 *   models/tts/<name>/           the model's files and saola-tts.json
 *   models/tts/voices.json       {"voices": {"banmai": {"model": "<name>", "speaker": 0}}}
 */

export const TTS_MANIFEST = 'saola-tts.json';

/** Where `saola models add tts` installs voice models. */
export function ttsModelsDir(dataDir: string): string {
  return path.join(dataDir, 'models', 'tts');
}
export const VOICE_MAP = 'voices.json';

export interface VitsModelSpec {
  dir: string;
  /** Absolute paths. */
  files: { model: string; tokens: string; lexicon?: string; dataDir?: string };
  /** Length scale at speed 0 (the model's own pace; 1 unless its Piper config says otherwise). */
  lengthScale: number;
  noiseScale?: number;
  noiseScaleW?: number;
}

/** Works out a VITS model's files from its folder (or its manifest). */
export function detectVitsModel(dirArg: string): VitsModelSpec {
  const dir = modelFolder(dirArg, "the voice's .onnx file and tokens.txt");

  const manifestFile = path.join(dir, TTS_MANIFEST);
  if (fs.existsSync(manifestFile)) {
    let manifest: { files?: Record<string, string>; lengthScale?: number; noiseScale?: number; noiseScaleW?: number };
    try {
      manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
    } catch (err) {
      throw new ModelError(`${manifestFile} is not valid JSON: ${(err as Error).message}`);
    }
    if (!manifest.files?.model || !manifest.files.tokens) throw new ModelError(`${manifestFile} must name files.model and files.tokens`);
    const files = Object.fromEntries(Object.entries(manifest.files).map(([k, v]) => [k, path.resolve(dir, v)])) as VitsModelSpec['files'];
    return checkFiles({ dir, files, lengthScale: manifest.lengthScale ?? 1, noiseScale: manifest.noiseScale, noiseScaleW: manifest.noiseScaleW });
  }

  const names = fs.readdirSync(dir);
  const onnx = names.filter((f) => f.endsWith('.onnx')).sort();
  if (onnx.length === 0) throw new ModelError(`No .onnx file in ${dir}`);
  // Piper names the file after the voice (vi_VN-vais1000-medium.onnx); sherpa-onnx's exports say model.onnx.
  const model = onnx.includes('model.onnx') ? 'model.onnx' : (onnx.find((f) => f.includes('.int8.')) ?? onnx[0]);
  if (onnx.length > 1 && !onnx.includes('model.onnx')) {
    throw new ModelError(`${dir} holds several .onnx files (${onnx.join(', ')}): keep the voice's one, or name it model.onnx`);
  }
  if (!names.includes('tokens.txt')) {
    throw new ModelError(
      `No tokens.txt in ${dir}: sherpa-onnx needs the model's token list (its VITS exports ship one; for a Piper voice, take sherpa-onnx's conversion of it)`,
    );
  }
  const dataDir = names.includes('espeak-ng-data') ? path.join(dir, 'espeak-ng-data') : undefined;
  const lexicon = names.includes('lexicon.txt') ? path.join(dir, 'lexicon.txt') : undefined;
  const piper = readPiperConfig(dir, model);
  return checkFiles({
    dir,
    files: { model: path.join(dir, model), tokens: path.join(dir, 'tokens.txt'), ...(lexicon ? { lexicon } : {}), ...(dataDir ? { dataDir } : {}) },
    lengthScale: piper?.lengthScale ?? 1,
    noiseScale: piper?.noiseScale,
    noiseScaleW: piper?.noiseScaleW,
  });
}

/** A Piper voice's `<model>.onnx.json` inference settings, when the folder has one. */
function readPiperConfig(dir: string, model: string): { lengthScale?: number; noiseScale?: number; noiseScaleW?: number } | undefined {
  const file = path.join(dir, `${model}.json`);
  if (!fs.existsSync(file)) return undefined;
  try {
    const inference = (JSON.parse(fs.readFileSync(file, 'utf8')) as { inference?: Record<string, unknown> }).inference ?? {};
    const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : undefined);
    return { lengthScale: num(inference.length_scale), noiseScale: num(inference.noise_scale), noiseScaleW: num(inference.noise_w) };
  } catch {
    throw new ModelError(`${file} is not valid JSON`);
  }
}

function checkFiles(spec: VitsModelSpec): VitsModelSpec {
  checkModelFiles(spec.files);
  if (spec.files.dataDir && !fs.statSync(spec.files.dataDir).isDirectory()) throw new ModelError(`${spec.files.dataDir} is not a folder`);
  return spec;
}

/** The sherpa-onnx OfflineTts configuration of a model. */
export function offlineTtsConfig(spec: VitsModelSpec, numThreads = 1): Record<string, unknown> {
  return {
    model: {
      vits: {
        model: spec.files.model,
        tokens: spec.files.tokens,
        lexicon: spec.files.lexicon ?? '',
        dataDir: spec.files.dataDir ?? '',
        lengthScale: spec.lengthScale,
        ...(spec.noiseScale !== undefined ? { noiseScale: spec.noiseScale } : {}),
        ...(spec.noiseScaleW !== undefined ? { noiseScaleW: spec.noiseScaleW } : {}),
      },
      numThreads,
      provider: 'cpu',
      debug: 0,
    },
    // One sentence per model run: long parts do not make one huge tensor.
    maxNumSentences: 1,
  };
}

/**
 * The API speed (-3..3, as eSpeak words per minute `175 * 1.15^speed`) as
 * sherpa-onnx's `speed`, which it turns into length scale = 1 / speed. The
 * model's own pace (`lengthScale`) is kept: length scale = lengthScale * 175 / wpm.
 */
export function sherpaSpeed(wpm: number, lengthScale: number): number {
  return wpm / (175 * lengthScale);
}

/**
 * Loads the model in a child process and synthesises one sentence with each
 * speaker asked for: the samples must be finite and not silent.
 */
const PROBE_SCRIPT = `
const [modulePath, configJson, speakersJson, text] = process.argv.slice(1);
const sherpa = require(modulePath);
const started = Date.now();
const tts = new sherpa.OfflineTts(JSON.parse(configJson));
const loadMs = Date.now() - started;
const results = [];
for (const sid of JSON.parse(speakersJson)) {
  const audio = tts.generate({ text, sid, speed: 1 });
  let peak = 0;
  let finite = true;
  for (const v of audio.samples) { if (!Number.isFinite(v)) finite = false; else if (Math.abs(v) > peak) peak = Math.abs(v); }
  results.push({ sid, seconds: audio.samples.length / audio.sampleRate, peak, finite });
}
process.stdout.write(JSON.stringify({ ok: true, loadMs, numSpeakers: tts.numSpeakers, sampleRate: tts.sampleRate, results }));
`;

export const PROBE_SENTENCE = 'Xin chào, đây là giọng đọc thử của Saola.';

export interface TtsProbe {
  loadMs: number;
  numSpeakers: number;
  sampleRate: number;
  /** Seconds of audio of the probe sentence per speaker id. */
  seconds: Record<number, number>;
}

export async function probeVitsModel(spec: VitsModelSpec, speakers: number[], timeoutMs = 300_000): Promise<TtsProbe> {
  const ids = speakers.length > 0 ? [...new Set(speakers)] : [0];
  const result = await runSherpaProbe<{
    ok: boolean;
    loadMs: number;
    numSpeakers: number;
    sampleRate: number;
    results: { sid: number; seconds: number; peak: number; finite: boolean }[];
  }>(PROBE_SCRIPT, [JSON.stringify(offlineTtsConfig(spec)), JSON.stringify(ids), PROBE_SENTENCE], `The voice model in ${spec.dir}`, timeoutMs);
  const speakerCount = Math.max(1, result.numSpeakers);
  const outOfRange = ids.filter((id) => id < 0 || id >= speakerCount);
  if (outOfRange.length > 0) {
    throw new ModelError(`The voice model in ${spec.dir} has ${speakerCount} speaker(s) (ids 0-${speakerCount - 1}); speaker ${outOfRange.join(', ')} does not exist`);
  }
  for (const r of result.results) {
    if (!r.finite || r.seconds < 0.1 || r.peak < 1e-4) {
      throw new ModelError(
        `The voice model in ${spec.dir} loads but speaker ${r.sid} gives no usable audio for "${PROBE_SENTENCE}" ` +
          `(${r.seconds.toFixed(2)} s, peak ${r.peak.toFixed(5)}${r.finite ? '' : ', not finite'}): is tokens.txt the model's own, and espeak-ng-data or the lexicon there?`,
      );
    }
  }
  return {
    loadMs: result.loadMs,
    numSpeakers: result.numSpeakers,
    sampleRate: result.sampleRate,
    seconds: Object.fromEntries(result.results.map((r) => [r.sid, r.seconds])),
  };
}

/** Which API voice speaks with which installed model and speaker. */
export interface VoiceMapping {
  model: string;
  speaker: number;
}
export type VoiceMap = Partial<Record<Voice, VoiceMapping>>;

export function readVoiceMap(modelsDir: string): VoiceMap {
  const file = path.join(modelsDir, VOICE_MAP);
  if (!fs.existsSync(file)) return {};
  let parsed: { voices?: Record<string, VoiceMapping> };
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ModelError(`${file} is not valid JSON: ${(err as Error).message}`);
  }
  const map: VoiceMap = {};
  for (const [name, mapping] of Object.entries(parsed.voices ?? {})) {
    const voice = parseVoice(name);
    if (!voice || voice !== name || typeof mapping?.model !== 'string' || !Number.isInteger(mapping.speaker) || mapping.speaker < 0) {
      throw new ModelError(`${file}: "${name}" is not a voice mapped to {"model": NAME, "speaker": N}`);
    }
    map[voice] = { model: mapping.model, speaker: mapping.speaker };
  }
  return map;
}

export function writeVoiceMap(modelsDir: string, map: VoiceMap): void {
  const sorted = Object.fromEntries(Object.entries(map).sort(([a], [b]) => a.localeCompare(b)));
  writeJsonAtomic(path.join(modelsDir, VOICE_MAP), { voices: sorted });
}

/** The installed models' folder names. */
export function installedTtsModels(modelsDir: string): string[] {
  if (!fs.existsSync(modelsDir)) return [];
  return fs
    .readdirSync(modelsDir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.includes('.partial-') && fs.existsSync(path.join(modelsDir, e.name, TTS_MANIFEST)))
    .map((e) => e.name)
    .sort();
}
