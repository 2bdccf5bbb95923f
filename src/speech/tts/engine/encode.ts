import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import { promisify } from 'node:util';
import type { WorkerPool } from '../../../platform/pool/index.js';
import type { WorkerTask, WorkerResult } from './worker.js';

const run = promisify(execFile);

/** Mono 16-bit PCM, as every engine here produces. */
export interface Pcm {
  samples: Int16Array;
  sampleRate: number;
}

/** A canonical 44-byte-header WAV file of mono 16-bit PCM. */
export function pcmToWav(pcm: Pcm): Buffer {
  const dataBytes = pcm.samples.length * 2;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(pcm.sampleRate, 24);
  header.writeUInt32LE(pcm.sampleRate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(dataBytes, 40);
  const body = Buffer.from(pcm.samples.buffer, pcm.samples.byteOffset, dataBytes);
  return Buffer.concat([header, body]);
}

export class WavFormatError extends Error {
  override name = 'WavFormatError';
}

/**
 * Reads mono 16-bit PCM from a WAV file. Streamed WAVs (espeak-ng --stdout)
 * carry placeholder sizes, so the data chunk runs to the end of the buffer.
 */
export function parseWav(buf: Buffer): Pcm {
  if (buf.length < 12 || buf.toString('ascii', 0, 4) !== 'RIFF' || buf.toString('ascii', 8, 12) !== 'WAVE') {
    throw new WavFormatError('not a WAV file');
  }
  let offset = 12;
  let sampleRate = 0;
  let channels = 0;
  let bits = 0;
  while (offset + 8 <= buf.length) {
    const id = buf.toString('ascii', offset, offset + 4);
    const size = buf.readUInt32LE(offset + 4);
    const start = offset + 8;
    if (id === 'fmt ') {
      channels = buf.readUInt16LE(start + 2);
      sampleRate = buf.readUInt32LE(start + 4);
      bits = buf.readUInt16LE(start + 14);
    } else if (id === 'data') {
      if (channels !== 1 || bits !== 16) throw new WavFormatError(`expected mono 16-bit PCM, got ${channels} channels of ${bits} bits`);
      const end = Math.min(buf.length, start + size);
      const length = Math.floor((end - start) / 2);
      const samples = new Int16Array(length);
      for (let i = 0; i < length; i++) samples[i] = buf.readInt16LE(start + i * 2);
      return { samples, sampleRate };
    }
    offset = start + size + (size % 2);
  }
  throw new WavFormatError('WAV file has no data chunk');
}

export function concatPcm(parts: Pcm[], sampleRate: number): Pcm {
  const total = parts.reduce((n, p) => n + p.samples.length, 0);
  const samples = new Int16Array(total);
  let at = 0;
  for (const part of parts) {
    if (part.sampleRate !== sampleRate) throw new Error(`sample rate ${part.sampleRate} differs from ${sampleRate}`);
    samples.set(part.samples, at);
    at += part.samples.length;
  }
  return { samples, sampleRate };
}

/** Encodes a WAV file on disk into an MP3 file on disk. */
export interface Mp3Encoder {
  /** `ffmpeg (native)` or `lamejs (worker thread)`, for /readyz and the start-up log. */
  readonly name: string;
  encode(wavPath: string, mp3Path: string, opts: { kbps: number; signal?: AbortSignal }): Promise<void>;
}

/** The Debian ffmpeg program with libmp3lame; compression level 7 is lame's fast algorithm, ample for speech. */
export class FfmpegMp3Encoder implements Mp3Encoder {
  readonly name = 'ffmpeg (native)';

  constructor(private readonly program = 'ffmpeg') {}

  async encode(wavPath: string, mp3Path: string, opts: { kbps: number; signal?: AbortSignal }): Promise<void> {
    await run(
      this.program,
      ['-hide_banner', '-loglevel', 'error', '-nostdin', '-y', '-i', wavPath, '-codec:a', 'libmp3lame', '-b:a', `${opts.kbps}k`, '-compression_level', '7', mp3Path],
      { signal: opts.signal, timeout: 10 * 60_000, maxBuffer: 1024 * 1024 },
    );
  }
}

/** lamejs (pure JavaScript) in the worker pool, for machines without ffmpeg. */
export class LameMp3Encoder implements Mp3Encoder {
  readonly name = 'lamejs (worker thread)';

  constructor(private readonly pool: WorkerPool<WorkerTask, WorkerResult>) {}

  async encode(wavPath: string, mp3Path: string, opts: { kbps: number; signal?: AbortSignal }): Promise<void> {
    const pcm = parseWav(await fs.readFile(wavPath));
    const result = await this.pool.run({ op: 'mp3', samples: pcm.samples, sampleRate: pcm.sampleRate, kbps: opts.kbps }, { signal: opts.signal });
    if (result.op !== 'mp3') throw new Error('unexpected worker answer');
    await fs.writeFile(mp3Path, result.mp3);
  }
}
