import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

/**
 * Finding and running the ffmpeg program, shared by every service that reads
 * audio or video (ASR, liveness). Native where present, npm always: the Debian
 * program when it is on the PATH, else the binary shipped in the npm package
 * `@ffmpeg-installer/linux-x64`.
 */
export interface Ffmpeg {
  readonly binary: string;
  /** `native` (ffmpeg on the PATH) or `npm` (@ffmpeg-installer/linux-x64). */
  readonly source: 'native' | 'npm';
}

export type FfmpegPreference = 'auto' | 'native' | 'npm';

export interface RunResult {
  stdout: Buffer;
  stderr: string;
}

/** A failed run: the exit error with ffmpeg's stderr attached (and `killed` when the time limit ended it). */
export type RunError = Error & { stderr?: string; killed?: boolean; code?: number | string };

/** Runs a program with a time limit and an output cap; stdout as bytes, stderr as text. */
export function runProgram(file: string, args: string[], opts: { signal?: AbortSignal; maxBuffer: number; timeoutMs: number }): Promise<RunResult> {
  return new Promise<RunResult>((resolve, reject) => {
    execFile(
      file,
      args,
      { encoding: 'buffer', maxBuffer: opts.maxBuffer, timeout: opts.timeoutMs, killSignal: 'SIGKILL', signal: opts.signal, windowsHide: true },
      (err, stdout, stderr) => {
        if (err) reject(Object.assign(err, { stderr: stderr.toString('utf8') }));
        else resolve({ stdout, stderr: stderr.toString('utf8') });
      },
    );
  });
}

async function works(binary: string): Promise<boolean> {
  try {
    await runProgram(binary, ['-hide_banner', '-version'], { maxBuffer: 1 << 20, timeoutMs: 10_000 });
    return true;
  } catch {
    return false;
  }
}

function npmFfmpegPath(): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    return path.join(path.dirname(require.resolve('@ffmpeg-installer/linux-x64/package.json')), 'ffmpeg');
  } catch {
    return undefined;
  }
}

/**
 * Native ffmpeg when it is on the PATH (unless `npm` is asked for), else the
 * npm-shipped binary. `setting` names the variable that chose the preference,
 * for the error message.
 */
export async function locateFfmpeg(preference: FfmpegPreference, setting = 'the ffmpeg setting'): Promise<Ffmpeg> {
  if (preference !== 'npm' && (await works('ffmpeg'))) return { binary: 'ffmpeg', source: 'native' };
  if (preference === 'native') throw new Error(`${setting}=native but no ffmpeg program is on the PATH`);
  const bundled = npmFfmpegPath();
  if (bundled && (await works(bundled))) return { binary: bundled, source: 'npm' };
  throw new Error('No ffmpeg found: install the Debian package ffmpeg or the npm package @ffmpeg-installer/linux-x64');
}

/**
 * Writes `bytes` to a file in a fresh private folder (mode 0700: uploads are
 * personal data), runs `fn` on its path and removes the folder whatever
 * happens. ffmpeg reads uploads from a file because mp4 and mov need to seek.
 */
export async function withTempFile<T>(prefix: string, bytes: Uint8Array, fn: (file: string) => Promise<T>): Promise<T> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  try {
    await fs.chmod(dir, 0o700);
    const file = path.join(dir, 'upload');
    await fs.writeFile(file, bytes, { mode: 0o600 });
    return await fn(file);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/**
 * ffmpeg's options for reading an upload: no prompt, errors only, the local file the only protocol and
 * only the listed demuxers (a crafted file cannot make it open URLs or exotic formats).
 */
export function uploadInputArgs(demuxers: readonly string[], options: { quiet?: boolean } = {}): string[] {
  return ['-nostdin', '-hide_banner', ...(options.quiet === false ? [] : ['-loglevel', 'error']), '-protocol_whitelist', 'file', '-format_whitelist', demuxers.join(',')];
}

/** The last line of ffmpeg's stderr, with the private file's path taken out (for messages to clients). */
export function lastErrorLine(err: unknown, file: string): string {
  const lines = String((err as RunError).stderr ?? '')
    .trim()
    .split('\n');
  return (lines.pop() ?? '').split(file).join('upload');
}
