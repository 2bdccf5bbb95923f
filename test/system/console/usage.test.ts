import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../../src/platform/config.js';
import { migrations } from '../../../src/services.js';
import { migrateToLatest, openStore, type Store } from '../../../src/platform/db/database.js';
import { Credentials } from '../../../src/platform/auth/credentials.js';
import { quantileMs, bucketOf } from '../../../src/platform/usage/histogram.js';
import { MemoryQuotaCounter, QuotaGate, RedisQuotaCounter } from '../../../src/platform/usage/quota.js';
import { connectRedis } from '../../support/platform/job-queue-backends.js';
import { UsageRecorder } from '../../../src/platform/usage/recorder.js';
import { UsageStore, utcDay } from '../../../src/platform/usage/store.js';
import { quotaCommand, usageCommand } from '../../../src/usage-cli.js';
import { createTestDatabase, type TestDatabase } from '../../../fixtures/servers/postgres.js';
import { call } from '../../support/http.js';
import { startTestApp, type TestApp } from '../../../fixtures/servers/app.js';
import { sleep } from '../../support/wait.js';

const silent = { warn() {}, info() {}, error() {} } as never;

/** Minute quotas are fixed windows: start a counting test well inside one, so a boundary cannot split it. */
async function freshMinute(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 5000) await sleep(left + 50);
}

test('latency histogram: quantiles come back as the bound of the bucket they fall in', () => {
  const buckets = new Array(25).fill(0);
  for (const ms of [1, 4, 4, 4, 9, 9, 9, 9, 9, 480]) buckets[bucketOf(ms)] += 1;
  assert.equal(quantileMs(buckets, 0.5, 480), 10);
  assert.equal(quantileMs(buckets, 0.95, 480), 480);
  assert.equal(quantileMs(buckets, 0.1, 480), 1);
  assert.equal(quantileMs(new Array(25).fill(0), 0.5, 0), null);
});

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`usage store and recorder (${engine})`, () => {
    let store: Store;
    let pgdb: TestDatabase | undefined;
    let appCode: string;

    before(async () => {
      if (engine === 'postgres') pgdb = await createTestDatabase();
      store = openStore(pgdb ? pgdb.url : 'sqlite::memory:');
      await migrateToLatest(store, migrations);
      appCode = (await new Credentials(store, 0).createApp('metered')).app_code;
    });
    after(async () => {
      await store.close();
      await pgdb?.drop();
    });

    test('batches add up across flushes and recorders (several processes write the same rows)', async () => {
      const usage = new UsageStore(store);
      const a = new UsageRecorder(usage, silent, 3_600_000);
      const b = new UsageRecorder(usage, silent, 3_600_000);
      for (let i = 0; i < 30; i++) a.record(appCode, 'nlu', 'POST /api/v3/sample', 200, 3);
      for (let i = 0; i < 10; i++) b.record(appCode, 'nlu', 'POST /api/v3/sample', 200, 40);
      b.record(appCode, 'nlu', 'POST /api/v3/sample', 400, 1);
      b.record(appCode, 'credit', 'GET /dmp/creditscoring/v1', 429, 2);
      await Promise.all([a.flush(), b.flush()]);
      for (let i = 0; i < 10; i++) a.record(appCode, 'nlu', 'POST /api/v3/sample', 200, 40);
      await a.close();
      await b.close();
      const report = await usage.report(appCode, utcDay(), utcDay());
      assert.equal(report.total, 52);
      assert.equal(report.errors, 2);
      const sample = report.endpoints.find((e) => e.endpoint === 'POST /api/v3/sample');
      assert.ok(sample);
      assert.equal(sample.count, 51);
      assert.equal(sample.errors, 1);
      // 31 of 51 answers took at most 3 ms, 20 took 40 ms: the median is in the 3 ms bucket, p95 in the 50 ms one.
      assert.equal(sample.p50_ms, 3);
      assert.equal(sample.p95_ms, 40);
      assert.equal(sample.max_ms, 40);
      assert.deepEqual(
        report.days.map((d) => [d.service, d.count, d.errors]),
        [
          ['credit', 1, 1],
          ['nlu', 51, 1],
        ],
      );
      // A refused request did not use the quota.
      assert.equal(await usage.countOn(appCode, 'credit', utcDay()), 0);
      assert.equal(await usage.countOn(appCode, 'nlu', utcDay()), 51);
    });

    test('a request is counted on its UTC day, also across midnight', async () => {
      const usage = new UsageStore(store);
      const recorder = new UsageRecorder(usage, silent, 3_600_000);
      const midnight = Date.parse('2026-01-02T00:00:00.000Z');
      recorder.record(appCode, 'asr', 'POST /hmi/asr/general', 200, 5, midnight - 1000);
      recorder.record(appCode, 'asr', 'POST /hmi/asr/general', 200, 5, midnight + 1000);
      recorder.record(appCode, 'asr', 'POST /hmi/asr/general', 200, 5, midnight + 2000);
      await recorder.close();
      const report = await usage.report(appCode, '2026-01-01', '2026-01-02', 'asr');
      assert.deepEqual(
        report.days.map((d) => [d.day, d.count]),
        [
          ['2026-01-01', 1],
          ['2026-01-02', 2],
        ],
      );
    });

    test('the day quota starts from what is stored today; the minute quota refuses past its limit', async () => {
      const usage = new UsageStore(store);
      await usage.setQuota(appCode, 'nlu', 3, 53);
      const gate = new QuotaGate(usage, new MemoryQuotaCounter());
      const verdicts = [];
      for (let i = 0; i < 4; i++) verdicts.push(await gate.check(appCode, 'nlu'));
      // 51 stored + 2 allowed = 53: the third is refused by the day, the fourth too.
      assert.equal(verdicts[0], undefined);
      assert.equal(verdicts[1], undefined);
      assert.equal(verdicts[2]?.limit, 'day');
      assert.equal(verdicts[3]?.limit, 'day');
      assert.ok(verdicts[2]!.retryAfterS > 0 && verdicts[2]!.retryAfterS <= 86_400);
      assert.equal(await gate.check(appCode, 'credit'), undefined, 'another service has no quota');
      await usage.setQuota(appCode, 'nlu', null, null);
      assert.deepEqual(await usage.quotas(appCode), []);
    });

    test('Redis counters hold one limit across processes (two gates sharing one Redis)', async () => {
      const usage = new UsageStore(store);
      await usage.setQuota(appCode, 'face', 5, null);
      const prefix = `saola-test-${Date.now().toString(36)}-${engine}`;
      const [a, b] = [await connectRedis(), await connectRedis()];
      try {
        const gates = [new QuotaGate(usage, new RedisQuotaCounter(a, prefix)), new QuotaGate(usage, new RedisQuotaCounter(b, prefix))];
        const verdicts = [];
        await freshMinute();
        for (let i = 0; i < 8; i++) verdicts.push(await gates[i % 2].check(appCode, 'face'));
        assert.equal(verdicts.filter((v) => v === undefined).length, 5, 'five allowed in all, whichever process asked');
        assert.ok(verdicts.slice(5).every((v) => v?.limit === 'minute'));
        await a.del(...(await a.keys(`${prefix}:*`)));
      } finally {
        a.disconnect();
        b.disconnect();
        await usage.setQuota(appCode, 'face', null, null);
      }
    });
  });
}

