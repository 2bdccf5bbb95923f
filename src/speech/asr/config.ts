import path from 'node:path';
import type { Config } from '../../platform/config.js';
import { choiceSetting, ConfigError, numberSetting, type Env } from '../../platform/settings.js';

/** Settings of speech to text, from `SAOLA_ASR_*` (see docs/asr.md). */
export interface AsrSettings {
  /** A model folder to load; when unset, the model installed with `saola models add asr` (if any). */
  modelDir: string | undefined;
  /** Where `saola models add asr` installs models: `<dataDir>/models/asr`. */
  modelsDir: string;
  /** Largest upload, bytes. */
  maxBytes: number;
  /** Longest audio, seconds. */
  maxSeconds: number;
  /** Longest a request may take (decode + VAD + recognition) before it is canceled (status 2). */
  timeoutMs: number;
  /** Worker threads that run VAD and recognition; each loads the model once. */
  threads: number;
  /** Requests that may wait for a worker before callers get "system busy" (status 9). */
  queue: number;
  /** ONNX intra-op threads per worker. */
  engineThreads: number;
  /** `auto` uses ffmpeg from the PATH and falls back to the npm-shipped binary. */
  ffmpeg: 'auto' | 'native' | 'npm';
  /** Silero speech probability above which a window is voice. */
  vadThreshold: number;
  /** Longest piece of audio handed to the recogniser at once (VAD segments are joined up to this). */
  maxSegmentSeconds: number;
  decodingMethod: 'greedy_search' | 'modified_beam_search';
  /** Language for multilingual models (Whisper). */
  language: string;
  /** Load the model once in a child process before serving it (sherpa-onnx exits its process on a broken model). */
  probeModel: boolean;
}

export function loadAsrSettings(config: Config, env: Env = process.env): AsrSettings {
  const modelDir = env.SAOLA_ASR_MODEL?.trim() ? path.resolve(env.SAOLA_ASR_MODEL.trim()) : undefined;
  const language = env.SAOLA_ASR_LANGUAGE?.trim() || 'vi';
  if (!/^[a-z]{2,3}$/.test(language)) throw new ConfigError(`SAOLA_ASR_LANGUAGE must be a language code like vi, got "${language}"`);
  const probe = choiceSetting(env, 'SAOLA_ASR_PROBE_MODEL', 'true', ['true', 'false', '1', '0']);
  return {
    modelDir,
    modelsDir: path.join(config.dataDir, 'models', 'asr'),
    maxBytes: numberSetting(env, 'SAOLA_ASR_MAX_BYTES', 50 * 1024 * 1024, 1024, 2 * 1024 * 1024 * 1024),
    maxSeconds: numberSetting(env, 'SAOLA_ASR_MAX_SECONDS', 600, 1, 6 * 3600),
    timeoutMs: numberSetting(env, 'SAOLA_ASR_TIMEOUT_MS', 120_000, 1, 6 * 3600 * 1000),
    threads: numberSetting(env, 'SAOLA_ASR_THREADS', Math.min(2, config.poolThreads), 1, 64),
    queue: numberSetting(env, 'SAOLA_ASR_QUEUE', 8, 0, 10_000),
    engineThreads: numberSetting(env, 'SAOLA_ASR_ENGINE_THREADS', 1, 1, 64),
    ffmpeg: choiceSetting(env, 'SAOLA_ASR_FFMPEG', 'auto', ['auto', 'native', 'npm'] as const),
    vadThreshold: numberSetting(env, 'SAOLA_ASR_VAD_THRESHOLD', 0.5, 0.05, 0.95, { integer: false }),
    maxSegmentSeconds: numberSetting(env, 'SAOLA_ASR_MAX_SEGMENT_SECONDS', 20, 2, 30),
    decodingMethod: choiceSetting(env, 'SAOLA_ASR_DECODING', 'greedy_search', ['greedy_search', 'modified_beam_search'] as const),
    language,
    probeModel: probe === 'true' || probe === '1',
  };
}
