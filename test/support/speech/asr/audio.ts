import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { ffmpegProgram, hasProgram } from '../../programs.js';

/**
 * Test audio made on the spot: Vietnamese speech from eSpeak NG, and
 * silence, noise and tones from ffmpeg's generators, converted with ffmpeg
 * into every upload format. Without the Debian programs (a fresh machine) the
 * WASM eSpeak NG and the npm-shipped ffmpeg, which the services fall back to,
 * make the same audio.
 */
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-asr-audio-'));
process.on('exit', () => fs.rmSync(work, { recursive: true, force: true }));

let counter = 0;
const tmp = (ext: string) => path.join(work, `a${++counter}.${ext}`);

/** Speech-like audio: eSpeak NG reading Vietnamese text, as a wav file. */
export function speech(text: string, voice = 'vi'): Buffer {
  const out = tmp('wav');
  if (hasProgram('espeak-ng')) execFileSync('espeak-ng', ['-v', voice, '-w', out, text]);
  else execFileSync(process.execPath, [fileURLToPath(new URL('../../espeak-wasm.mjs', import.meta.url)), voice, out, text]);
  return fs.readFileSync(out);
}

function ffmpeg(args: string[], ext: string): Buffer {
  const out = tmp(ext);
  execFileSync(ffmpegProgram(), ['-nostdin', '-hide_banner', '-loglevel', 'error', '-y', ...args, out]);
  return fs.readFileSync(out);
}

/** One of ffmpeg's lavfi sources (anullsrc, anoisesrc, sine) as a 16 kHz wav. */
export function generated(source: string, seconds: number): Buffer {
  return ffmpeg(['-f', 'lavfi', '-i', source, '-t', String(seconds), '-ac', '1', '-ar', '16000'], 'wav');
}

export const FORMATS: Record<string, string[]> = {
  wav: [],
  mp3: ['-c:a', 'libmp3lame'],
  m4a: ['-c:a', 'aac'],
  aac: ['-c:a', 'aac', '-f', 'adts'],
  ogg: ['-c:a', 'libvorbis'],
  opus: ['-c:a', 'libopus'],
  webm: ['-c:a', 'libopus'],
  flac: ['-c:a', 'flac'],
};

/** Re-encodes a wav into another container and codec. */
export function convert(wav: Buffer, format: string): Buffer {
  const input = tmp('wav');
  fs.writeFileSync(input, wav);
  return ffmpeg(['-i', input, ...(FORMATS[format] ?? [])], format);
}

/** Joins wav clips with pauses between them (16 kHz mono). */
export function withPauses(clips: Buffer[], pauseSeconds: number): Buffer {
  const inputs: string[] = [];
  for (const clip of clips) {
    const f = tmp('wav');
    fs.writeFileSync(f, clip);
    inputs.push(f);
  }
  // pad_len (samples at 16 kHz), not pad_dur: the npm ffmpeg 4.1 of a fresh machine lacks pad_dur.
  const filters = inputs.map((_, i) => `[${i}:a]aresample=16000,aformat=channel_layouts=mono,apad=pad_len=${Math.round(pauseSeconds * 16000)}[a${i}]`);
  const concat = `${inputs.map((_, i) => `[a${i}]`).join('')}concat=n=${inputs.length}:v=0:a=1[out]`;
  return ffmpeg([...inputs.flatMap((f) => ['-i', f]), '-filter_complex', [...filters, concat].join(';'), '-map', '[out]'], 'wav');
}
