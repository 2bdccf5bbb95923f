import fs from 'node:fs';
import path from 'node:path';
import { checkModelFiles, ModelError, modelFolder, runSherpaProbe } from '../models.js';

export { ModelError, sherpaModulePath } from '../models.js';

/**
 * Recognition models Saola loads with sherpa-onnx, and how it finds their
 * files in a folder. Folder layouts are those of sherpa-onnx's released
 * models (docs/asr.md lists them).
 */
export const MODEL_KINDS = ['transducer', 'whisper', 'zipformer-ctc', 'nemo-ctc'] as const;
export type ModelKind = (typeof MODEL_KINDS)[number];

export interface ModelSpec {
  kind: ModelKind;
  dir: string;
  /** Absolute paths. Transducer: encoder, decoder, joiner. Whisper: encoder, decoder. CTC: model. */
  files: { encoder?: string; decoder?: string; joiner?: string; model?: string; tokens: string };
}

/** How the recogniser runs a model (from AsrSettings). */
export interface RecognizerOptions {
  numThreads: number;
  decodingMethod: 'greedy_search' | 'modified_beam_search';
  language: string;
}

/** A folder may name its kind and files in this file; `saola models add asr` writes one. */
export const MANIFEST = 'saola-asr.json';
/** In the models folder: which installed model is active. */
export const ACTIVE = 'active.json';

function pick(files: string[], test: (f: string) => boolean): string | undefined {
  const matches = files.filter(test).sort();
  // Quantised weights run about twice as fast on CPU with the same accuracy for these models.
  return matches.find((f) => f.includes('.int8.')) ?? matches[0];
}

/** Works out a model's kind and files from its folder (or its manifest). */
export function detectModel(dirArg: string, kind?: ModelKind): ModelSpec {
  const dir = modelFolder(dirArg, "the model's .onnx files and tokens");
  const manifestFile = path.join(dir, MANIFEST);
  if (fs.existsSync(manifestFile)) {
    let manifest: { kind?: string; files?: Record<string, string> };
    try {
      manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
    } catch (err) {
      throw new ModelError(`${manifestFile} is not valid JSON: ${(err as Error).message}`);
    }
    if (!MODEL_KINDS.includes(manifest.kind as ModelKind) || !manifest.files?.tokens) {
      throw new ModelError(`${manifestFile} must name a kind (${MODEL_KINDS.join(', ')}) and files.tokens`);
    }
    const files = Object.fromEntries(Object.entries(manifest.files).map(([k, v]) => [k, path.resolve(dir, v)]));
    return checkFiles({ kind: manifest.kind as ModelKind, dir, files: files as ModelSpec['files'] });
  }

  const names = fs.readdirSync(dir);
  const onnx = names.filter((f) => f.endsWith('.onnx'));
  const tokens = names.includes('tokens.txt') ? 'tokens.txt' : pick(names, (f) => f.endsWith('tokens.txt'));
  if (onnx.length === 0) throw new ModelError(`No .onnx files in ${dir}`);
  if (!tokens) throw new ModelError(`No tokens.txt in ${dir}: every sherpa-onnx model ships one`);
  const at = (f: string | undefined) => (f ? path.join(dir, f) : undefined);
  const encoder = pick(onnx, (f) => f.includes('encoder'));
  const decoder = pick(onnx, (f) => f.includes('decoder'));
  const joiner = pick(onnx, (f) => f.includes('joiner'));

  let spec: ModelSpec;
  if ((kind === undefined || kind === 'transducer') && encoder && decoder && joiner) {
    spec = { kind: 'transducer', dir, files: { encoder: at(encoder), decoder: at(decoder), joiner: at(joiner), tokens: at(tokens)! } };
  } else if ((kind === undefined || kind === 'whisper') && encoder && decoder && !joiner) {
    spec = { kind: 'whisper', dir, files: { encoder: at(encoder), decoder: at(decoder), tokens: at(tokens)! } };
  } else if (kind === 'zipformer-ctc' || kind === 'nemo-ctc') {
    const model = pick(onnx, (f) => f.startsWith('model')) ?? (onnx.length === 1 ? onnx[0] : undefined);
    if (!model) throw new ModelError(`No model.onnx in ${dir} for a ${kind} model`);
    spec = { kind, dir, files: { model: at(model), tokens: at(tokens)! } };
  } else if (kind) {
    throw new ModelError(`${dir} does not hold the files of a ${kind} model`);
  } else {
    throw new ModelError(
      `Cannot tell the model kind of ${dir}: a transducer has encoder/decoder/joiner .onnx files, Whisper has encoder/decoder; ` +
        'for a single-file CTC model say --kind zipformer-ctc or --kind nemo-ctc',
    );
  }
  return checkFiles(spec);
}

