/**
 * `saola migrate-store`: an embedded installation populated through the real
 * API and CLIs (a row in every table of every service, TTS audio in the blob
 * folder) is copied to PostgreSQL and S3 (s3rver), verified, copied again
 * after a simulated interruption (resumed), refused when the target differs,
 * and finally served by a server running on the server engines.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { creditCommand } from '../../../src/credit/cli.js';
import { migrations } from '../../../src/services.js';
import { loadConfig, type Config } from '../../../src/platform/config.js';
import { openStore } from '../../../src/platform/db/database.js';
import { fsBlobKeys, migrateStoreCommand } from '../../../src/platform/db/migrate-store.js';
import { readerFeaturesCommand } from '../../../src/reader/cli.js';
import { LivenessThresholds } from '../../../src/liveness/store.js';
import { quotaCommand } from '../../../src/usage-cli.js';
import { startTestApp, type TestApp, type Tenant } from '../../../fixtures/servers/app.js';
import { createTestDatabase, type TestDatabase } from '../../../fixtures/servers/postgres.js';
import { startS3rverBucket } from '../../../fixtures/servers/s3rver.js';
import { eventually } from '../../support/wait.js';
import { fillDeskTables } from '../../support/ekyc/desk.js';

const FIXTURES = new URL('../../fixtures/face/', import.meta.url);

async function run(command: typeof migrateStoreCommand, config: Config, args: string[]) {
  let out = '';
  let err = '';
  const code = await command({ config, migrations, args, stdout: (t) => (out += t), stderr: (t) => (err += t) });
  return { code, out, err };
}

async function api(base: string, method: string, route: string, token: string, json?: unknown) {
  const res = await fetch(`${base}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function faceForm(base: string, apiKey: string, route: string, parts: [string, string | Buffer][]) {
  const form = new FormData();
  for (const [field, value] of parts) {
    if (typeof value === 'string') form.append(field, value);
    else form.append(field, new Blob([new Uint8Array(value)], { type: 'image/jpeg' }), 'photo.jpg');
  }
  const res = await fetch(`${base}/dmp/facesearch/v2/${route}`, { method: 'POST', headers: { api_key: apiKey }, body: form });
  return (await res.json()) as any;
}

async function tableCounts(databaseUrl: string): Promise<Record<string, number>> {
  const store = openStore(databaseUrl);
  try {
    const db = store.db as any;
    const names =
      store.dialect === 'sqlite'
        ? (await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(db)).rows
        : (await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(db)).rows;
    const counts: Record<string, number> = {};
    for (const { name } of names) {
      if (name.startsWith('kysely_')) continue;
      counts[name] = Number((await sql<{ n: number }>`select count(*) as n from ${sql.table(name)}`.execute(db)).rows[0].n);
    }
    return counts;
  } finally {
    await store.close();
  }
}

describe('saola migrate-store: embedded -> PostgreSQL + S3', () => {
  let dir: string;
  let config: Config;
  let tenant: Tenant;
  let target: TestDatabase;
  let s3: Awaited<ReturnType<typeof startS3rverBucket>>;
  let ttsLink: string;
  let sampleCode: string;
  const savedEnv: Record<string, string | undefined> = {};

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-migrate-store-'));
    config = loadConfig({ SAOLA_DATA_DIR: dir });
    // The embedded installation, filled the way users fill it.
    const app: TestApp = await startTestApp({ dataDir: dir, env: { SAOLA_ADMIN_PASSWORD: 'migrate-store operator' } });
    try {
      tenant = await app.newTenant('migrating');
      const { url } = app;
      const sample = await api(url, 'POST', '/api/v3/sample', tenant.token, { content: 'tôi muốn bay đến Hà Nội ngày mai' });
      sampleCode = sample.body.code;
      const intent = await api(url, 'POST', '/api/v3/intent', tenant.token, { label: 'book_flight', description: 'đặt vé', type: 1 });
      const entity = await api(url, 'POST', '/api/v3/entity', tenant.token, { label: 'destination', description: 'nơi đến', type: 1 });
      assert.equal((await api(url, 'POST', '/api/v3/intent-sample', tenant.token, { intent_code: intent.body.code, sample_code: sampleCode })).status, 200);
      const tag = await api(url, 'POST', '/api/v3/entity-sample', tenant.token, {
        entity_code: entity.body.code,
        sample_code: sampleCode,
        value: 'Hà Nội',
        start: 17,
        end: 23,
      });
      assert.equal(tag.status, 200, JSON.stringify(tag.body));
      // A trained model (two intents with samples), a saved prediction, a threshold and a listed value.
      const other = await api(url, 'POST', '/api/v3/sample', tenant.token, { content: 'hủy vé của tôi' });
      const cancel = await api(url, 'POST', '/api/v3/intent', tenant.token, { label: 'cancel_ticket', description: 'hủy vé', type: 1 });
      assert.equal((await api(url, 'POST', '/api/v3/intent-sample', tenant.token, { intent_code: cancel.body.code, sample_code: other.body.code })).status, 200);
      assert.equal((await api(url, 'POST', '/api/v3/train', tenant.token)).status, 200);
      await eventually(async () => (await api(url, 'GET', '/api/v3/train/status', tenant.token)).body.status === 2, { timeoutMs: 60_000, intervalMs: 200 });
      const saved = await api(url, 'POST', '/api/v3/predict', tenant.token, { content: 'đặt vé đi Hà Nội', save_history: true });
      assert.equal(saved.status, 200);
      // The prediction reported into the inbox and labelled (a sample with its origin), the history's settings.
      const historyId = saved.body.data.history_id;
      assert.equal((await api(url, 'POST', '/api/v3/inbox/report', tenant.token, { history_id: historyId })).status, 200);
      assert.equal((await api(url, 'POST', '/api/v3/inbox/label', tenant.token, { intent: 'cancel_ticket', items: [{ history_id: historyId }] })).status, 200);
      assert.equal((await api(url, 'PUT', '/api/v3/inbox/settings', tenant.token, { history_retention_days: 30 })).status, 200);
      assert.equal((await api(url, 'PUT', '/api/v3/settings', tenant.token, { threshold: 0.4 })).status, 200);
      assert.equal((await api(url, 'POST', '/api/v3/entity/destination/keywords', tenant.token, { value: 'Hà Nội', synonyms: ['ha noi'] })).status, 200);

      const grace = fs.readFileSync(new URL('grace_hopper.jpg', FIXTURES));
      assert.equal(
        (
          await faceForm(url, tenant.apiKey, 'create', [
            ['collection', 'staff'],
            ['id', 'u1'],
            ['name', 'Grace'],
          ])
        ).code,
        '200',
      );
      assert.equal(
        (
          await faceForm(url, tenant.apiKey, 'add', [
            ['collection', 'staff'],
            ['id', 'u1'],
            ['file', grace],
          ])
        ).code,
        '200',
      );

      const tts = await fetch(`${url}/hmi/tts/v5`, { method: 'POST', headers: { api_key: tenant.apiKey }, body: 'Xin chào, dữ liệu này sẽ chuyển sang máy chủ.' });
      const accepted = (await tts.json()) as { async: string; request_id: string };
      ttsLink = new URL(accepted.async).pathname;
      let status: any;
      await eventually(
        async () => {
          status = await (await fetch(`${url}/hmi/tts/v5/status/${accepted.request_id}`, { headers: { api_key: tenant.apiKey } })).json();
          return status.status === 'done';
        },
        { timeoutMs: 30_000, what: () => `TTS did not finish: ${JSON.stringify(status)}` },
      );

      const credit = async (...args: string[]) => {
        const r = await run(creditCommand, config, args);
        assert.equal(r.code, 0, r.out + r.err);
      };
      const file = (name: string) => path.join(dir, name);
      await credit('synth', '--people', '400', '--seed', '5', '--events', file('events.csv'), '--outcomes', file('outcomes.csv'));
      await credit('import', 'alpha', file('events.csv'), '--app', 'migrating');
      await credit('train', 'alpha', '--outcomes', file('outcomes.csv'), '--app', 'migrating');
      const reader = await run(readerFeaturesCommand, config, ['migrating', 'on']);
      assert.equal(reader.code, 0, reader.out + reader.err);
      const quota = await run(quotaCommand, config, ['set', '--app', 'migrating', '--service', 'credit', '--per-minute', '100']);
      assert.equal(quota.code, 0, quota.out + quota.err);
      // A console session (the operator signed in) and an application's liveness threshold (`saola eval liveness --write`).
      const login = await fetch(`${url}/console/api/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ password: 'migrate-store operator' }),
      });
      assert.equal(login.status, 200);
      await new LivenessThresholds(app.deps.store.db).set(tenant.appCode, 0.7);
      // A credit import in progress (a killed import's leftovers look the same) holds rows in the staging table.
      const now = new Date().toISOString();
      await (app.deps.store.db as unknown as import('kysely').Kysely<any>)
        .insertInto('credit_import_staging')
        .values({
          id: 'staged-1',
          app_code: tenant.appCode,
          event_key: 'k',
          phone: '84911111111',
          event_type: 'topup',
          occurred_at: now,
          amount: 1,
          days_late: null,
          import_id: 'import-in-progress',
          created_time: now,
        })
        .execute();
      // A face reindex in progress, a calibrated similarity map, an eKYC session with an image, a fraud-memory entry, the review desk's rows and the application's flow settings and origins.
      const db = app.deps.store.db as unknown as import('kysely').Kysely<any>;
      const face = await db.selectFrom('face_embeddings').select(['id', 'collection_id', 'embedding']).executeTakeFirstOrThrow();
      await db
        .insertInto('face_staged_embeddings')
        .values({ face_id: face.id, app_code: tenant.appCode, collection_id: face.collection_id, model: 'operator-model', embedding: face.embedding, created_at: now })
        .execute();
      await db.insertInto('face_similarity_maps').values({ model: 'operator-model', version: 'v1', knots: '[[0,0],[1,100]]', report: '{}', fitted_at: now }).execute();
      const init = await fetch(`${url}/session/init`, {
        method: 'POST',
        headers: { api_key: tenant.apiKey, 'device-type': 'api', 'content-type': 'application/json' },
        body: '{}',
      });
      const sessionId = ((await init.json()) as Record<string, string>)['session-id'];
      const ekycKey = `ekyc/${sessionId}/front-migrated.jpg`;
      await app.deps.blobs.put(ekycKey, grace, { contentType: 'image/jpeg' });
      await db
        .insertInto('ekyc_images')
        .values({ id: 'ekyc-image-1', app_code: tenant.appCode, session_id: sessionId, kind: 'front', blob_key: ekycKey, created_time: now })
        .execute();
      await db
        .insertInto('ekyc_fraud_memory')
        .values({
          id: 'ekyc-fraud-1',
          app_code: tenant.appCode,
          session_id: sessionId,
          id_number: '001099000001',
          face: null,
          reason: 'FC01',
          created_time: now,
          expires_time: now,
        })
        .execute();
      await fillDeskTables(app, tenant.appCode, sessionId);
      // The application's own flow settings and browser origins (ekyc_app_settings, app_cors_origins).
      const settings = await fetch(`${url}/session/settings`, {
        method: 'PUT',
        headers: { 'api-key': tenant.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ retries: { ios: 2 }, allowed_origins: ['https://shop.example'] }),
      });
      assert.equal(settings.status, 200, await settings.text());
    } finally {
      await app.close();
    }

    target = await createTestDatabase();
    s3 = await startS3rverBucket();
    for (const [k, v] of Object.entries(s3.env)) {
      savedEnv[k] = process.env[k];
      process.env[k] = v;
    }
  });

  after(async () => {
    for (const [k, v] of Object.entries(savedEnv)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    await s3?.close();
    await target?.drop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('every table of every service is copied and verified, and the blobs too', async () => {
    const source = await tableCounts(config.databaseUrl);
    const empty = Object.entries(source)
      .filter(([, n]) => n === 0)
      .map(([t]) => t);
    assert.deepEqual(empty, [], 'the populated store has a row in every table');
    const blobKeys = await fsBlobKeys(path.join(dir, 'blobs'));
    assert.ok(
      blobKeys.some((k) => k.startsWith('tts/')),
      blobKeys.join(', '),
    );

    const first = await run(migrateStoreCommand, config, ['--to', target.url, '--blobs', `s3://${s3.bucket}`, '--json']);
    assert.equal(first.code, 0, first.out + first.err);
    const report = JSON.parse(first.out);
    assert.equal(report.ok, true);
    assert.deepEqual(report.tables.map((t: any) => t.table).sort(), Object.keys(source).sort());
    for (const t of report.tables) {
      assert.equal(t.inserted, source[t.table], t.table);
      assert.equal(t.targetRows, source[t.table], t.table);
      assert.equal(t.targetChecksum, t.sourceChecksum, t.table);
    }
    assert.equal(report.blobs.files, blobKeys.length);
    assert.equal(report.blobs.copied, blobKeys.length);
    assert.deepEqual(report.blobs.mismatched, []);
    assert.deepEqual(await tableCounts(target.url), source);
  });

  test('an interrupted copy is resumed: only what is missing is copied again', async () => {
    const client = new pg.Client({ connectionString: target.url });
    await client.connect();
    try {
      // What a copy stopped halfway leaves: child rows and a blob missing.
      const faces = await client.query('delete from face_embeddings');
      const events = await client.query(`delete from credit_alpha_events where ctid in (select ctid from credit_alpha_events limit 100)`);
      assert.ok((faces.rowCount ?? 0) > 0 && events.rowCount === 100);
      const blobKey = (await fsBlobKeys(path.join(dir, 'blobs')))[0];
      const { S3BlobStore } = await import('../../../src/platform/blobs/s3-store.js');
      const store = new S3BlobStore(loadConfig(process.env).s3!);
      assert.equal(await store.delete(blobKey), true);
      await store.close();

      const again = await run(migrateStoreCommand, config, ['--to', target.url, '--blobs', `s3://${s3.bucket}`, '--json']);
      assert.equal(again.code, 0, again.out + again.err);
      const report = JSON.parse(again.out);
      const inserted = Object.fromEntries(report.tables.filter((t: any) => t.inserted > 0).map((t: any) => [t.table, t.inserted]));
      // A staged embedding goes with its face (on delete cascade), so it is copied again too.
      assert.deepEqual(inserted, { face_embeddings: faces.rowCount, face_staged_embeddings: 1, credit_alpha_events: 100 });
      assert.ok(report.tables.every((t: any) => t.ok));
      assert.equal(report.blobs.copied, 1);
      assert.equal(report.blobs.ok, true);

      // A target that was changed behind the copy's back is reported, not overwritten.
      await client.query(`update nlu_samples set content = 'changed in the target' where code = $1`, [sampleCode]);
      const differs = await run(migrateStoreCommand, config, ['--to', target.url]);
      assert.equal(differs.code, 1);
      assert.match(differs.out, /DIFFERS\s+nlu_samples/);
      assert.match(differs.out, /ok\s+face_embeddings/);
      assert.match(differs.out, /blobs were not copied/);
      await client.query(`update nlu_samples set content = 'tôi muốn bay đến Hà Nội ngày mai' where code = $1`, [sampleCode]);
    } finally {
      await client.end();
    }
  });

  test('bad usage is refused with a message (exit code 2 from the CLI)', async () => {
    await assert.rejects(run(migrateStoreCommand, config, []), /--to postgres/);
    await assert.rejects(run(migrateStoreCommand, config, ['--to', 'mysql://x']), /--to postgres/);
    await assert.rejects(run(migrateStoreCommand, config, ['--to', target.url, '--blobs', 'gs://bucket']), /s3:\/\/BUCKET/);
    const onServer = loadConfig({ SAOLA_DATA_DIR: dir, SAOLA_DATABASE_URL: target.url });
    await assert.rejects(run(migrateStoreCommand, onServer, ['--to', target.url]), /already points at a server database/);
    const nowhere = loadConfig({ SAOLA_DATA_DIR: path.join(dir, 'nothing-here') });
    await assert.rejects(run(migrateStoreCommand, nowhere, ['--to', target.url]), /no embedded store/);
  });

  test('a server on PostgreSQL + S3 serves the migrated installation', async () => {
    const emptyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-migrated-'));
    // An existing dataDir: a "restart", so no new application is created.
    const app = await startTestApp({ databaseUrl: target.url, env: s3.env, dataDir: emptyDir });
    try {
      const sample = await api(app.url, 'GET', `/api/v3/sample/${sampleCode}`, tenant.token);
      assert.equal(sample.status, 200);
      assert.equal(sample.body.content, 'tôi muốn bay đến Hà Nội ngày mai');
      const grace = fs.readFileSync(new URL('grace_hopper.jpg', FIXTURES));
      const found = await faceForm(app.url, tenant.apiKey, 'search', [
        ['collection', 'staff'],
        ['file', grace],
      ]);
      assert.equal(found.data?.id, 'u1');
      const audio = await fetch(`${app.url}${ttsLink}`);
      assert.equal(audio.status, 200);
      const original = fs.readFileSync(path.join(dir, 'blobs', ...(await fsBlobKeys(path.join(dir, 'blobs'))).find((k) => k.startsWith('tts/'))!.split('/')));
      assert.deepEqual(Buffer.from(await audio.arrayBuffer()), original);
    } finally {
      await app.close();
      fs.rmSync(emptyDir, { recursive: true, force: true });
    }
  });
});
