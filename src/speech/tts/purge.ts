import { serviceDb } from '../../platform/db/database.js';
import type { PurgeHook } from '../../platform/purge.js';
import type { TtsTables } from './schema.js';

/** The synthesised audio of an application (its rows go with the platform's table purge). */
export const purgeTtsAudio: PurgeHook = async (appCode, { store, blobs }) => {
  const db = serviceDb<TtsTables>(store.db);
  const rows = await db.selectFrom('tts_requests').select('blob_key').where('app_code', '=', appCode).execute();
  let deleted = 0;
  for (const { blob_key } of rows) if (blob_key && (await blobs.delete(blob_key))) deleted++;
  return { blobs: deleted };
};
