/**
 * The request path's caches and batches keep their promises: a revoked credential is refused within the
 * cache bound (at once in the process that revoked it), usage counted in memory reaches the store at a flush
 * and at close, quotas are still enforced (and a quota set by another process is seen within the refresh),
 * SQLite statements are prepared once but a busy one is never shared, and a group-committed write answers
 * each caller with its own outcome. "Another process" is a second object over the same store.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import type { FastifyBaseLogger } from 'fastify';
import { Credentials } from '../../../src/platform/auth/credentials.js';
import { preparedOnce } from '../../../src/platform/db/database.js';
import { WriteBatcher } from '../../../src/platform/db/write-batcher.js';
import { MemoryQuotaCounter, QuotaGate } from '../../../src/platform/usage/quota.js';
import { UsageRecorder } from '../../../src/platform/usage/recorder.js';
import { UsageStore, utcDay, type UsageDelta } from '../../../src/platform/usage/store.js';
import { useMigratedStore } from '../../support/store.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('credential cache', () => {
  const store = useMigratedStore('sqlite', 'saola-auth-cache-');

  test('a token revoked by another process is accepted from the cache until the bound, then refused', async () => {
    const here = new Credentials(store(), 1);
    const elsewhere = new Credentials(store(), 1);
    const app = await here.createApp('cache-across');
    const token = await here.issue(app.app_code, 'token');
    assert.equal(await here.authenticate(token.secret, 'token'), app.app_code);
    await elsewhere.revokeCredential(token.id);
    // Within the bound this process still answers from its cache (no query per request)...
    assert.equal(await here.authenticate(token.secret, 'token'), app.app_code);
    // ...and after it, the revocation holds.
    await sleep(1100);
    assert.equal(await here.authenticate(token.secret, 'token'), null);
  });

  test('a key revoked in this process, or its whole application, is refused at once', async () => {
    const creds = new Credentials(store(), 3600);
    const app = await creds.createApp('cache-local');
    const key = await creds.issue(app.app_code, 'api_key');
    const token = await creds.issue(app.app_code, 'token');
    assert.equal(await creds.authenticate(key.secret, 'api_key'), app.app_code);
    assert.equal(await creds.authenticate(token.secret, 'token'), app.app_code);
    await creds.revokeCredential(key.secret);
    assert.equal(await creds.authenticate(key.secret, 'api_key'), null);
    assert.equal(await creds.authenticate(token.secret, 'token'), app.app_code);
    await creds.revokeApp(app.app_code);
    assert.equal(await creds.authenticate(token.secret, 'token'), null);
  });

  test('a key is only valid as its own kind, cached or not', async () => {
    const creds = new Credentials(store(), 3600);
    const app = await creds.createApp('cache-kind');
    const key = await creds.issue(app.app_code, 'api_key');
    assert.equal(await creds.authenticate(key.secret, 'api_key'), app.app_code);
    assert.equal(await creds.authenticate(key.secret, 'token'), null);
  });
});

describe('usage counters and quotas', () => {
  const store = useMigratedStore('sqlite', 'saola-usage-cache-');
  const log = { warn: () => undefined } as unknown as FastifyBaseLogger;

  test('requests counted in memory reach the store at a flush, and the rest at close', async () => {
    const creds = new Credentials(store(), 0);
    const app = await creds.createApp('usage-flush');
    const usage = new UsageStore(store());
    const recorder = new UsageRecorder(usage, log, 3_600_000);
    const day = utcDay(Date.now());
    for (let i = 0; i < 5; i++) recorder.record(app.app_code, 'nlu', 'POST /api/v3/sample', 200, 3);
    // Not written per request.
    assert.equal(await usage.countOn(app.app_code, 'nlu', day), 0);
    await recorder.flush();
    assert.equal(await usage.countOn(app.app_code, 'nlu', day), 5);
    for (let i = 0; i < 3; i++) recorder.record(app.app_code, 'nlu', 'POST /api/v3/sample', 200, 3);
    recorder.record(app.app_code, 'nlu', 'POST /api/v3/sample', 429, 1);
    await recorder.close();
    // Refused requests are stored but do not count against the quota.
    assert.equal(await usage.countOn(app.app_code, 'nlu', day), 8);
    const report = await usage.report(app.app_code, day, day);
    assert.equal(report.total, 9);
  });

  test('each day, service, endpoint, application and status keeps its own counter, across flushes and a failed write', async () => {
    const written: UsageDelta[][] = [];
    let fail = false;
    const fake = {
      add: async (rows: UsageDelta[]) => {
        if (fail) throw new Error('store down');
        written.push(rows.map((r) => ({ ...r, buckets: [...r.buckets] })));
      },
    } as unknown as UsageStore;
    const recorder = new UsageRecorder(fake, log, 3_600_000);
    const dayOne = Date.parse('2026-03-01T23:59:59.000Z');
    const dayTwo = Date.parse('2026-03-02T00:00:01.000Z');
    const calls: [string, string, string, number, number][] = [
      ['app-a', 'nlu', 'POST /api/v3/predict', 200, dayOne],
      ['app-a', 'nlu', 'POST /api/v3/predict', 200, dayOne],
      ['app-a', 'nlu', 'POST /api/v3/predict', 429, dayOne],
      ['app-b', 'nlu', 'POST /api/v3/predict', 200, dayOne],
      ['app-a', 'nlu', 'POST /api/v3/sample', 200, dayOne],
      ['app-a', 'credit', 'POST /api/v3/predict', 200, dayOne],
      ['app-a', 'nlu', 'POST /api/v3/predict', 200, dayTwo],
      // Back to the first day (a clock stepped back): its own counter again.
      ['app-a', 'nlu', 'POST /api/v3/predict', 200, dayOne],
    ];
    for (const [app, service, endpoint, status, at] of calls) recorder.record(app, service, endpoint, status, 5, at);
    await recorder.flush();
    const key = (r: UsageDelta) => `${r.day} ${r.service} ${r.endpoint} ${r.app_code} ${r.status}`;
    const counts = (rows: UsageDelta[]) => Object.fromEntries(rows.map((r) => [key(r), r.count]));
    assert.deepEqual(counts(written[0]!), {
      '2026-03-01 nlu POST /api/v3/predict app-a 200': 3,
      '2026-03-01 nlu POST /api/v3/predict app-a 429': 1,
      '2026-03-01 nlu POST /api/v3/predict app-b 200': 1,
      '2026-03-01 nlu POST /api/v3/sample app-a 200': 1,
      '2026-03-01 credit POST /api/v3/predict app-a 200': 1,
      '2026-03-02 nlu POST /api/v3/predict app-a 200': 1,
    });
    // After a flush the counts start again; a failed write keeps them, and the next write holds them with the new ones.
    recorder.record('app-a', 'nlu', 'POST /api/v3/predict', 200, 5, dayTwo);
    fail = true;
    await recorder.flush();
    recorder.record('app-a', 'nlu', 'POST /api/v3/predict', 200, 7, dayTwo);
    recorder.record('app-a', 'nlu', 'POST /api/v3/predict', 200, 9, dayTwo);
    fail = false;
    await recorder.close();
    assert.equal(written.length, 2);
    assert.deepEqual(counts(written[1]!), { '2026-03-02 nlu POST /api/v3/predict app-a 200': 3 });
    assert.equal(written[1]![0]!.latencySumMs, 21);
    assert.equal(written[1]![0]!.latencyMaxMs, 9);
  });

  test('a quota is enforced from memory, and a quota set by another process is seen within the refresh', async () => {
    const creds = new Credentials(store(), 0);
    const app = await creds.createApp('quota-cache');
    const usage = new UsageStore(store());
    const gate = new QuotaGate(usage, new MemoryQuotaCounter(), 300);
    // No quota yet: nothing refused.
    assert.equal(await gate.check(app.app_code, 'nlu'), undefined);
    // Set "elsewhere" (the CLI, the console, another server): this gate sees it after its refresh.
    await new UsageStore(store()).setQuota(app.app_code, 'nlu', 3, null);
    await sleep(350);
    // The first request after the refresh interval starts the re-read and is answered from the table it had;
    // the re-read lands behind it.
    void gate.mayLimit;
    await sleep(100);
    assert.equal(gate.mayLimit, true);
    const verdicts = [];
    for (let i = 0; i < 4; i++) verdicts.push(await gate.check(app.app_code, 'nlu'));
    assert.deepEqual(
      verdicts.map((v) => v?.limit),
      [undefined, undefined, undefined, 'minute'],
    );
    assert.ok(verdicts[3]!.retryAfterS >= 1);
    // Another application is not limited by it.
    const other = await creds.createApp('quota-cache-other');
    assert.equal(await gate.check(other.app_code, 'nlu'), undefined);
  });
});

describe('SQLite statements prepared once', () => {
  test('the same SQL text reuses its statement; a statement being iterated is not shared', () => {
    const raw = new SQLite(':memory:');
    const db = preparedOnce(raw);
    db.prepare('create table t (n integer)').run([]);
    for (let i = 0; i < 3; i++) db.prepare('insert into t (n) values (?)').run([i]);
    const select = db.prepare('select n from t order by n');
    assert.equal(db.prepare('select n from t order by n'), select);
    const iterating = (select as unknown as SQLite.Statement).iterate() as IterableIterator<{ n: number }>;
    assert.equal(iterating.next().value?.n, 0);
    // While the first is mid-iteration, the same query gets its own statement and answers in full.
    const other = db.prepare('select n from t order by n');
    assert.notEqual(other, select);
    assert.deepEqual(
      (other.all([]) as { n: number }[]).map((r) => r.n),
      [0, 1, 2],
    );
    assert.equal(iterating.next().value?.n, 1);
    iterating.return?.();
    db.close();
  });
});

describe('WriteBatcher (group commit)', () => {
  test('rows handed in during one turn are written by one statement, and each caller waits for it', async () => {
    const statements: number[][] = [];
    let committed = false;
    const batcher = new WriteBatcher<number>(
      async (rows) => {
        await sleep(10);
        statements.push(rows);
        committed = true;
      },
      async (row) => {
        statements.push([row]);
      },
    );
    const writes = [1, 2, 3, 4].map((n) => batcher.write(n).then(() => committed));
    // Every caller's answer came after the commit.
    assert.deepEqual(await Promise.all(writes), [true, true, true, true]);
    assert.deepEqual(statements, [[1, 2, 3, 4]]);
    // A later turn is its own statement; a lone row goes through the single-row write.
    await batcher.write(5);
    assert.deepEqual(statements.at(-1), [5]);
  });

  for (const gatherMs of [0, 20]) {
    test(`a failing row fails only its own caller: the batch is retried row by row (gatherMs ${gatherMs})`, async () => {
      const stored: number[] = [];
      const batcher = new WriteBatcher<number>(
        async (rows) => {
          if (rows.includes(13)) throw new Error('constraint');
          stored.push(...rows);
        },
        async (row) => {
          if (row === 13) throw new Error(`row ${row} refused`);
          stored.push(row);
        },
        200,
        gatherMs,
      );
      // A statement of four first: with gathering, the next one then waits for four rows.
      await Promise.all([1, 2, 3, 4].map((n) => batcher.write(n)));
      const results = await Promise.allSettled([11, 12, 13, 14].map((n) => batcher.write(n)));
      assert.deepEqual(
        results.map((r) => r.status),
        ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
      );
      assert.match(String((results[2] as PromiseRejectedResult).reason), /row 13 refused/);
      assert.deepEqual(
        stored.sort((a, b) => a - b),
        [1, 2, 3, 4, 11, 12, 14],
      );
    });
  }

  test('one statement at a time: rows handed in while one runs are written together by the next', async () => {
    const statements: number[][] = [];
    // Each statement runs until the test opens its gate.
    const gates: (() => void)[] = [];
    let running = 0;
    let overlapped = false;
    const run = async (rows: number[]) => {
      overlapped ||= running > 0;
      running++;
      await new Promise<void>((open) => gates.push(open));
      statements.push(rows);
      running--;
    };
    const batcher = new WriteBatcher<number>(run, (row) => run([row]));
    const first = batcher.write(1);
    while (gates.length === 0) await sleep(1);
    // Handed in over several later turns while the first statement runs.
    const later: Promise<void>[] = [];
    for (let n = 2; n <= 5; n++) {
      later.push(batcher.write(n));
      await sleep(2);
    }
    assert.equal(gates.length, 1, 'no second statement while the first runs');
    gates[0]!();
    await first;
    while (gates.length < 2) await sleep(1);
    gates[1]!();
    await Promise.all(later);
    assert.equal(overlapped, false, 'never two statements at once');
    assert.deepEqual(statements, [[1], [2, 3, 4, 5]]);
  });

  test('gathering: a statement waits for as many rows as the last one answered plus those waiting, not longer', async () => {
    const statements: number[][] = [];
    const gates: (() => void)[] = [];
    const run = async (rows: number[]) => {
      await new Promise<void>((open) => gates.push(open));
      statements.push(rows);
    };
    // A gathering wait far longer than the test: every statement below goes out because its rows are in hand.
    const batcher = new WriteBatcher<number>(run, (row) => run([row]), 200, 60_000);
    const first = [1, 2, 3].map((n) => batcher.write(n));
    while (gates.length === 0) await sleep(1);
    // Two rows come while the first statement runs: they wait for it.
    const waiting = [4, 5].map((n) => batcher.write(n));
    await sleep(5);
    gates[0]!();
    await Promise.all(first);
    // 3 answered + 2 waiting: the next statement waits for 5 rows. The answered clients' rows come over later turns.
    const returning: Promise<void>[] = [];
    for (const n of [6, 7]) {
      await sleep(5);
      assert.equal(gates.length, 1, `no statement with ${n - 4} of 5 rows in hand`);
      returning.push(batcher.write(n));
    }
    await sleep(5);
    assert.equal(gates.length, 1, 'still 4 of 5');
    returning.push(batcher.write(8));
    while (gates.length < 2) await sleep(1);
    gates[1]!();
    await Promise.all([...waiting, ...returning]);
    assert.deepEqual(statements, [
      [1, 2, 3],
      [4, 5, 6, 7, 8],
    ]);
  });

  test('gathering: fewer rows than expected go out after gatherMs; a lone caller never waits', async () => {
    const statements: number[][] = [];
    const batcher = new WriteBatcher<number>(
      async (rows) => {
        statements.push(rows);
      },
      async (row) => {
        statements.push([row]);
      },
      200,
      // Long next to any stall of a loaded machine: a wait shows as a second, no wait as far less.
      1000,
    );
    // A caller alone, one row at a time: each statement answered one, so one is expected and none waits.
    let started = performance.now();
    for (let n = 1; n <= 5; n++) await batcher.write(n);
    const lone = performance.now() - started;
    assert.ok(lone < 1000, `five lone rows took ${lone.toFixed(0)} ms: none should wait the 1000 ms`);
    // Four rows in one turn, then one: it waits for the four expected back, and goes out at gatherMs without them.
    await Promise.all([6, 7, 8, 9].map((n) => batcher.write(n)));
    started = performance.now();
    await batcher.write(10);
    const waited = performance.now() - started;
    assert.ok(waited >= 990, `the row went out after ${waited.toFixed(0)} ms, before the 1000 ms`);
    // One answered: the next lone row is expected alone again.
    started = performance.now();
    await batcher.write(11);
    assert.ok(performance.now() - started < 1000, 'expected one again after a statement of one');
    assert.deepEqual(statements, [[1], [2], [3], [4], [5], [6, 7, 8, 9], [10], [11]]);
  });

  test('batches are capped at maxRows rows per statement', async () => {
    const sizes: number[] = [];
    const batcher = new WriteBatcher<number>(
      async (rows) => {
        sizes.push(rows.length);
      },
      async () => {
        sizes.push(1);
      },
      3,
    );
    await Promise.all(Array.from({ length: 7 }, (_, i) => batcher.write(i)));
    assert.deepEqual(sizes, [3, 3, 1]);
  });
});
