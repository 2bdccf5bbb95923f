/**
 * `saola app delete --purge`: application A has records in every service
 * (every table with an app_code column holds at least one of A's rows, or this
 * suite fails and asks for one), application B as well; the real CLI deletes
 * A while the server runs. Afterwards no table holds a row of A, A's audio
 * files are gone, A's key is refused, and every row and file of B is still
 * there. On SQLite and on PostgreSQL. Usage rows and quotas come through the
 * console API (the operator's password), the liveness threshold through the
 * store `saola eval liveness --write` uses: it is keyed by scope, not app_code,
 * so its purge hook is checked apart.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { sql, type Kysely } from 'kysely';
import { after, before, describe, it } from 'node:test';
import { uuidv7 } from 'uuidv7';
import { appScopedTables } from '../../../src/platform/purge.js';
import type { EkycTables } from '../../../src/ekyc/schema.js';
import { LivenessThresholds } from '../../../src/liveness/store.js';
import { UsageStore, utcDay } from '../../../src/platform/usage/index.js';
import { startTestApp, type Tenant, type TestApp } from '../../../fixtures/servers/app.js';
import { call } from '../../support/http.js';
import { fillDeskTables } from '../../support/ekyc/desk.js';
import { createTestDatabase, type TestDatabase } from '../../../fixtures/servers/postgres.js';
import { runSaola } from '../../../fixtures/servers/saola-process.js';
import { historyCsv, importCsv } from '../../support/credit/support.js';
import { waitForStatus } from '../../support/speech/tts/helpers.js';

const T = Math.floor(Date.parse('2025-03-01T00:00:00Z') / 1000);
const PASSWORD = 'purge suite operator passphrase';
const grace = () => fs.readFileSync(new URL('../../fixtures/face/grace_hopper.jpg', import.meta.url));

/** Records of one application in every service; answers its TTS blob key. */
async function fill(t: TestApp, who: Tenant, phone: string): Promise<string> {
  const nlu = (method: string, p: string, json?: unknown) => call(t.url, method, `/api/v3${p}`, { token: who.token, json });
  const sample = (await nlu('POST', '/sample', { content: 'dữ liệu cần xóa' })).body;
  const entity = (await nlu('POST', '/entity', { label: 'purge_entity', description: 'x', type: 1 })).body;
  const intent = (await nlu('POST', '/intent', { label: 'purge_intent' })).body;
  assert.equal((await nlu('POST', '/intent-sample', { intent_code: intent.code, sample_code: sample.code })).status, 200);
  assert.equal((await nlu('POST', '/entity-sample', { entity_code: entity.code, sample_code: sample.code, value: 'dữ', start: 0, end: 2 })).status, 200);
  // A trained model (a row and a blob), its settings, a prediction kept in the history, a listed keyword.
  assert.equal((await nlu('POST', '/entity/purge_entity/keywords', { value: 'dữ liệu', synonyms: ['data'] })).status, 200);
  await nlu('POST', '/intent-sample/import_intent_samples', [{ intent: 'purge_other', sample: 'câu khác hẳn' }]);
  assert.equal((await nlu('PUT', '/settings', { threshold: 0.4 })).status, 200);
  assert.equal((await nlu('POST', '/train')).status, 200);
  for (let i = 0; i < 600 && (await nlu('GET', '/train/status')).body.status < 2; i++) await new Promise((r) => setTimeout(r, 100));
  const saved = await nlu('POST', '/predict', { content: 'dữ liệu', save_history: true });
  assert.equal(saved.status, 200);
  // The prediction in the inbox (reported), labelled into a sample that records its origin; history settings.
  assert.equal((await nlu('POST', '/inbox/report', { history_id: saved.body.data.history_id })).status, 200);
  assert.equal((await nlu('POST', '/inbox/label', { intent: 'purge_intent', items: [{ history_id: saved.body.data.history_id }] })).status, 200);
  assert.equal((await nlu('PUT', '/inbox/settings', { history_retention_days: 30 })).status, 200);
  const form = new FormData();
  form.append('collection', 'purge');
  form.append('id', 'u1');
  form.append('file', new Blob([new Uint8Array(grace())], { type: 'image/jpeg' }), 'g.jpg');
  const added = await fetch(`${t.url}/dmp/facesearch/v2/add`, { method: 'POST', headers: { api_key: who.apiKey }, body: form });
  assert.equal(((await added.json()) as { code: string }).code, '200');
  const tts = await fetch(`${t.url}/hmi/tts/v5`, { method: 'POST', headers: { api_key: who.apiKey }, body: 'Tệp âm thanh cần xóa.' });
  const requestId = ((await tts.json()) as { request_id: string }).request_id;
  assert.equal((await waitForStatus(t.url, who.apiKey, requestId)).status, 'done');
  assert.equal((await importCsv(t.deps, who.appCode, historyCsv(phone, T))).rejected, 0);
  const db = t.deps.store.db as unknown as import('kysely').Kysely<any>;
  await db.insertInto('reader_app_settings').values({ app_code: who.appCode, features: 1, updated_time: new Date().toISOString() }).execute();
  // A face reindex in progress holds A's re-embedded faces until its collection switches.
  const face = await db.selectFrom('face_embeddings').select(['id', 'collection_id', 'embedding']).where('app_code', '=', who.appCode).executeTakeFirstOrThrow();
  await db
    .insertInto('face_staged_embeddings')
    .values({
      face_id: face.id,
      app_code: who.appCode,
      collection_id: face.collection_id,
      model: 'another-recogniser',
      embedding: face.embedding,
      created_at: new Date().toISOString(),
    })
    .execute();
  // An import in progress (a killed import's leftovers look the same) holds A's rows in the staging table.
  await db
    .insertInto('credit_import_staging')
    .values({
      id: uuidv7(),
      app_code: who.appCode,
      event_key: 'k',
      phone: phone,
      event_type: 'topup',
      occurred_at: new Date(T * 1000).toISOString(),
      amount: 1,
      days_late: null,
      import_id: uuidv7(),
      created_time: new Date().toISOString(),
    })
    .execute();
  await db
    .insertInto('credit_models')
    .values({
      id: uuidv7(),
      app_code: who.appCode,
      source: 'beta',
      dltype: 1,
      version: 1,
      model: '{}',
      metrics: 'null',
      train_rows: 0,
      created_time: new Date().toISOString(),
    })
    .execute();
  // An eKYC session with a stored image, a fraud-memory entry, a decision, a webhook and a delivery.
  const init = await call(t.url, 'POST', '/session/init', { headers: { api_key: who.apiKey, 'device-type': 'api' }, json: {} });
  assert.equal(init.status, 200, init.text);
  const sessionId = init.body['session-id'] as string;
  const ekycKey = `ekyc/${sessionId}/front-purge.jpg`;
  await t.deps.blobs.put(ekycKey, Buffer.from('front image'), { contentType: 'image/jpeg' });
  const ekyc = db as unknown as Kysely<EkycTables>;
  const now = new Date().toISOString();
  await ekyc
    .insertInto('ekyc_images')
    .values({ id: uuidv7(), app_code: who.appCode, session_id: sessionId, kind: 'front', blob_key: ekycKey, created_time: now })
    .execute();
  await ekyc
    .insertInto('ekyc_fraud_memory')
    .values({ id: uuidv7(), app_code: who.appCode, session_id: sessionId, id_number: `0${phone}`, face: null, reason: 'FC01', created_time: now, expires_time: now })
    .execute();
  ekycImages[who.appCode] = ekycKey;
  // A refused side kept for the desk: an image of the session's too.
  ekycRefused[who.appCode] = await fillDeskTables(t, who.appCode, sessionId);
  // The application's own eKYC flow settings and browser origins.
  const settings = await call(t.url, 'PUT', '/session/settings', {
    headers: { 'api-key': who.apiKey },
    json: { retries: { ios: 2 }, allowed_origins: [`https://${who.appCode}.example`] },
  });
  assert.equal(settings.status, 200, JSON.stringify(settings.body));
  // The operator's side: a quota, and the usage of the calls above (reading the report writes the pending counts).
  const admin = { authorization: `Bearer ${PASSWORD}` };
  const quota = await call(t.url, 'PUT', `/console/api/apps/${who.appCode}/quotas`, { headers: admin, json: { service: 'tts', per_minute: 100, per_day: 1000 } });
  assert.equal(quota.status, 200, quota.text);
  const usage = await call(t.url, 'GET', `/console/api/apps/${who.appCode}/usage`, { headers: admin });
  assert.equal(usage.status, 200, usage.text);
  assert.ok(usage.body.total > 0, usage.text.slice(0, 300));
  await new LivenessThresholds(t.deps.store.db).set(who.appCode, 0.61);
  const row = await db.selectFrom('tts_requests').select('blob_key').where('id', '=', requestId).executeTakeFirstOrThrow();
  return row.blob_key as string;
}

