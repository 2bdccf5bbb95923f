import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { WorkerPool } from '../../../platform/pool/index.js';
import { concatPcm, parseWav, type Pcm } from './encode.js';
import { normaliseText, splitSentences } from './normalise.js';
import type { VoiceInfo } from '../voices.js';
import type { WorkerResult, WorkerTask } from './worker.js';

const run = promisify(execFile);

/**
 * A speech engine: text in one voice at one rate to mono 16-bit PCM. Two
 * implementations of eSpeak NG (the Debian program, the WASM build in a worker
 * thread). An operator's VITS model run by sherpa-onnx (neural.ts) implements
 * the same interface: see docs/tts.md, "Neural voices".
 */
export interface SpeechEngine {
  /** For /readyz and the start-up log: `espeak-ng 1.51 (native)`. */
  readonly name: string;
  readonly kind: 'native' | 'wasm' | 'neural';
  /** Synthesises one part of a text (already normalised, a few sentences). */
  synthesise(text: string, voice: VoiceInfo, wpm: number, signal?: AbortSignal): Promise<Pcm>;
  /** eSpeak phoneme mnemonics (`espeak-ng -x`), for the tone check; an engine without phonemes answers ''. */
  phonemes(text: string, voice: VoiceInfo): Promise<string>;
}

/** The eSpeak NG program, one child process per part (fast: ~0.1 s per 1000 characters). */
export class NativeEspeakEngine implements SpeechEngine {
  readonly kind = 'native';

  constructor(
    readonly name: string,
    private readonly program = 'espeak-ng',
    private readonly timeoutMs = 60_000,
  ) {}

  static async detect(program = 'espeak-ng'): Promise<NativeEspeakEngine | undefined> {
    if (!onPath(program)) return undefined;
    try {
      const { stdout } = await run(program, ['--version'], { timeout: 10_000 });
      const version = /text-to-speech:\s*([\d.]+)/.exec(stdout)?.[1] ?? '';
      return new NativeEspeakEngine(`espeak-ng ${version} (native)`.replace('  ', ' '), program);
    } catch {
      return undefined;
    }
  }

  private spawn(args: string[], text: string, signal?: AbortSignal): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.program, ['-b', '1', '--stdin', ...args], { signal, timeout: this.timeoutMs, stdio: ['pipe', 'pipe', 'pipe'] });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
      child.on('error', reject);
      child.on('close', (code, killed) => {
        if (code === 0) resolve(Buffer.concat(out));
        else reject(new Error(`espeak-ng exited with ${code ?? killed}: ${Buffer.concat(err).toString('utf8').slice(0, 300)}`));
      });
      child.stdin.on('error', () => undefined);
      child.stdin.end(text, 'utf8');
    });
  }

  async synthesise(text: string, voice: VoiceInfo, wpm: number, signal?: AbortSignal): Promise<Pcm> {
    const wav = await this.spawn(['-v', voice.espeak, '-s', String(wpm), '--stdout'], text, signal);
    return parseWav(wav);
  }

  async phonemes(text: string, voice: VoiceInfo): Promise<string> {
    return (await this.spawn(['-v', voice.espeak, '-q', '-x'], text)).toString('utf8');
  }
}

/** The WASM build of eSpeak NG (npm), run in the worker pool so it never blocks the event loop. */
export class WasmEspeakEngine implements SpeechEngine {
  readonly kind = 'wasm';
  readonly name = 'espeak-ng (WASM, @echogarden/espeak-ng-emscripten)';

  constructor(private readonly pool: WorkerPool<WorkerTask, WorkerResult>) {}

  async synthesise(text: string, voice: VoiceInfo, wpm: number, signal?: AbortSignal): Promise<Pcm> {
    const result = await this.pool.run({ op: 'synthesise', text, espeakVoice: voice.espeak, wpm }, { signal });
    if (result.op !== 'synthesise') throw new Error('unexpected worker answer');
    return { samples: result.samples, sampleRate: result.sampleRate };
  }

  async phonemes(text: string, voice: VoiceInfo): Promise<string> {
    const result = await this.pool.run({ op: 'phonemes', text, espeakVoice: voice.espeak });
    return result.op === 'phonemes' ? result.phonemes : '';
  }
}

/** Whether an executable of this name is on the PATH. */
export function onPath(program: string): boolean {
  if (program.includes('/')) return isExecutable(program);
  return (process.env.PATH ?? '').split(path.delimiter).some((dir) => dir !== '' && isExecutable(path.join(dir, program)));
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Characters per part: short enough for progress and parallel parts, long enough to keep prosody. */
export const PART_CHARS = 400;

/**
 * Normalises a text, cuts it at sentence ends and synthesises the parts,
 * `parallel` at a time, in order. `onPart` reports progress (parts done, parts).
 */
export async function synthesiseText(
  engine: SpeechEngine,
  text: string,
  voice: VoiceInfo,
  wpm: number,
  opts: { parallel?: number; signal?: AbortSignal; onPart?: (done: number, total: number) => void | Promise<void> } = {},
): Promise<Pcm & { parts: number }> {
  const parts = splitSentences(normaliseText(text), PART_CHARS);
  if (parts.length === 0) throw new Error('the text has nothing to read');
  const results: Pcm[] = new Array(parts.length);
  let next = 0;
  let done = 0;
  const lanes = Math.max(1, Math.min(opts.parallel ?? 1, parts.length));
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < parts.length) {
        const index = next++;
        opts.signal?.throwIfAborted();
        results[index] = await engine.synthesise(parts[index], voice, wpm, opts.signal);
        done++;
        await opts.onPart?.(done, parts.length);
      }
    }),
  );
  const sampleRate = results[0].sampleRate;
  return { ...concatPcm(results, sampleRate), parts: parts.length };
}
