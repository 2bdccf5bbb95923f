/**
 * The seven voices of the API and the eSpeak NG voice each one maps to, and
 * the speed scale. Measured here (../shared/DESIGN.md): the variants make seven
 * distinguishable voices and `175 * 1.15^speed` words per minute is monotonic.
 */

export const VOICES = ['banmai', 'lannhi', 'leminh', 'myan', 'thuminh', 'giahuy', 'linhsan'] as const;
export type Voice = (typeof VOICES)[number];

export const DEFAULT_VOICE: Voice = 'banmai';

export interface VoiceInfo {
  name: Voice;
  gender: 'female' | 'male';
  region: 'northern' | 'central' | 'southern';
  /** eSpeak NG voice with its variant (`-v`). */
  espeak: string;
}

export const VOICE_INFO: Readonly<Record<Voice, VoiceInfo>> = {
  banmai: { name: 'banmai', gender: 'female', region: 'northern', espeak: 'vi+f3' },
  thuminh: { name: 'thuminh', gender: 'female', region: 'northern', espeak: 'vi+f1' },
  leminh: { name: 'leminh', gender: 'male', region: 'northern', espeak: 'vi' },
  lannhi: { name: 'lannhi', gender: 'female', region: 'southern', espeak: 'vi-vn-x-south+f3' },
  linhsan: { name: 'linhsan', gender: 'female', region: 'southern', espeak: 'vi-vn-x-south+f5' },
  myan: { name: 'myan', gender: 'female', region: 'central', espeak: 'vi-vn-x-central+f2' },
  giahuy: { name: 'giahuy', gender: 'male', region: 'central', espeak: 'vi-vn-x-central+m2' },
};

/** Older clients send the v4 names `female` and `male` (the spec's default is "female"). */
const ALIASES: Readonly<Record<string, Voice>> = { female: 'banmai', male: 'leminh' };

export function parseVoice(raw: string): Voice | undefined {
  const name = raw.trim().toLowerCase();
  if (name === '') return DEFAULT_VOICE;
  if ((VOICES as readonly string[]).includes(name)) return name as Voice;
  return ALIASES[name];
}

export const MIN_SPEED = -3;
export const MAX_SPEED = 3;

/** `""` means 0; `+1`, ` 2 ` and `1.0` are accepted; anything else is undefined. */
export function parseSpeed(raw: string): number | undefined {
  const text = raw.trim();
  if (text === '') return 0;
  if (!/^[+-]?\d+(\.0*)?$/.test(text)) return undefined;
  const value = Number(text);
  return Number.isInteger(value) && value >= MIN_SPEED && value <= MAX_SPEED ? value : undefined;
}

/** eSpeak NG words per minute for an API speed. */
export function wordsPerMinute(speed: number): number {
  return Math.round(175 * 1.15 ** speed);
}

export const FORMATS = ['mp3', 'wav'] as const;
export type AudioFormat = (typeof FORMATS)[number];

export function parseFormat(raw: string): AudioFormat | undefined {
  const name = raw.trim().toLowerCase().replace(/^\./, '');
  if (name === '') return 'mp3';
  return (FORMATS as readonly string[]).includes(name) ? (name as AudioFormat) : undefined;
}

export const CONTENT_TYPES: Readonly<Record<AudioFormat, string>> = { mp3: 'audio/mpeg', wav: 'audio/wav' };