function checkFiles(spec: ModelSpec): ModelSpec {
  checkModelFiles(spec.files);
  return spec;
}

/** The model to serve: SAOLA_ASR_MODEL, else the active one in the models folder, else none. */
export function resolveConfiguredModel(modelDir: string | undefined, modelsDir: string): string | undefined {
  if (modelDir) return modelDir;
  const activeFile = path.join(modelsDir, ACTIVE);
  if (!fs.existsSync(activeFile)) return undefined;
  try {
    const active = JSON.parse(fs.readFileSync(activeFile, 'utf8')) as { dir?: string };
    return active.dir ? path.resolve(modelsDir, active.dir) : undefined;
  } catch {
    throw new ModelError(`${activeFile} is not valid JSON`);
  }
}

/** The sherpa-onnx OfflineRecognizer configuration for a model. */
export function recognizerConfig(spec: ModelSpec, opts: RecognizerOptions): Record<string, unknown> {
  const base = { tokens: spec.files.tokens, numThreads: opts.numThreads, provider: 'cpu', debug: 0 };
  let modelConfig: Record<string, unknown>;
  switch (spec.kind) {
    case 'transducer':
      modelConfig = {
        ...base,
        modelType: 'transducer',
        transducer: { encoder: spec.files.encoder, decoder: spec.files.decoder, joiner: spec.files.joiner },
      };
      break;
    case 'whisper':
      modelConfig = {
        ...base,
        whisper: { encoder: spec.files.encoder, decoder: spec.files.decoder, language: opts.language, task: 'transcribe', tailPaddings: -1 },
      };
      break;
    case 'zipformer-ctc':
      modelConfig = { ...base, zipformerCtc: { model: spec.files.model } };
      break;
    case 'nemo-ctc':
      modelConfig = { ...base, nemoCtc: { model: spec.files.model } };
      break;
  }
  return {
    featConfig: { sampleRate: 16_000, featureDim: 80 },
    modelConfig,
    // Beam search only applies to transducers; the others decode greedily.
    decodingMethod: spec.kind === 'transducer' ? opts.decodingMethod : 'greedy_search',
    maxActivePaths: 4,
  };
}

/**
 * Loads the model and decodes one second of quiet noise in a child process.
 * sherpa-onnx ends its whole process when a model file is broken or of the
 * wrong kind, so nothing is loaded in the server before this passes.
 */
const PROBE_SCRIPT = `
const [modulePath, configJson] = process.argv.slice(1);
const sherpa = require(modulePath);
const started = Date.now();
const recognizer = new sherpa.OfflineRecognizer(JSON.parse(configJson));
const loadMs = Date.now() - started;
const samples = new Float32Array(16000);
let seed = 1;
for (let i = 0; i < samples.length; i++) { seed = (seed * 1103515245 + 12345) % 2147483648; samples[i] = (seed / 2147483648 - 0.5) * 0.02; }
const stream = recognizer.createStream();
stream.acceptWaveform({ samples, sampleRate: 16000 });
recognizer.decode(stream);
const result = recognizer.getResult(stream);
process.stdout.write(JSON.stringify({ ok: true, loadMs, text: result.text }));
`;

export interface ProbeResult {
  loadMs: number;
}

export async function probeModel(spec: ModelSpec, opts: RecognizerOptions, timeoutMs = 300_000): Promise<ProbeResult> {
  const config = JSON.stringify(recognizerConfig(spec, opts));
  const { loadMs } = await runSherpaProbe<{ ok: boolean; loadMs: number }>(PROBE_SCRIPT, [config], `The ${spec.kind} model in ${spec.dir}`, timeoutMs);
  return { loadMs };
}
