import { createRequire } from 'node:module';
import { sherpaModulePath } from '../../models.js';

/**
 * The text-to-speech worker thread: the WASM eSpeak NG (when the espeak-ng
 * program is missing), the lamejs MP3 encoder (when ffmpeg is missing) and
 * the operator's VITS voices (sherpa-onnx). Each is loaded once per thread,
 * on first use.
 */

export type WorkerTask =
  | { op: 'synthesise'; text: string; espeakVoice: string; wpm: number }
  | { op: 'phonemes'; text: string; espeakVoice: string }
  | { op: 'mp3'; samples: Int16Array; sampleRate: number; kbps: number }
  /** An installed VITS voice (neural.ts): `key` names the model, `config` is its sherpa-onnx OfflineTts configuration. */
  | { op: 'neural'; key: string; config: Record<string, unknown>; text: string; sid: number; speed: number };

export type WorkerResult = { op: 'synthesise'; samples: Int16Array; sampleRate: number } | { op: 'phonemes'; phonemes: string } | { op: 'mp3'; mp3: Uint8Array };

interface EspeakWorker {
  set_voice(name: string): number;
  set_rate(wpm: number): void;
  get_samplerate(): number;
  synthesize(text: string, callback: (samples: Int16Array | null, events: unknown) => boolean | number | void): void;
  /** Answers a pointer (into the module's heap) to a NUL-terminated UTF-8 string. */
  text_to_phonemes(text: string, mode: number): { ptr: number };
}

let espeak: Promise<EspeakWorker> | undefined;
let heap: { HEAPU8: Uint8Array } | undefined;

function loadEspeak(): Promise<EspeakWorker> {
  espeak ??= (async () => {
    // The package ships no types; a variable specifier keeps TypeScript from asking for them.
    const specifier = '@echogarden/espeak-ng-emscripten';
    const { default: initialise } = (await import(specifier)) as {
      default: () => Promise<{ eSpeakNGWorker: new () => EspeakWorker; HEAPU8: Uint8Array }>;
    };
    const module = await initialise();
    heap = module;
    return new module.eSpeakNGWorker();
  })();
  espeak.catch(() => {
    espeak = undefined;
  });
  return espeak;
}

async function synthesise(text: string, espeakVoice: string, wpm: number): Promise<WorkerResult> {
  const engine = await loadEspeak();
  if (engine.set_voice(espeakVoice) !== 0) throw new Error(`eSpeak NG (WASM) has no voice ${espeakVoice}`);
  engine.set_rate(wpm);
  const chunks: Int16Array[] = [];
  engine.synthesize(text, (samples) => {
    if (samples && samples.length > 0) chunks.push(Int16Array.from(samples));
    return false;
  });
  const total = chunks.reduce((n, c) => n + c.length, 0);
  const samples = new Int16Array(total);
  let at = 0;
  for (const chunk of chunks) {
    samples.set(chunk, at);
    at += chunk.length;
  }
  return { op: 'synthesise', samples, sampleRate: engine.get_samplerate() };
}

type Mp3EncoderClass = typeof import('@breezystack/lamejs').Mp3Encoder;
let lame: Promise<Mp3EncoderClass> | undefined;

/** Imported, never required: the package's `require` entry is a browser IIFE that exports nothing. */
function loadLame(): Promise<Mp3EncoderClass> {
  lame ??= import('@breezystack/lamejs').then((m) => {
    const mod = m as unknown as { Mp3Encoder?: Mp3EncoderClass; default?: { Mp3Encoder?: Mp3EncoderClass } };
    const found = mod.Mp3Encoder ?? mod.default?.Mp3Encoder;
    if (!found) throw new Error('@breezystack/lamejs has no Mp3Encoder');
    return found;
  });
  return lame;
}

async function encodeMp3(samples: Int16Array, sampleRate: number, kbps: number): Promise<WorkerResult> {
  const Mp3Encoder = await loadLame();
  const encoder = new Mp3Encoder(1, sampleRate, kbps);
  const parts: Uint8Array[] = [];
  const block = 1152 * 16;
  for (let i = 0; i < samples.length; i += block) {
    const out = encoder.encodeBuffer(samples.subarray(i, i + block));
    if (out.length > 0) parts.push(Uint8Array.from(out));
  }
  const tail = encoder.flush();
  if (tail.length > 0) parts.push(Uint8Array.from(tail));
  const mp3 = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    mp3.set(p, at);
    at += p.length;
  }
  return { op: 'mp3', mp3 };
}

interface OfflineTts {
  sampleRate: number;
  generate(request: { text: string; sid: number; speed: number }): { samples: Float32Array; sampleRate: number };
}
const voiceModels = new Map<string, OfflineTts>();

function neural(task: Extract<WorkerTask, { op: 'neural' }>): WorkerResult {
  let tts = voiceModels.get(task.key);
  if (!tts) {
    const sherpa = createRequire(import.meta.url)(sherpaModulePath()) as { OfflineTts: new (config: Record<string, unknown>) => OfflineTts };
    tts = new sherpa.OfflineTts(task.config);
    voiceModels.set(task.key, tts);
  }
  const audio = tts.generate({ text: task.text, sid: task.sid, speed: task.speed });
  // Nothing the model can read (its tokens lack every character) gives no samples: a tenth of a second of silence.
  if (audio.samples.length === 0) return { op: 'synthesise', samples: new Int16Array(Math.round(tts.sampleRate / 10)), sampleRate: tts.sampleRate };
  const samples = new Int16Array(audio.samples.length);
  for (let i = 0; i < samples.length; i++) samples[i] = Math.round(Math.max(-1, Math.min(1, audio.samples[i])) * 32767);
  return { op: 'synthesise', samples, sampleRate: audio.sampleRate };
}

export default async function ttsWorker(task: WorkerTask): Promise<WorkerResult> {
  switch (task.op) {
    case 'synthesise':
      return synthesise(task.text, task.espeakVoice, task.wpm);
    case 'phonemes': {
      const engine = await loadEspeak();
      if (engine.set_voice(task.espeakVoice) !== 0) throw new Error(`eSpeak NG (WASM) has no voice ${task.espeakVoice}`);
      // Mode 0: eSpeak's ASCII phoneme mnemonics, as `espeak-ng -x` prints, tone digits included.
      const pointer = engine.text_to_phonemes(task.text, 0).ptr;
      const bytes = heap?.HEAPU8 ?? new Uint8Array();
      let end = pointer;
      while (end < bytes.length && bytes[end] !== 0) end++;
      const phonemes = Buffer.from(bytes.subarray(pointer, end)).toString('utf8');
      return { op: 'phonemes', phonemes };
    }
    case 'mp3':
      return encodeMp3(task.samples, task.sampleRate, task.kbps);
    case 'neural':
      return neural(task);
  }
}
