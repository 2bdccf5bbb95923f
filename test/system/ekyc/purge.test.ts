/**
 * A session's images leave the blob store at retention and when its
 * application is purged, on the filesystem store and on S3 (s3rver). The
 * images are written by the flow itself: a selfie step stores its selfies
 * whatever liveness answers (here 409, not an image, so no engine runs), and
 * a refused side (a photo too small) is kept with its checks for the desk.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { SqlEkycStore, sweepEkyc } from '../../../src/ekyc/index.js';
import { purgeApplication } from '../../../src/platform/purge.js';
import { purgeHooks } from '../../../src/services.js';
import { startS3rverBucket } from '../../../fixtures/servers/s3rver.js';
import { startTestApp, type Tenant, type TestApp } from '../../../fixtures/servers/app.js';

const DAY = 86_400_000;

/** A photo too small for the quality check (QC01), or with no document in it (3): either way a side the flow refuses. */
const tinyPhoto = () => sharp({ create: { width: 320, height: 200, channels: 3, background: { r: 90, g: 120, b: 160 } } }).jpeg().toBuffer();

for (const blobs of ['filesystem', 's3'] as const) {
  describe(`eKYC images purged on the ${blobs} blob store`, () => {
    let app: TestApp;
    let store: SqlEkycStore;
    let s3: Awaited<ReturnType<typeof startS3rverBucket>> | undefined;

    before(async () => {
      s3 = blobs === 's3' ? await startS3rverBucket() : undefined;
      app = await startTestApp({ env: { ...s3?.env } });
      store = SqlEkycStore.over(app.deps.store.db);
    });
    after(async () => {
      await app?.close();
      await s3?.close();
    });

    /** A session of `tenant` with a front and a back stored and one selfie sent: answers its blob keys. */
    async function sessionWithImages(tenant: Tenant): Promise<string[]> {
      const init = await fetch(`${app.url}/session/init`, { method: 'POST', headers: { 'api-key': tenant.apiKey, 'device-type': 'api' } });
      const sid = ((await init.json()) as Record<string, string>)['session-id'];
      const front = `ekyc/${sid}/front-test.jpg`;
      await app.deps.blobs.put(front, Buffer.from('front image'), { contentType: 'image/jpeg' });
      await store.addImage({ id: `img-${sid}`, app_code: tenant.appCode, session_id: sid, kind: 'front', blob_key: front, created_time: new Date().toISOString() });
      const side = JSON.stringify({ kind: 'cccd_12_front', items: [], fields: {}, image: front });
      await store.updateSession(tenant.appCode, sid, { status: 'open' }, { front: side, back: side, document_type: 'idr' });
      const form = new FormData();
      form.append('selfies', new Blob([new Uint8Array(Buffer.from('selfie bytes'))], { type: 'image/jpeg' }), 'selfie.jpg');
      const selfie = await fetch(`${app.url}/face/liveness`, {
        method: 'POST',
        headers: { 'api-key': tenant.apiKey, 'session-id': sid, 'device-type': 'api' },
        body: form,
      });
      assert.equal(((await selfie.json()) as Record<string, string>).code, '409');
      // A refused side: its image is kept for the desk, under the session's prefix.
      const small = new FormData();
      small.append('files', new Blob([new Uint8Array(await tinyPhoto())], { type: 'image/jpeg' }), 'front.jpg');
      const ocr = await fetch(`${app.url}/ocr`, {
        method: 'POST',
        headers: { 'api-key': tenant.apiKey, 'session-id': sid, 'device-type': 'api', 'document-type': 'idr', 'side-type': 'back' },
        body: small,
      });
      const refusal = (await ocr.json()) as Record<string, string>;
      assert.ok(['QC01', '3'].includes(refusal.errorCode), JSON.stringify(refusal));
      const attempts = await store.db.selectFrom('ekyc_attempts').select(['code', 'image_id']).where('session_id', '=', sid).execute();
      assert.equal(attempts.length, 1);
      assert.ok(attempts[0].image_id);
      const keys = (await store.imageKeysOfApp(tenant.appCode)).filter((k) => k.startsWith(`ekyc/${sid}/`));
      assert.equal(keys.length, 3, keys.join());
      for (const key of keys) assert.ok(await app.deps.blobs.stat(key), key);
      return keys;
    }

    it("retention deletes the images of sessions past their application's retention only", async () => {
      const short = await app.newTenant(`short-${blobs}`);
      const put = await fetch(`${app.url}/session/settings`, {
        method: 'PUT',
        headers: { 'api-key': short.apiKey, 'content-type': 'application/json' },
        body: '{"retention_days":1}',
      });
      assert.equal(put.status, 200);
      const gone = await sessionWithImages(short);
      const kept = await sessionWithImages(app);
      const byApp = new Map([[short.appCode, DAY]]);
      assert.equal(await sweepEkyc(store, app.deps.blobs, { defaultMs: 30 * DAY, byApp }, new Date(Date.now() + 2 * DAY)), 1);
      for (const key of gone) assert.equal(await app.deps.blobs.stat(key), undefined, key);
      for (const key of kept) assert.ok(await app.deps.blobs.stat(key), key);
    });

    it("the application's purge deletes its images, not another's", async () => {
      const purged = await app.newTenant(`purged-${blobs}`);
      const theirs = await sessionWithImages(purged);
      const ours = await store.imageKeysOfApp(app.appCode);
      const report = await purgeApplication({ store: app.deps.store, blobs: app.deps.blobs }, purged.appCode, purgeHooks);
      assert.equal(report.blobs, 3);
      for (const key of theirs) assert.equal(await app.deps.blobs.stat(key), undefined, key);
      assert.deepEqual(await store.imageKeysOfApp(purged.appCode), []);
      for (const key of ours) assert.ok(await app.deps.blobs.stat(key), key);
    });
  });
}
