import type { PurgeHook } from '../platform/purge.js';
import { serviceDb } from '../platform/db/database.js';
import type { LivenessTables } from './schema.js';

/**
 * An application's own liveness threshold (`saola eval liveness --write APP`)
 * is keyed by scope, not by an app_code column, so the platform's table sweep
 * does not see it.
 */
export const purgeLivenessThreshold: PurgeHook = async (appCode, { store }) => {
  await serviceDb<LivenessTables>(store.db).deleteFrom('liveness_thresholds').where('scope', '=', appCode).execute();
  return { blobs: 0 };
};