/** Each application's stored eKYC image. */
const ekycImages: Record<string, string> = {};
/** Each application's refused eKYC side's image. */
const ekycRefused: Record<string, string> = {};

async function counts(t: TestApp, appCode: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of await appScopedTables(t.deps.store)) {
    const r = await sql<{ n: string | number }>`select count(*) as n from ${sql.table(table)} where app_code = ${appCode}`.execute(t.deps.store.db);
    out[table] = Number(r.rows[0].n);
  }
  return out;
}

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`saola app delete --purge on ${engine}`, () => {
    let t: TestApp;
    let pg: TestDatabase | undefined;
    let b: Tenant;
    const blobKeys: { a: string; b: string } = { a: '', b: '' };
    const cli = (...args: string[]) => runSaola(args, { env: { SAOLA_DATA_DIR: t.dataDir, ...(pg ? { SAOLA_DATABASE_URL: pg.url } : {}) } });

    before(async () => {
      if (engine === 'postgres') pg = await createTestDatabase();
      t = await startTestApp({ databaseUrl: pg?.url, env: { SAOLA_ADMIN_PASSWORD: PASSWORD } });
      b = await t.newTenant('purge-b');
      blobKeys.a = await fill(t, t, '84911111111');
      blobKeys.b = await fill(t, b, '84922222222');
    });
    after(async () => {
      await t?.close();
      await pg?.drop();
    });

    it('without --purge it refuses and deletes nothing', async () => {
      const before = await counts(t, t.appCode);
      await assert.rejects(cli('app', 'delete', '--app', t.appCode), (err: { code?: number; stderr?: string }) => err.code === 2 && /--purge/.test(err.stderr ?? ''));
      assert.deepEqual(await counts(t, t.appCode), before);
    });

    it("deletes every row and file of A in every service, and nothing of B's", async () => {
      const a = await counts(t, t.appCode);
      const empty = Object.entries(a)
        .filter(([, n]) => n === 0)
        .map(([table]) => table);
      assert.deepEqual(empty, [], 'give application A a row in each of these tables in fill() so the purge is tested on it');
      const bBefore = await counts(t, b.appCode);
      const thresholds = new LivenessThresholds(t.deps.store.db);
      const scopes = async () => (await thresholds.list()).map((r) => r.scope);
      assert.ok((await scopes()).includes(t.appCode), "A's liveness threshold exists before");
      assert.ok(await t.deps.blobs.stat(blobKeys.a), "A's audio exists before");

      const { stdout } = await cli('app', 'delete', '--app', t.appCode, '--purge', '--json');
      const report = JSON.parse(stdout) as { deleted: boolean; rows: Record<string, number>; blobs: number };
      assert.equal(report.deleted, true);
      assert.equal(report.blobs, 5, "the audio file, the NLU model, the enrolled face's aligned crop, the eKYC session's image and its refused side's");
      // Each table was visited (a child's rows may already have gone with its parent's, by cascade).
      for (const table of Object.keys(a)) assert.ok(table in report.rows, table);

      // The serving process may still hold counts of A's last calls (written every 5 s) when the CLI purges:
      // a batch written after the purge leaves no row of A, and still writes B's.
      const late = (appCode: string) => ({
        app_code: appCode,
        day: utcDay(),
        service: 'nlu',
        endpoint: 'GET /late',
        status: 200,
        count: 1,
        latencySumMs: 1,
        latencyMaxMs: 1,
        buckets: [1],
      });
      await new UsageStore(t.deps.store).add([late(t.appCode), late(b.appCode)]);

      const after = await counts(t, t.appCode);
      assert.ok(
        Object.values(after).every((n) => n === 0),
        JSON.stringify(after),
      );
      assert.equal(await t.deps.blobs.stat(blobKeys.a), undefined, "A's audio file is gone");
      assert.equal(await t.deps.blobs.stat(ekycImages[t.appCode]), undefined, "A's eKYC image is gone");
      assert.equal(await t.deps.blobs.stat(ekycRefused[t.appCode]), undefined, "A's refused eKYC side's image is gone");
      const app = await t.deps.store.db.selectFrom('applications').select('code').where('code', '=', t.appCode).executeTakeFirst();
      assert.equal(app, undefined);
      assert.equal((await call(t.url, 'GET', '/hmi/tts/v5/status/x', { headers: { api_key: t.apiKey } })).status, 401);
      assert.equal((await call(t.url, 'GET', '/api/v3/sample', { token: t.token })).status, 401);

      assert.ok(!(await scopes()).includes(t.appCode), "A's liveness threshold (keyed by scope) is gone");
      assert.ok((await scopes()).includes(b.appCode), "B's liveness threshold stays");
      assert.deepEqual(await counts(t, b.appCode), { ...bBefore, usage_daily: bBefore.usage_daily + 1 }, "B's rows (and B's late usage row)");
      assert.ok(await t.deps.blobs.stat(blobKeys.b), "B's audio file");
      assert.ok(await t.deps.blobs.stat(ekycImages[b.appCode]), "B's eKYC image");
      assert.ok(await t.deps.blobs.stat(ekycRefused[b.appCode]), "B's refused eKYC side's image");
      assert.equal((await call(t.url, 'GET', '/api/v3/sample', { token: b.token })).body.length, 3, 'two typed in, one labelled from the inbox');
      assert.equal((await call(t.url, 'POST', '/api/v3/predict', { token: b.token, json: { content: 'dữ liệu' } })).status, 200, "B's model stays");

      // Run again (an interrupted purge is finished by running it again): the application is gone now.
      await assert.rejects(cli('app', 'delete', '--app', t.appCode, '--purge'), (err: { code?: number }) => err.code === 2);
    });
  });
}
