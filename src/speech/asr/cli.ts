import fs from 'node:fs';
import path from 'node:path';
import { parseCommandArgs, type Command } from '../../platform/cli.js';
import { loadAsrSettings } from './config.js';
import { installFolder, modelName, writeJsonAtomic } from '../models.js';
import { ACTIVE, MANIFEST, MODEL_KINDS, ModelError, detectModel, probeModel, type ModelKind } from './model.js';

const USAGE = `usage: saola models add asr <folder> [--name NAME] [--kind ${MODEL_KINDS.join('|')}] [--force] [--no-activate] [--skip-probe]

Copies a sherpa-onnx recognition model (its .onnx files and tokens) into
<data dir>/models/asr/NAME, checks that it loads and decodes, and makes it
the model /hmi/asr/general uses (unless --no-activate). Restart the server
to pick it up. SAOLA_ASR_MODEL, when set, still wins over the installed model.
`;

/** `saola models add asr <path>`: install a recognition model and make it active. */
export const asrModelsCommand: Command = async (ctx) => {
  const parsed = parseCommandArgs(ctx, USAGE, {
    name: { type: 'string' },
    kind: { type: 'string' },
    force: { type: 'boolean', default: false },
    'no-activate': { type: 'boolean', default: false },
    'skip-probe': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  });
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  if (positionals.length !== 1) {
    ctx.stderr(USAGE);
    return 2;
  }
  if (values.kind !== undefined && !MODEL_KINDS.includes(values.kind as ModelKind)) {
    ctx.stderr(`--kind must be one of ${MODEL_KINDS.join(', ')}\n`);
    return 2;
  }
  const settings = loadAsrSettings(ctx.config);
  const source = path.resolve(positionals[0]);
  const name = modelName(ctx, values.name, source);
  if (!name) return 2;

  let spec;
  try {
    spec = detectModel(source, values.kind as ModelKind | undefined);
  } catch (err) {
    ctx.stderr(`${(err as Error).message}\n`);
    return 2;
  }

  const target = path.join(settings.modelsDir, name);
  if (fs.existsSync(target)) {
    if (!values.force) {
      ctx.stderr(`${target} already exists: choose another --name or pass --force to replace it\n`);
      return 2;
    }
    fs.rmSync(target, { recursive: true, force: true });
  }
  installFolder(target, spec.files, { file: MANIFEST, content: { kind: spec.kind, source } });
  ctx.stdout(`Copied the ${spec.kind} model from ${source} to ${target}\n`);

  if (!values['skip-probe']) {
    try {
      const installed = detectModel(target);
      const probe = await probeModel(installed, {
        numThreads: settings.engineThreads,
        decodingMethod: settings.decodingMethod,
        language: settings.language,
      });
      ctx.stdout(`The model loads and decodes (load ${probe.loadMs} ms)\n`);
    } catch (err) {
      fs.rmSync(target, { recursive: true, force: true });
      ctx.stderr(`${err instanceof ModelError ? err.message : String(err)}\nThe model was not installed.\n`);
      return 1;
    }
  }

  if (!values['no-activate']) {
    writeJsonAtomic(path.join(settings.modelsDir, ACTIVE), { dir: name, kind: spec.kind, installedAt: new Date().toISOString() });
    ctx.stdout(`Active speech recognition model: ${name}. Restart saola to use it.\n`);
  }
  return 0;
};
