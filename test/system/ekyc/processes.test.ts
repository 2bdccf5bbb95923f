/**
 * eKYC sessions across API processes and a restart, on PostgreSQL, Redis and
 * S3 (s3rver): two `saola serve` processes migrated once by `saola migrate`;
 * settings changed through one apply on the other; one session's selfie
 * attempts counted across both; the ended session refused by a process
 * started after the others stopped. No engine runs: the selfies are not
 * images (liveness answers 409 and the attempt counts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SqlEkycStore } from '../../../src/ekyc/index.js';
import { openStore, type Store } from '../../../src/platform/db/database.js';
import { startSharedStores, type SharedStores } from '../../support/platform/shared-stores.js';
import { runSaola, startSaola, type SaolaProcess } from '../../../fixtures/servers/saola-process.js';

describe('eKYC sessions across two API processes and a restart (PostgreSQL, Redis, S3)', () => {
  let stores: SharedStores;
  let env: Record<string, string>;
  let store: Store;
  let apiKey: string;
  let appCode: string;
  const dataDirs: string[] = [];
  const processes: SaolaProcess[] = [];
  const dataDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-ekyc-processes-'));
    dataDirs.push(dir);
    return dir;
  };
  const serve = async (name: string) => {
    const p = await startSaola({ name, cleanEnv: true, dataDir: dataDir(), env: { ...env, SAOLA_RUN_WORKERS: 'false' } });
    processes.push(p);
    return p;
  };

  before(async () => {
    stores = await startSharedStores();
    env = {
      ...stores.env,
      SAOLA_AUTH_CACHE_SECONDS: '0',
      SAOLA_POOL_THREADS: '1',
      SAOLA_FACE_THREADS: '1',
      SAOLA_LOG_LEVEL: 'warn',
    };
    const cli = async (...args: string[]) => (await runSaola(args, { cleanEnv: true, env: { ...env, SAOLA_DATA_DIR: dataDir() } })).stdout;
    assert.equal(JSON.parse(await cli('migrate', '--json')).migrated, true);
    ({ api_key: apiKey, app_code: appCode } = JSON.parse(await cli('app', 'create', '--name', 'ekyc-processes', '--json')));
    store = openStore(stores.databaseUrl);
  });

  after(async () => {
    await Promise.all(processes.map((p) => p.stop(10_000)));
    await store?.close();
    await stores?.close();
    for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  test("settings and one session's attempts across both processes; a later process refuses the ended session", async () => {
    const [a, b] = await Promise.all([serve('api-a'), serve('api-b')]);
    const json = (res: Response) => res.json() as Promise<Record<string, any>>;
    const init = (url: string) => fetch(`${url}/session/init`, { method: 'POST', headers: { 'api-key': apiKey, 'device-type': 'android' } }).then(json);
    const selfie = (url: string, sid: string) => {
      const form = new FormData();
      form.append('selfies', new Blob([new Uint8Array(Buffer.from('not an image'))], { type: 'image/jpeg' }), 'selfie.jpg');
      return fetch(`${url}/face/liveness`, { method: 'POST', headers: { 'api-key': apiKey, 'session-id': sid, 'device-type': 'android' }, body: form }).then(
        async (res) => ({ status: res.status, body: await json(res) }),
      );
    };

    // Two attempts, set through B, are what A answers next.
    const put = await fetch(`${b.url}/session/settings`, {
      method: 'PUT',
      headers: { 'api-key': apiKey, 'content-type': 'application/json' },
      body: '{"retries":{"android":2}}',
    });
    assert.equal(put.status, 200);
    const started = await init(a.url);
    assert.equal(started.sdk_config.limit, 2);
    const sid = started['session-id'] as string;

    // Before a document: B knows A's session (E101, not "uuid must be provided").
    assert.deepEqual((await selfie(b.url, sid)).body, { code: 'E101', message: 'Front picture must be taken first' });
    // The sides as the flow stores them (the engines are not what this test is about); the portrait in S3.
    const ekyc = SqlEkycStore.over(store.db);
    const front = `ekyc/${sid}/front-test.jpg`;
    const seen = await fetch(`${a.url}/session/settings`, { headers: { 'api-key': apiKey } });
    assert.deepEqual((await json(seen)).overrides, { retries: { android: 2 } });
    const side = JSON.stringify({ kind: 'cccd_12_front', items: [], fields: {}, image: front });
    assert.equal(await ekyc.updateSession(appCode, sid, { status: 'open' }, { front: side, back: side, document_type: 'idr' }), true);
    await ekyc.addImage({ id: `img-${sid}`, app_code: appCode, session_id: sid, kind: 'front', blob_key: front, created_time: new Date().toISOString() });
    const { S3Client, PutObjectCommand } = await import('@aws-sdk/client-s3');
    const client = new S3Client({ endpoint: stores.s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    await client.send(new PutObjectCommand({ Bucket: stores.s3.bucket, Key: front, Body: Buffer.from('portrait') }));
    client.destroy();

    const first = await selfie(a.url, sid);
    assert.deepEqual([first.body.code, first.body.is_complete_session], ['409', false], JSON.stringify(first.body));
    const second = await selfie(b.url, sid);
    assert.deepEqual([second.body.code, second.body.is_complete_session], ['409', true], JSON.stringify(second.body));
    assert.equal((await ekyc.session(appCode, sid))!.attempts, 2);
    // The selfies of both processes are in the shared blob store's listing of the session.
    assert.equal((await ekyc.imageKeysOfApp(appCode)).filter((k) => k.startsWith(`ekyc/${sid}/selfie-`)).length, 2);

    // Both stop; a process started afterwards answers the session as ended, and starts new ones with the settings.
    await Promise.all([a.stop(10_000), b.stop(10_000)]);
    const c = await serve('api-c');
    assert.deepEqual(await selfie(c.url, sid), { status: 403, body: { code: '403', message: 'Session expired' } });
    assert.equal((await init(c.url)).sdk_config.limit, 2);
  });
});
