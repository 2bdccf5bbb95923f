import { booleanSetting, integerSetting, type Env } from '../platform/settings.js';
import { DEFAULT_INLINE_CHARS, defaultPredictThreads } from './predictor.js';

/** How long predictions use the model and threshold last read before reading them again (ms). */
export const DEFAULT_RECHECK_MS = 1000;

export interface NluConfig {
  /** How stale a prediction's model and threshold may be when another process changed them (0: read for every prediction). */
  modelRecheckMs: number;
  /** Threads predicting long texts (0: all on the event loop; by default one fewer than the cores, at most 4). */
  predictThreads: number;
  /** Texts up to this many characters are predicted on the event loop (a chat utterance costs the engine less than the hop). */
  predictInlineChars: number;
  /** How often saved predictions past their application's retention are deleted (seconds). */
  historySweepSeconds: number;
  /** Whether each model version gets a cross-validated report, made after it is ready on the training thread. */
  reports: boolean;
}

export function loadNluConfig(env: Env = process.env): NluConfig {
  return {
    modelRecheckMs: integerSetting(env, 'SAOLA_NLU_MODEL_RECHECK_MS', DEFAULT_RECHECK_MS, 0, 60_000),
    predictThreads: integerSetting(env, 'SAOLA_NLU_PREDICT_THREADS', defaultPredictThreads(), 0, 64),
    predictInlineChars: integerSetting(env, 'SAOLA_NLU_PREDICT_INLINE_CHARS', DEFAULT_INLINE_CHARS, 0, 1_000_000),
    historySweepSeconds: integerSetting(env, 'SAOLA_NLU_HISTORY_SWEEP_SECONDS', 3600, 1, 7 * 24 * 3600),
    reports: booleanSetting(env, 'SAOLA_NLU_REPORTS', true),
  };
}
