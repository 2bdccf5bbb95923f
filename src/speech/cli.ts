import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Command } from '../platform/cli.js';
import { faceModelLines } from '../face/index.js';
import { loadAsrSettings } from './asr/config.js';
import { ACTIVE, MANIFEST } from './asr/model.js';
import { safeModelName } from './models.js';
import { listTtsModels, removeTtsModel, unmapTtsVoices } from './tts/cli.js';
import { parseVoice, type Voice } from './tts/voices.js';

/** The installed recognition models and which one is active. */
function listAsrModels(modelsDir: string): { models: string[]; active?: string } {
  const models = fs.existsSync(modelsDir)
    ? fs
        .readdirSync(modelsDir, { withFileTypes: true })
        .filter((e) => e.isDirectory() && !e.name.includes('.partial-') && fs.existsSync(path.join(modelsDir, e.name, MANIFEST)))
        .map((e) => e.name)
        .sort()
    : [];
  let active: string | undefined;
  try {
    active = (JSON.parse(fs.readFileSync(path.join(modelsDir, ACTIVE), 'utf8')) as { dir?: string }).dir;
  } catch {
    active = undefined;
  }
  return { models, ...(active ? { active } : {}) };
}

/** `saola models list [--json]`: recognition models (the active one marked), voice models with their voices, and face recognisers. */
export const modelsListCommand: Command = async (ctx) => {
  let json = false;
  try {
    json = Boolean(parseArgs({ args: ctx.args, options: { json: { type: 'boolean', default: false } } }).values.json);
  } catch (err) {
    ctx.stderr(`${(err as Error).message}\nusage: saola models list [--json]\n`);
    return 2;
  }
  const asr = listAsrModels(loadAsrSettings(ctx.config, {}).modelsDir);
  const tts = listTtsModels(ctx.config.dataDir);
  const face = faceModelLines(ctx.config.dataDir);
  if (json) {
    ctx.stdout(JSON.stringify({ asr, tts, face: face.json }, null, 2) + '\n');
    return 0;
  }
  const lines = ['Speech recognition (asr):'];
  if (asr.models.length === 0) lines.push('  none installed (saola models add asr FOLDER)');
  for (const m of asr.models) lines.push(`  ${m}${m === asr.active ? '  (active)' : ''}`);
  lines.push('Speech synthesis (tts):');
  if (tts.models.length === 0) lines.push('  none installed (saola models add tts FOLDER --voice NAME)');
  for (const m of tts.models) lines.push(`  ${m.name}  voices: ${m.voices.join(', ') || 'none'}`);
  lines.push(`  eSpeak NG: ${tts.unmappedVoices.join(', ') || 'no voice'}`);
  if (tts.brokenMap) lines.push(`  the voice map is unreadable: ${tts.brokenMap}`);
  lines.push(...face.lines);
  ctx.stdout(lines.join('\n') + '\n');
  return 0;
};

const REMOVE_USAGE = `usage: saola models remove asr NAME
       saola models remove tts NAME           (its voices go back to eSpeak NG)
       saola models remove tts --voice NAME[,NAME...]   (unmap voices; the model stays)
`;

/** `saola models remove asr|tts ...`. Restart the server for it to take effect. */
export const modelsRemoveCommand: Command = async (ctx) => {
  let parsed;
  try {
    parsed = parseArgs({ args: ctx.args, allowPositionals: true, options: { voice: { type: 'string' } } });
  } catch (err) {
    ctx.stderr(`${(err as Error).message}\n${REMOVE_USAGE}`);
    return 2;
  }
  const [service, name, ...rest] = parsed.positionals;
  const voiceArg = parsed.values.voice;
  if (rest.length > 0 || (service !== 'asr' && service !== 'tts') || (name === undefined) === (voiceArg === undefined) || (service === 'asr' && voiceArg !== undefined)) {
    ctx.stderr(REMOVE_USAGE);
    return 2;
  }

  if (service === 'tts' && voiceArg !== undefined) {
    const voices: Voice[] = [];
    for (const raw of voiceArg
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      const voice = parseVoice(raw);
      if (!voice) {
        ctx.stderr(`"${raw}" is not a voice\n`);
        return 2;
      }
      voices.push(voice);
    }
    const unmapped = unmapTtsVoices(ctx.config.dataDir, voices);
    ctx.stdout(
      unmapped.length > 0
        ? `${unmapped.join(', ')} no longer ${unmapped.length === 1 ? 'has' : 'have'} a model of ${unmapped.length === 1 ? 'its' : 'their'} own. Restart saola to apply.\n`
        : 'None of those voices had a model.\n',
    );
    return 0;
  }

  if (service === 'tts') {
    const result = removeTtsModel(ctx.config.dataDir, name!);
    if (!result.removed && result.unmapped.length === 0) {
      ctx.stderr(`No voice model named ${name} (saola models list)\n`);
      return 1;
    }
    ctx.stdout(`Removed the voice model ${name}.${result.unmapped.length > 0 ? ` Unmapped: ${result.unmapped.join(', ')}.` : ''} Restart saola to apply.\n`);
    return 0;
  }

  const modelsDir = loadAsrSettings(ctx.config, {}).modelsDir;
  const { models, active } = listAsrModels(modelsDir);
  if (safeModelName(name!) !== name || !models.includes(name!)) {
    ctx.stderr(`No recognition model named ${name} (saola models list)\n`);
    return 1;
  }
  fs.rmSync(path.join(modelsDir, name!), { recursive: true, force: true });
  if (active === name) fs.rmSync(path.join(modelsDir, ACTIVE), { force: true });
  ctx.stdout(
    `Removed the recognition model ${name}.${active === name ? ' It was active: /hmi/asr/general answers status 9 until another is installed.' : ''} Restart saola to apply.\n`,
  );
  return 0;
};
