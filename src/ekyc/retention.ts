import type { BlobStore } from '../platform/blobs/store.js';
import type { PurgeHook } from '../platform/purge.js';
import type { EkycStore, RetentionScope } from './store.js';
import { SqlEkycStore } from './store.js';

/** Sessions deleted per pass of the retention sweep (each pass also deletes their images' blobs). */
const SWEEP_BATCH = 200;

/** The retention in force: the deployment's, and the applications that override it (settings.ts). */
export interface Retention {
  defaultMs: number;
  byApp: ReadonlyMap<string, number>;
}

/**
 * Deletes sessions older than their application's retention (their images first, then the rows) and the fraud
 * memory past its window. Answers how many sessions went.
 */
export async function sweepEkyc(store: EkycStore, blobs: BlobStore, retention: Retention, now: Date = new Date()): Promise<number> {
  const cut = (ms: number) => new Date(now.getTime() - ms).toISOString();
  let deleted = 0;
  for (const [app, ms] of retention.byApp) deleted += await sweepScope(store, blobs, cut(ms), { app });
  deleted += await sweepScope(store, blobs, cut(retention.defaultMs), { exceptApps: [...retention.byApp.keys()] });
  await store.forgetExpired(now.toISOString());
  return deleted;
}

async function sweepScope(store: EkycStore, blobs: BlobStore, before: string, scope: RetentionScope): Promise<number> {
  let deleted = 0;
  for (;;) {
    const { sessionIds, keys } = await store.expiredImageKeys(before, SWEEP_BATCH, scope);
    if (sessionIds.length === 0) return deleted;
    for (const key of keys) await blobs.delete(key);
    deleted += await store.deleteSessions(sessionIds);
  }
}

/** An application's session images (the platform deletes its rows: every eKYC table has `app_code`). */
export const purgeEkycImages: PurgeHook = async (appCode, { store, blobs }) => {
  let count = 0;
  for (const key of await SqlEkycStore.over(store.db).imageKeysOfApp(appCode)) if (await blobs.delete(key)) count++;
  return { blobs: count };
};
