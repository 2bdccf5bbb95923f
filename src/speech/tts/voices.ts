/**
 * The voices clients may ask for and the eSpeak NG voice each one maps to, and
 * the speed scale. See docs/tts.md#voices: the variants make
 * distinguishable voices and `175 * 1.15^speed` words per minute is monotonic.
 */

/** The seven voices of the spec. */
export const VOICES = ['banmai', 'lannhi', 'leminh', 'myan', 'thuminh', 'giahuy', 'linhsan'] as const;

/**
 * Two more speakers the original offers and its clients send (its published
 * voice list: Ngọc Lam, female, central; Minh Quang, male, southern).
 */
export const EXTRA_VOICES = ['ngoclam', 'minhquang'] as const;

/** Every speaker with an engine voice of its own. */
export const SPEAKERS = [...VOICES, ...EXTRA_VOICES] as const;
export type Speaker = (typeof SPEAKERS)[number];

/**
 * The original's "AceSound" variants: the same speaker from another recording
 * studio. Here each speaks with its speaker's voice (or its own model when the
 * operator maps one to the variant's name).
 */
export const ACE_VOICES = {
  banmaiace: 'banmai',
  thuminhace: 'thuminh',
  ngoclamace: 'ngoclam',
  linhsanace: 'linhsan',
  minhquangace: 'minhquang',
} as const satisfies Record<string, Speaker>;
export type AceVoice = keyof typeof ACE_VOICES;

/** A voice name a request may carry (what the request stores and its status shows). */
export type Voice = Speaker | AceVoice;
export const ALL_VOICES: readonly Voice[] = [...SPEAKERS, ...(Object.keys(ACE_VOICES) as AceVoice[])];

export const DEFAULT_VOICE: Voice = 'banmai';

export interface VoiceInfo {
  name: Voice;
  /** The speaker whose engine voice this name uses (itself, or an Ace variant's speaker). */
  speaker: Speaker;
  gender: 'female' | 'male';
  region: 'northern' | 'central' | 'southern';
  /** eSpeak NG voice with its variant (`-v`). */
  espeak: string;
}

type SpeakerInfo = Omit<VoiceInfo, 'name' | 'speaker'>;

/** The original's gender and region of each speaker, and the eSpeak NG voice of that region and gender. */
const SPEAKER_INFO: Readonly<Record<Speaker, SpeakerInfo>> = {
  banmai: { gender: 'female', region: 'northern', espeak: 'vi+f3' },
  thuminh: { gender: 'female', region: 'northern', espeak: 'vi+f1' },
  leminh: { gender: 'male', region: 'northern', espeak: 'vi' },
  lannhi: { gender: 'female', region: 'southern', espeak: 'vi-vn-x-south+f3' },
  linhsan: { gender: 'female', region: 'southern', espeak: 'vi-vn-x-south+f5' },
  myan: { gender: 'female', region: 'central', espeak: 'vi-vn-x-central+f2' },
  giahuy: { gender: 'male', region: 'central', espeak: 'vi-vn-x-central+m2' },
  ngoclam: { gender: 'female', region: 'central', espeak: 'vi-vn-x-central+f4' },
  minhquang: { gender: 'male', region: 'southern', espeak: 'vi-vn-x-south+m3' },
};

export const VOICE_INFO: Readonly<Record<Voice, VoiceInfo>> = Object.fromEntries(
  ALL_VOICES.map((name) => {
    const speaker: Speaker = name in ACE_VOICES ? ACE_VOICES[name as AceVoice] : (name as Speaker);
    return [name, { name, speaker, ...SPEAKER_INFO[speaker] }];
  }),
) as Record<Voice, VoiceInfo>;

/** Older clients send the v4 names `female` and `male` (the spec's default is "female"). */
const ALIASES: Readonly<Record<string, Voice>> = { female: 'banmai', male: 'leminh' };

export function parseVoice(raw: string): Voice | undefined {
  const name = raw.trim().toLowerCase();
  if (name === '') return DEFAULT_VOICE;
  if (Object.hasOwn(VOICE_INFO, name)) return name as Voice;
  return Object.hasOwn(ALIASES, name) ? ALIASES[name] : undefined;
}

/** The voice a stored request names (undefined for a name this version no longer knows). */
export function voiceInfo(name: string): VoiceInfo | undefined {
  return Object.hasOwn(VOICE_INFO, name) ? VOICE_INFO[name as Voice] : undefined;
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
