import { ConfigError } from '../../platform/config.js';

/** The text-to-speech settings, read from `SAOLA_TTS_*` (see docs/tts.md). */
export interface TtsConfig {
  /** `auto` uses the espeak-ng program when it is on the PATH, else the WASM build. */
  engine: 'auto' | 'native' | 'wasm';
  /** `auto` uses the ffmpeg program when it is on the PATH, else lamejs in a worker thread. */
  encoder: 'auto' | 'ffmpeg' | 'lame';
  /** MP3 bit rate, kbit/s. */
  mp3Kbps: number;
  /** Synthesis jobs run at once by this process. */
  concurrency: number;
  /** Attempts per synthesis job before it fails. */
  synthesisAttempts: number;
  /** Longest one synthesis job may take (engine plus encoder), ms. */
  synthesisTimeoutMs: number;
  /** Seconds a finished file is kept; the link answers 404 after that. */
  retentionSeconds: number;
  /** How often the retention sweep runs, seconds. */
  sweepSeconds: number;
  /** Callback attempts before it is given up. */
  callbackAttempts: number;
  /** First retry delay of a callback, ms; it doubles on every try. */
  callbackBackoffMs: number;
  /** Longest wait between two callback tries, ms. */
  callbackBackoffCapMs: number;
  /** Timeout of one callback try, ms. */
  callbackTimeoutMs: number;
  /** Let callbacks reach loopback, private and link-local addresses (tests, intranets). */
  callbackAllowPrivate: boolean;
}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function choice<T extends string>(env: Env, name: string, fallback: T, values: readonly T[]): T {
  const raw = env[name]?.trim().toLowerCase();
  if (!raw) return fallback;
  if (!(values as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${values.join(', ')}, got "${env[name]}"`);
  }
  return raw as T;
}

export function loadTtsConfig(env: Env = process.env): TtsConfig {
  return {
    engine: choice(env, 'SAOLA_TTS_ENGINE', 'auto', ['auto', 'native', 'wasm'] as const),
    encoder: choice(env, 'SAOLA_TTS_ENCODER', 'auto', ['auto', 'ffmpeg', 'lame'] as const),
    mp3Kbps: integer(env, 'SAOLA_TTS_MP3_KBPS', 48, 8, 320),
    concurrency: integer(env, 'SAOLA_TTS_CONCURRENCY', 2, 1, 64),
    synthesisAttempts: integer(env, 'SAOLA_TTS_ATTEMPTS', 3, 1, 20),
    synthesisTimeoutMs: integer(env, 'SAOLA_TTS_TIMEOUT_MS', 120_000, 1000, 3_600_000),
    retentionSeconds: integer(env, 'SAOLA_TTS_RETENTION_SECONDS', 3 * 24 * 3600, 1, 10 * 365 * 24 * 3600),
    sweepSeconds: integer(env, 'SAOLA_TTS_SWEEP_SECONDS', 600, 1, 7 * 24 * 3600),
    callbackAttempts: integer(env, 'SAOLA_TTS_CALLBACK_ATTEMPTS', 8, 1, 50),
    callbackBackoffMs: integer(env, 'SAOLA_TTS_CALLBACK_BACKOFF_MS', 2000, 1, 3_600_000),
    callbackBackoffCapMs: integer(env, 'SAOLA_TTS_CALLBACK_BACKOFF_CAP_MS', 10 * 60_000, 1, 24 * 3_600_000),
    callbackTimeoutMs: integer(env, 'SAOLA_TTS_CALLBACK_TIMEOUT_MS', 10_000, 100, 300_000),
    callbackAllowPrivate: bool(env, 'SAOLA_TTS_CALLBACK_ALLOW_PRIVATE', false),
  };
}
