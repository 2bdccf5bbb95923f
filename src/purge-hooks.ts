import type { PurgeHook } from './platform/purge.js';
import { purgeTtsAudio } from './speech/tts/purge.js';
import { purgeLivenessThreshold } from './face/liveness/purge.js';
import { purgeNluModels } from './nlu/index.js';

/**
 * Each service's part of `saola app delete --purge` beyond its tables (which
 * the platform finds by their app_code column). Only TTS keeps per-application
 * blobs (and liveness its per-application threshold, keyed by scope): reader face crops are not tied to an application and go after 24 h;
 * face embeddings, credit data and NLU records are rows.
 */
export const purgeHooks: readonly PurgeHook[] = [purgeTtsAudio, purgeLivenessThreshold, purgeNluModels];