describe('metering and quotas over HTTP, usage and quota CLI', () => {
  let app: TestApp;
  const admin = { authorization: 'Bearer correct horse battery staple' };

  before(async () => {
    app = await startTestApp({ env: { SAOLA_ADMIN_PASSWORD: 'correct horse battery staple' } });
  });
  after(() => app.close());

  async function cli(command: typeof usageCommand, ...args: string[]) {
    let out = '';
    let err = '';
    const config = loadConfig({ SAOLA_DATA_DIR: app.dataDir, ...(app.deps.config.databaseUrl ? { SAOLA_DATABASE_URL: app.deps.config.databaseUrl } : {}) });
    const code = await command({ config, migrations, args, stdout: (t) => (out += t), stderr: (t) => (err += t) });
    return { code, out, err };
  }

  test('every authenticated request is counted per service, endpoint and status; strangers are not', async () => {
    for (let i = 0; i < 5; i++) assert.equal((await call(app.url, 'POST', '/api/v3/sample', { token: app.token, json: { content: `câu số ${i}` } })).status, 200);
    assert.equal((await call(app.url, 'GET', '/api/v3/sample/no-such-sample', { token: app.token })).status, 404);
    assert.equal((await call(app.url, 'GET', '/dmp/creditscoring/v1?phone=0912345678', { headers: { api_key: app.apiKey } })).status, 400);
    assert.equal((await call(app.url, 'POST', '/api/v3/sample', { token: 'st_wrong', json: { content: 'x' } })).status, 401);
    const usage = await call(app.url, 'GET', `/console/api/apps/${app.appCode}/usage?days=1`, { headers: admin });
    assert.equal(usage.status, 200, usage.text);
    assert.equal(usage.body.total, 7, 'the stranger (401) is not counted: no application to count it for');
    assert.equal(usage.body.errors, 2);
    const create = usage.body.endpoints.find((e: { endpoint: string }) => e.endpoint === 'POST /api/v3/sample');
    assert.equal(create.count, 5);
    assert.equal(create.service, 'nlu');
    assert.ok(create.p50_ms > 0 && create.p95_ms >= create.p50_ms);
    const credit = usage.body.endpoints.find((e: { service: string }) => e.service === 'credit');
    assert.deepEqual([credit.count, credit.errors], [1, 1]);

    const text = await cli(usageCommand, '--app', 'test-app');
    assert.equal(text.code, 0, text.err);
    assert.match(text.out, /7 requests, 2 errors/);
    assert.match(text.out, /nlu\s+POST \/api\/v3\/sample\s+5\s+0/);
    const json = JSON.parse((await cli(usageCommand, '--app', app.appCode, '--json')).out);
    assert.equal(json.total, 7);
    await assert.rejects(cli(usageCommand, '--app', 'nobody'), /No application "nobody"/);
  });

  test('a quota refuses in the service own 429 shape with Retry-After, for that application and service only', async () => {
    const set = await cli(quotaCommand, 'set', '--app', 'test-app', '--service', 'credit', '--per-minute', '2');
    assert.equal(set.code, 0, set.err);
    assert.match(set.out, /credit: 2 per minute, no limit per day/);
    // The running server re-reads quotas every 5 s, behind the requests: one request starts the re-read.
    await sleep(5100);
    await call(app.url, 'GET', '/healthz');
    await call(app.url, 'GET', '/api/v3/sample', { token: app.token });
    await sleep(200);
    const other = await app.newTenant('unlimited');
    const answers = [];
    await freshMinute();
    for (let i = 0; i < 3; i++) answers.push(await call(app.url, 'GET', '/dmp/creditscoring/v1?phone=0912345678&dltype=1', { headers: { api_key: app.apiKey } }));
    assert.notEqual(answers[0].status, 429, answers[0].text);
    assert.notEqual(answers[1].status, 429, answers[1].text);
    assert.equal(answers[2].status, 429);
    assert.equal(answers[2].body.statusCode, 429, 'credit answers in the fastify style');
    assert.match(answers[2].body.message, /2 credit requests per minute/);
    const retry = Number(answers[2].headers.get('retry-after'));
    assert.ok(retry >= 1 && retry <= 60, `retry-after ${retry}`);
    assert.notEqual((await call(app.url, 'GET', '/dmp/creditscoring/v1?phone=0912345678&dltype=1', { headers: { api_key: other.apiKey } })).status, 429);
    assert.equal((await call(app.url, 'GET', '/api/v3/sample', { token: app.token })).status, 200, 'nlu has no quota');

    const shown = await cli(quotaCommand, 'show', '--app', 'test-app', '--json');
    assert.deepEqual(
      JSON.parse(shown.out).quotas.map((q: { service: string; per_minute: number }) => [q.service, q.per_minute]),
      [['credit', 2]],
    );
    const bad = await cli(quotaCommand, 'set', '--app', 'test-app', '--service', 'nope', '--per-minute', '2').catch((e: Error) => ({ code: 2, out: '', err: e.message }));
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--service must be one of/);
  });

  test('the reader answers a quota refusal in its own body (errorCode), through the console API', async () => {
    const put = await call(app.url, 'PUT', `/console/api/apps/${app.appCode}/quotas`, { headers: admin, json: { service: 'reader', per_minute: 1 } });
    assert.equal(put.status, 200, put.text);
    await freshMinute();
    const first = await call(app.url, 'POST', '/vision/idr/vnm', { headers: { api_key: app.apiKey }, json: {} });
    assert.notEqual(first.status, 429, first.text);
    const second = await call(app.url, 'POST', '/vision/idr/vnm', { headers: { api_key: app.apiKey }, json: {} });
    assert.equal(second.status, 429);
    assert.equal(second.body.errorCode, 1);
    assert.match(second.body.errorMessage, /Quota exceeded/);
    assert.ok(Number(second.headers.get('retry-after')) >= 1);
  });
});
