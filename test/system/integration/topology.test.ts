/**
 * The scale-out deployment end to end (issue 16): 2 API processes
 * (`saola serve`, SAOLA_RUN_WORKERS=false) and 2 `saola worker` processes,
 * each a real child process on 127.0.0.1 with its own port and data folder,
 * sharing PostgreSQL, BullMQ on Redis and S3 (s3rver in this process). The
 * schema is migrated once by `saola migrate` before any of them starts, as
 * docs/deploy.md says. Requests alternate between the two API ports:
 *
 * - NLU: what one port writes the other reads, updates and deletes;
 * - face search: adds, deletes and re-adds on one port are seen by a search on
 *   the other at once, though both keep an in-memory index of the collection;
 * - TTS: accepted on one port, synthesised by either worker, the audio served
 *   by both ports;
 * - a revoked API key stops working on both ports within the auth cache time;
 * - a worker killed with SIGKILL mid-synthesis: the other worker completes
 *   the job within 15 s.
 *
 * Needs PostgreSQL and Redis on 127.0.0.1 (fails, never skips, without them).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { startSharedStores, type SharedStores } from '../../support/platform/shared-stores.js';
import { runSaola, startSaola, type SaolaProcess } from '../../../fixtures/servers/saola-process.js';
import { sleep } from '../../support/wait.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/face/', import.meta.url));
const AUTH_CACHE_SECONDS = 5;
const RECOVERY_LIMIT_MS = 15_000;

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number, everyMs = 100): Promise<T> {
  const giveUpAt = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > giveUpAt) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

type Part = [field: string, value: string | Buffer];

async function face(base: string, apiKey: string, method: string, route: string, parts: Part[] = []) {
  const form = new FormData();
  for (const [field, value] of parts) {
    if (typeof value === 'string') form.append(field, value);
    else form.append(field, new Blob([new Uint8Array(value)], { type: 'image/jpeg' }), 'photo.jpg');
  }
  const res = await fetch(`${base}/dmp/facesearch/v2/${route}`, {
    method,
    headers: { api_key: apiKey },
    body: method === 'GET' ? undefined : form,
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function nlu(base: string, token: string, method: string, route: string, json?: unknown) {
  const res = await fetch(`${base}/api/v3/${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as any) : undefined };
}

async function tts(base: string, apiKey: string, text: string) {
  const res = await fetch(`${base}/hmi/tts/v5`, { method: 'POST', headers: { api_key: apiKey }, body: Buffer.from(text, 'utf8') });
  return { status: res.status, body: (await res.json()) as { async: string; error: number; request_id: string } };
}

async function ttsStatus(base: string, apiKey: string, requestId: string): Promise<{ status: string }> {
  const res = await fetch(`${base}/hmi/tts/v5/status/${requestId}`, { headers: { api_key: apiKey } });
  return (await res.json()) as { status: string };
}

async function audio(url: string): Promise<{ status: number; body: Buffer }> {
  const res = await fetch(url);
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
}

describe('2 API processes + 2 workers on PostgreSQL, Redis and S3', () => {
  let stores: SharedStores;
  let env: Record<string, string>;
  const dataDirs: string[] = [];
  const apis: SaolaProcess[] = [];
  const workers: SaolaProcess[] = [];
  let apiKey: string;
  let token: string;
  let appCode: string;
  const started = Date.now();
  /** A one-off `saola` command on the shared store (migrate, app create, key create ...): its stdout. */
  const cli = async (dataDir: string, ...args: string[]) => (await runSaola(args, { cleanEnv: true, env: { ...env, SAOLA_DATA_DIR: dataDir } })).stdout;

  before(async () => {
    stores = await startSharedStores();
    env = {
      ...stores.env,
      SAOLA_HOST: '127.0.0.1',
      SAOLA_AUTH_CACHE_SECONDS: String(AUTH_CACHE_SECONDS),
      // 2 cores for 4 processes: one engine thread each.
      SAOLA_POOL_THREADS: '1',
      SAOLA_FACE_THREADS: '1',
      SAOLA_LOG_LEVEL: 'warn',
    };
    const dataDir = () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-topology-'));
      dataDirs.push(dir);
      return dir;
    };

    // The upgrade path: the schema once, before any process starts.
    const migrated = JSON.parse(await cli(dataDir(), 'migrate', '--json'));
    assert.equal(migrated.migrated, true);
    const created = JSON.parse(await cli(dataDir(), 'app', 'create', '--name', 'topology', '--json'));
    ({ api_key: apiKey, token, app_code: appCode } = created);

    // Info: the test follows which process runs which synthesis in their logs.
    const starting = [
      ...[1, 2].map((i) =>
        startSaola({ name: `api-${i}`, cleanEnv: true, dataDir: dataDir(), logLevel: 'info', env: { ...env, SAOLA_RUN_WORKERS: 'false' } }),
      ),
      ...[1, 2].map((i) => startSaola({ name: `worker-${i}`, command: 'worker', cleanEnv: true, dataDir: dataDir(), logLevel: 'info', env })),
    ];
    const outcomes = await Promise.allSettled(starting);
    // What did start is kept for after() to stop, even when another process failed to.
    for (const [i, s] of outcomes.entries()) if (s.status === 'fulfilled') (i < 2 ? apis : workers).push(s.value);
    for (const s of outcomes) if (s.status === 'rejected') throw s.reason;
    for (const { url } of apis) {
      const ready = (await (await fetch(`${url}/readyz`)).json()) as any;
      assert.equal(ready.status, 'ready', JSON.stringify(ready));
      assert.equal(ready.checks.database.engine, 'postgres');
      assert.equal(ready.checks.jobs.engine, 'bullmq (redis)');
      assert.match(String(ready.checks.blobs.engine), /s3/i);
    }
  });

  after(async () => {
    await Promise.all([...apis.map((api) => api.stop(10_000)), ...workers.map((w) => w.stop(10_000))]);
    await stores?.close();
    for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
    console.log(`topology test: ${Math.round((Date.now() - started) / 1000)} s in all (4 processes)`);
  });

  test('NLU: written on one port, read, changed and deleted on the other', async () => {
    const [a, b] = apis.map((x) => x.url);
    const created = await nlu(a, token, 'POST', 'sample', { content: 'xin chào hai máy chủ' });
    assert.equal(created.status, 200);
    assert.equal(created.body.app_code, appCode);
    const code = created.body.code;
    const read = await nlu(b, token, 'GET', `sample/${code}`);
    assert.equal(read.status, 200);
    assert.equal(read.body.content, 'xin chào hai máy chủ');
    assert.equal((await nlu(b, token, 'PUT', `sample/${code}`, { content: 'chào buổi sáng' })).status, 200);
    assert.equal((await nlu(a, token, 'GET', `sample/${code}`)).body.content, 'chào buổi sáng');
    const listed = await nlu(a, token, 'GET', 'sample');
    assert.ok(listed.body.some((s: any) => s.code === code));
    assert.equal((await nlu(a, token, 'DELETE', `sample/${code}`)).status, 200);
    assert.equal((await nlu(b, token, 'GET', `sample/${code}`)).status, 404);
  });

  test('face search: adds, deletes and re-adds on one port are seen on the other at once', async () => {
    const [a, b] = apis.map((x) => x.url);
    const grace = fs.readFileSync(path.join(FIXTURES, 'grace_hopper.jpg'));
    const graceAgain = await sharp(grace).rotate(10, { background: '#808080' }).jpeg({ quality: 85 }).toBuffer();
    const personA = fs.readFileSync(path.join(FIXTURES, 'person-a.jpg'));
    const personADarker = await sharp(personA).modulate({ brightness: 0.7 }).jpeg({ quality: 85 }).toBuffer();
    const personC = fs.readFileSync(path.join(FIXTURES, 'person-c.jpg'));
    const search = async (base: string, photo: Buffer) =>
      (
        await face(base, apiKey, 'POST', 'search', [
          ['collection', 'staff'],
          ['file', photo],
        ])
      ).body;

    assert.equal(
      (
        await face(a, apiKey, 'POST', 'create', [
          ['collection', 'staff'],
          ['id', 'u1'],
          ['name', 'Grace'],
        ])
      ).body.code,
      '200',
    );
    assert.equal(
      (
        await face(a, apiKey, 'POST', 'add', [
          ['collection', 'staff'],
          ['id', 'u1'],
          ['file', grace],
        ])
      ).body.code,
      '200',
    );
    assert.equal(
      (
        await face(a, apiKey, 'POST', 'create', [
          ['collection', 'staff'],
          ['id', 'u2'],
          ['name', 'A'],
        ])
      ).body.code,
      '200',
    );
    assert.equal(
      (
        await face(a, apiKey, 'POST', 'add', [
          ['collection', 'staff'],
          ['id', 'u2'],
          ['file', personA],
        ])
      ).body.code,
      '200',
    );

    // Both processes now hold the collection's index in memory.
    assert.equal((await search(b, graceAgain)).data?.id, 'u1');
    assert.equal((await search(a, graceAgain)).data?.id, 'u1');
    assert.equal((await search(b, personADarker)).data?.id, 'u2');

    // A delete on one port: the other's next search no longer finds the face.
    assert.equal(
      (
        await face(a, apiKey, 'DELETE', 'delete_faces', [
          ['collection', 'staff'],
          ['id', 'u1'],
        ])
      ).body.code,
      '200',
    );
    assert.equal((await search(b, graceAgain)).code, '404');
    assert.equal((await search(a, graceAgain)).code, '404');

    // Re-added on the other port (same count of faces as before the delete): seen on the first.
    assert.equal(
      (
        await face(b, apiKey, 'POST', 'add', [
          ['collection', 'staff'],
          ['id', 'u1'],
          ['file', grace],
        ])
      ).body.code,
      '200',
    );
    assert.equal((await search(a, graceAgain)).data?.id, 'u1');

    // One user deleted and another added on one port, in one go: the count is unchanged.
    assert.equal(
      (
        await face(b, apiKey, 'DELETE', 'delete', [
          ['collection', 'staff'],
          ['id', 'u2'],
        ])
      ).body.code,
      '200',
    );
    assert.equal(
      (
        await face(b, apiKey, 'POST', 'add', [
          ['collection', 'staff'],
          ['id', 'u3'],
          ['file', personC],
        ])
      ).body.code,
      '200',
    );
    assert.equal((await search(a, personADarker)).code, '404');
    assert.equal((await search(a, personC)).data?.id, 'u3');
    const listed = (await face(a, apiKey, 'GET', 'list?collection=staff')).body.data.map((u: any) => u.id).sort();
    assert.deepEqual(listed, ['u1', 'u3']);
  });

  test('TTS: accepted on one port, synthesised by a worker, the audio served by both ports', async () => {
    const [a, b] = apis.map((x) => x.url);
    const accepted = await tts(a, apiKey, 'Xin chào, đây là bài kiểm tra với hai máy chủ và hai tiến trình làm việc.');
    assert.equal(accepted.status, 200);
    assert.equal(accepted.body.error, 0);
    const { request_id: requestId } = accepted.body;
    await until('the synthesis', async () => ((await ttsStatus(b, apiKey, requestId)).status === 'done' ? true : undefined), 30_000);
    const link = new URL(accepted.body.async);
    const fromA = await audio(`${a}${link.pathname}`);
    const fromB = await audio(`${b}${link.pathname}`);
    assert.equal(fromA.status, 200);
    assert.ok(fromA.body.length > 2000);
    assert.deepEqual(fromB.body, fromA.body);
    const by = workers.filter((w) => w.lines.some((l) => l.msg === 'tts audio ready' && l.request_id === requestId));
    assert.equal(by.length, 1, 'exactly one worker synthesised it');
    assert.ok(
      apis.every((api) => !api.lines.some((l) => l.msg === 'tts synthesis started')),
      'API processes run no jobs',
    );
  });

  test(`a revoked API key stops working on both ports within the auth cache time (${AUTH_CACHE_SECONDS} s)`, async (t) => {
    const [a, b] = apis.map((x) => x.url);
    const issued = JSON.parse(await cli(dataDirs[0], 'key', 'create', '--app', appCode, '--json'));
    const key: string = issued.api_key;
    // Both processes have it cached now.
    for (const base of [a, b]) assert.equal((await face(base, key, 'GET', 'list?collection=staff')).status, 200);
    await cli(dataDirs[0], 'key', 'revoke', issued.id, '--json');
    const revokedAt = Date.now();
    const lag = await Promise.all(
      [a, b].map((base) =>
        until(
          `${base} to refuse the revoked key`,
          async () => ((await face(base, key, 'GET', 'list?collection=staff')).status === 401 ? Date.now() - revokedAt : undefined),
          (AUTH_CACHE_SECONDS + 5) * 1000,
          50,
        ),
      ),
    );
    t.diagnostic(`revoked key refused after ${lag.join(' ms and ')} ms`);
    for (const ms of lag) assert.ok(ms <= AUTH_CACHE_SECONDS * 1000 + 1000, `refused after ${ms} ms`);
    // And it stays refused; the application's other key still works.
    for (const base of [a, b]) {
      assert.equal((await face(base, key, 'GET', 'list?collection=staff')).status, 401);
      assert.equal((await face(base, apiKey, 'GET', 'list?collection=staff')).status, 200);
    }
  });

  test(`a worker killed with SIGKILL mid-synthesis: the other completes the job within ${RECOVERY_LIMIT_MS / 1000} s`, async (t) => {
    const [a, b] = apis.map((x) => x.url);
    const text = 'Hôm nay trời đẹp, chúng tôi kiểm tra việc khôi phục công việc sau khi một tiến trình bị dừng đột ngột. '.repeat(6);
    const accepted = await tts(b, apiKey, text);
    assert.equal(accepted.body.error, 0);
    const { request_id: requestId } = accepted.body;
    const startedBy = await Promise.any(
      workers.map((w) => w.waitForLine('tts synthesis started', (l) => l.msg === 'tts synthesis started' && l.request_id === requestId, 30_000).then(() => w)),
    );
    await startedBy.kill();
    const killedAt = Date.now();
    assert.equal(await startedBy.exited, 'SIGKILL');
    const survivor = workers.find((w) => w !== startedBy)!;
    assert.ok(!startedBy.lines.some((l) => l.msg === 'tts audio ready' && l.request_id === requestId), 'the killed worker had not finished the job');
    // A client polls the status on either port.
    const doneAt = await until(
      'the job to complete on the other worker',
      async () => ((await ttsStatus(a, apiKey, requestId)).status === 'done' ? Date.now() : undefined),
      RECOVERY_LIMIT_MS + 15_000,
      100,
    );
    const recoveryMs = doneAt - killedAt;
    t.diagnostic(`SIGKILL mid-synthesis -> done on the other worker after ${recoveryMs} ms`);
    const ready = survivor.lines.find((l) => l.msg === 'tts audio ready' && l.request_id === requestId);
    assert.ok(ready, 'the surviving worker synthesised it');
    assert.equal(ready.attempt, 2);
    assert.ok(recoveryMs <= RECOVERY_LIMIT_MS, `completed ${recoveryMs} ms after the kill`);
    const link = new URL(accepted.body.async);
    for (const base of [a, b]) assert.equal((await audio(`${base}${link.pathname}`)).status, 200);
  });
});
