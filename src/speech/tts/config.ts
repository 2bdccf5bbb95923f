import { booleanSetting, choiceSetting, integerSetting, type Env } from '../../platform/settings.js';

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
  /** Unfinished requests (all applications) beyond which new ones get 429 (0: no limit). */
  maxBacklog: number;
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

export function loadTtsConfig(env: Env = process.env): TtsConfig {
  return {
    engine: choiceSetting(env, 'SAOLA_TTS_ENGINE', 'auto', ['auto', 'native', 'wasm'] as const),
    encoder: choiceSetting(env, 'SAOLA_TTS_ENCODER', 'auto', ['auto', 'ffmpeg', 'lame'] as const),
    mp3Kbps: integerSetting(env, 'SAOLA_TTS_MP3_KBPS', 48, 8, 320),
    concurrency: integerSetting(env, 'SAOLA_TTS_CONCURRENCY', 2, 1, 64),
    synthesisAttempts: integerSetting(env, 'SAOLA_TTS_ATTEMPTS', 3, 1, 20),
    maxBacklog: integerSetting(env, 'SAOLA_TTS_MAX_BACKLOG', 200, 0, 10_000_000),
    synthesisTimeoutMs: integerSetting(env, 'SAOLA_TTS_TIMEOUT_MS', 120_000, 1000, 3_600_000),
    retentionSeconds: integerSetting(env, 'SAOLA_TTS_RETENTION_SECONDS', 3 * 24 * 3600, 1, 10 * 365 * 24 * 3600),
    sweepSeconds: integerSetting(env, 'SAOLA_TTS_SWEEP_SECONDS', 600, 1, 7 * 24 * 3600),
    callbackAttempts: integerSetting(env, 'SAOLA_TTS_CALLBACK_ATTEMPTS', 8, 1, 50),
    callbackBackoffMs: integerSetting(env, 'SAOLA_TTS_CALLBACK_BACKOFF_MS', 2000, 1, 3_600_000),
    callbackBackoffCapMs: integerSetting(env, 'SAOLA_TTS_CALLBACK_BACKOFF_CAP_MS', 10 * 60_000, 1, 24 * 3_600_000),
    callbackTimeoutMs: integerSetting(env, 'SAOLA_TTS_CALLBACK_TIMEOUT_MS', 10_000, 100, 300_000),
    callbackAllowPrivate: booleanSetting(env, 'SAOLA_TTS_CALLBACK_ALLOW_PRIVATE', false),
  };
}
