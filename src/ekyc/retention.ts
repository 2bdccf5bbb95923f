import type { BlobStore } from '../platform/blobs/store.js';
import type { PurgeHook } from '../platform/purge.js';
import type { EkycStore } from './store.js';
import { SqlEkycStore } from './store.js';

/** Sessions deleted per pass of the retention sweep (each pass also deletes their images' blobs). */
const SWEEP_BATCH = 200;

/**
 * Deletes sessions older than the retention (their images first, then the rows) and the fraud memory past its
 * window. Answers how many sessions went.
 */
export async function sweepEkyc(store: EkycStore, blobs: BlobStore, retentionMs: number, now: Date = new Date()): Promise<number> {
  const before = new Date(now.getTime() - retentionMs).toISOString();
  let deleted = 0;
  for (;;) {
    const { sessionIds, keys } = await store.expiredImageKeys(before, SWEEP_BATCH);
    if (sessionIds.length === 0) break;
    for (const key of keys) await blobs.delete(key);
    deleted += await store.deleteSessions(sessionIds);
  }
  await store.forgetExpired(now.toISOString());
  return deleted;
}

/** An application's session images (the platform deletes its rows: every eKYC table has `app_code`). */
export const purgeEkycImages: PurgeHook = async (appCode, { store, blobs }) => {
  let count = 0;
  for (const key of await SqlEkycStore.over(store.db).imageKeysOfApp(appCode)) if (await blobs.delete(key)) count++;
  return { blobs: count };
};
