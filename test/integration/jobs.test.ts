import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { migrations } from '../../src/migrations.js';
import { migrateToLatest, openStore, type Store } from '../../src/platform/db/database.js';
import { PermanentJobError, exponentialBackoff, type Job, type WorkOptions } from '../../src/platform/jobs/queue.js';
import { SqlJobQueue } from '../../src/platform/jobs/sql-queue.js';

const POSTGRES_URL = process.env.SAOLA_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/saola_test';

interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

async function sqliteDatabase(): Promise<TestDatabase> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'saola-jobs-'));
  return { url: `sqlite:${path.join(dir, 'jobs.db')}`, drop: () => fs.rm(dir, { recursive: true, force: true }) };
}

/** A schema of its own, so test files running in parallel never see each other's jobs. */
async function postgresDatabase(): Promise<TestDatabase> {
  const admin = openStore(POSTGRES_URL);
  const schema = `jobs_test_${randomUUID().replaceAll('-', '')}`;
  try {
    await sql`create schema ${sql.id(schema)}`.execute(admin.db);
  } catch (error) {
    await admin.close();
    throw new Error(`PostgreSQL at ${POSTGRES_URL} is required for this test: ${String(error)}`);
  }
  const url = new URL(POSTGRES_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    drop: async () => {
      await sql`drop schema ${sql.id(schema)} cascade`.execute(admin.db);
      await admin.close();
    },
  };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** For the losing side of a race: does not keep the test process alive. */
const deadline = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const giveUpAt = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > giveUpAt) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const quiet: Pick<WorkOptions, 'onError'> = { onError: () => {} };
const newQueueName = () => `q-${randomUUID()}`;

function jobQueueSuite(engine: string, createDatabase: () => Promise<TestDatabase>) {
  describe(`SqlJobQueue on ${engine}`, () => {
    let database: TestDatabase;
    let store: Store;
    let queue: SqlJobQueue;

    before(async () => {
      database = await createDatabase();
      store = openStore(database.url);
      await migrateToLatest(store, migrations);
      queue = new SqlJobQueue(store);
    });

    after(async () => {
      await queue?.close();
      await store?.close();
      await database?.drop();
    });

    test('runs a queued job once and stores its result', async () => {
      const name = newQueueName();
      const { id, created } = await queue.enqueue(name, { n: 21 }, { appCode: 'app1' });
      assert.equal(created, true);
      const queued = await queue.get(id);
      assert.equal(queued?.status, 'queued');
      assert.equal(queued?.attempts, 0);
      assert.deepEqual(queued?.payload, { n: 21 });

      const seen: Job<{ n: number }>[] = [];
      const worker = queue.work<{ n: number }>(name, async (job) => {
        seen.push(job);
        return { doubled: job.payload.n * 2 };
      });
      try {
        const done = await waitFor('job done', async () => {
          const job = await queue.get(id);
          return job?.status === 'done' && job;
        });
        assert.deepEqual(done.result, { doubled: 42 });
        assert.equal(done.attempts, 1);
        assert.equal(done.progress, 100);
        assert.equal(done.leaseUntil, undefined);
        assert.equal(done.appCode, 'app1');
        assert.equal(seen.length, 1);
        assert.equal(seen[0].id, id);
        assert.equal(seen[0].status, 'running');
        assert.deepEqual(await queue.counts(name), { queued: 0, running: 0, done: 1, failed: 0 });
      } finally {
        await worker.stop();
      }
    });

    test('an enqueue in this process wakes an idle worker at once', async () => {
      const name = newQueueName();
      const ran = deferred<number>();
      const worker = queue.work(name, async () => ran.resolve(Date.now()), { pollMs: 60_000 });
      try {
        await sleep(100); // the worker's first look found nothing: it now sleeps for pollMs
        const enqueuedAt = Date.now();
        await queue.enqueue(name, {});
        const ranAt = await Promise.race([ran.promise, deadline(3000).then(() => undefined)]);
        assert.ok(ranAt !== undefined, 'the worker did not wake up');
        assert.ok(ranAt - enqueuedAt < 2000);
      } finally {
        await worker.stop();
      }
    });

    test('does not run a job before its runAt', async () => {
      const name = newQueueName();
      const runAt = new Date(Date.now() + 400);
      await queue.enqueue(name, {}, { runAt });
      const ran = deferred<number>();
      const worker = queue.work(name, async () => ran.resolve(Date.now()), { pollMs: 50 });
      try {
        assert.ok((await ran.promise) >= runAt.getTime());
      } finally {
        await worker.stop();
      }
    });

    test('a key makes enqueue idempotent per queue and app', async () => {
      const name = newQueueName();
      const first = await queue.enqueue(name, { v: 1 }, { key: 'order-7', appCode: 'app1' });
      const again = await queue.enqueue(name, { v: 2 }, { key: 'order-7', appCode: 'app1' });
      assert.deepEqual(again, { id: first.id, created: false });
      assert.deepEqual((await queue.get(first.id))?.payload, { v: 1 });
      assert.equal((await queue.get(first.id))?.key, 'order-7');

      const otherKey = await queue.enqueue(name, {}, { key: 'order-8', appCode: 'app1' });
      const otherQueue = await queue.enqueue(newQueueName(), {}, { key: 'order-7', appCode: 'app1' });
      const otherApp = await queue.enqueue(name, {}, { key: 'order-7', appCode: 'app2' });
      for (const other of [otherKey, otherQueue, otherApp]) {
        assert.equal(other.created, true);
        assert.notEqual(other.id, first.id);
      }

      const racing = await Promise.all(
        Array.from({ length: 8 }, (_, i) => queue.enqueue(name, { i }, { key: 'burst', appCode: 'app1' })),
      );
      assert.equal(racing.filter((r) => r.created).length, 1);
      assert.equal(new Set(racing.map((r) => r.id)).size, 1);
      assert.equal((await queue.counts(name)).queued, 4);
    });

    test('retries a failing job with backoff until it succeeds', async () => {
      const name = newQueueName();
      const { id } = await queue.enqueue(name, {});
      const claimedAt: number[] = [];
      const backoffAsked: number[] = [];
      const worker = queue.work(
        name,
        async (job) => {
          claimedAt.push(Date.now());
          if (job.attempts < 3) throw new Error(`flaky attempt ${job.attempts}`);
          return 'third time lucky';
        },
        { ...quiet, pollMs: 20, backoff: (attempt) => (backoffAsked.push(attempt), 150) },
      );
      try {
        const done = await waitFor('job done', async () => {
          const job = await queue.get(id);
          return job?.status === 'done' && job;
        });
        assert.equal(done.attempts, 3);
        assert.equal(done.result, 'third time lucky');
        assert.equal(done.lastError, undefined);
        assert.deepEqual(backoffAsked, [1, 2]);
        assert.equal(claimedAt.length, 3);
        for (let i = 1; i < claimedAt.length; i++) {
          assert.ok(claimedAt[i] - claimedAt[i - 1] >= 140, `retry ${i} came after ${claimedAt[i] - claimedAt[i - 1]} ms`);
        }
      } finally {
        await worker.stop();
      }
    });

    test('a job that keeps failing ends failed after maxAttempts, with the last error', async () => {
      const name = newQueueName();
      const { id } = await queue.enqueue(name, {}, { maxAttempts: 3 });
      let calls = 0;
      const worker = queue.work(
        name,
        async () => {
          calls++;
          throw new Error(`engine exploded ${calls}`);
        },
        { ...quiet, pollMs: 20, backoff: () => 10 },
      );
      try {
        const failed = await waitFor('job failed', async () => {
          const job = await queue.get(id);
          return job?.status === 'failed' && job;
        });
        assert.equal(failed.attempts, 3);
        assert.match(failed.lastError ?? '', /engine exploded 3/);
        assert.equal(failed.leaseUntil, undefined);
        await sleep(150);
        assert.equal(calls, 3);
      } finally {
        await worker.stop();
      }
    });

    test('a PermanentJobError fails the job without retrying', async () => {
      const name = newQueueName();
      const { id } = await queue.enqueue(name, {}, { maxAttempts: 5 });
      let calls = 0;
      const errors: unknown[] = [];
      const worker = queue.work(
        name,
        async () => {
          calls++;
          throw new PermanentJobError('text is empty');
        },
        { pollMs: 20, backoff: () => 0, onError: (e) => errors.push(e) },
      );
      try {
        const failed = await waitFor('job failed', async () => {
          const job = await queue.get(id);
          return job?.status === 'failed' && job;
        });
        assert.equal(failed.attempts, 1);
        assert.match(failed.lastError ?? '', /PermanentJobError: text is empty/);
        await sleep(100);
        assert.equal(calls, 1);
        assert.ok(errors[0] instanceof PermanentJobError);
      } finally {
        await worker.stop();
      }
    });

    test('progress is recorded while the job runs', async () => {
      const name = newQueueName();
      const { id } = await queue.enqueue(name, {});
      const reported = [deferred(), deferred(), deferred()];
      const proceed = [deferred(), deferred(), deferred()];
      const worker = queue.work(name, async (_job, ctx) => {
        await ctx.progress(30);
        reported[0].resolve();
        await proceed[0].promise;
        await ctx.progress(70.6);
        reported[1].resolve();
        await proceed[1].promise;
        await ctx.progress(-5);
        reported[2].resolve();
        await proceed[2].promise;
      });
      try {
        const expected = [30, 71, 0];
        for (let i = 0; i < expected.length; i++) {
          await reported[i].promise;
          const job = await queue.get(id);
          assert.equal(job?.status, 'running');
          assert.equal(job?.progress, expected[i]);
          proceed[i].resolve();
        }
        const done = await waitFor('job done', async () => {
          const job = await queue.get(id);
          return job?.status === 'done' && job;
        });
        assert.equal(done.progress, 100);
        assert.equal(done.result, undefined);
      } finally {
        await worker.stop();
      }
    });

    test('a job whose worker died is claimed again once its lease expires', async () => {
      const name = newQueueName();
      const dead = await queue.enqueue(name, { who: 'dead' });
      const alive = await queue.enqueue(name, { who: 'alive' });
      // Two claims made by workers elsewhere: one died (lease over), one is still beating.
      await store.db
        .updateTable('jobs')
        .set({ status: 'running', attempts: 1, lease_until: new Date(Date.now() - 1000).toISOString() })
        .where('id', '=', dead.id)
        .execute();
      await store.db
        .updateTable('jobs')
        .set({ status: 'running', attempts: 1, lease_until: new Date(Date.now() + 60_000).toISOString() })
        .where('id', '=', alive.id)
        .execute();
      const ran: string[] = [];
      const worker = queue.work(name, async (job) => void ran.push(job.id), { pollMs: 20 });
      try {
        const reclaimed = await waitFor('reclaimed job done', async () => {
          const job = await queue.get(dead.id);
          return job?.status === 'done' && job;
        });
        assert.equal(reclaimed.attempts, 2);
        await sleep(150);
        assert.deepEqual(ran, [dead.id]);
        const stillLeased = await queue.get(alive.id);
        assert.equal(stillLeased?.status, 'running');
        assert.equal(stillLeased?.attempts, 1);
      } finally {
        await worker.stop();
      }
    });

    test('a job whose last allowed attempt died is failed, not run again', async () => {
      const name = newQueueName();
      const { id } = await queue.enqueue(name, {}, { maxAttempts: 3 });
      await store.db
        .updateTable('jobs')
        .set({ status: 'running', attempts: 3, lease_until: new Date(Date.now() - 1000).toISOString() })
        .where('id', '=', id)
        .execute();
      let calls = 0;
      const worker = queue.work(name, async () => void calls++, { pollMs: 20 });
      try {
        const failed = await waitFor('job failed', async () => {
          const job = await queue.get(id);
          return job?.status === 'failed' && job;
        });
        assert.equal(failed.attempts, 3);
        assert.equal(failed.lastError, 'lease expired after 3 attempts');
        assert.equal(calls, 0);
      } finally {
        await worker.stop();
      }
    });

    test('the heartbeat keeps a long job leased to its worker', async () => {
      const name = newQueueName();
      const { id } = await queue.enqueue(name, {});
      const runs: string[] = [];
      const options = { leaseMs: 300, pollMs: 20 };
      const handler = async (job: Job) => {
        runs.push(job.id);
        await sleep(1200);
      };
      const first = queue.work(name, handler, options);
      const second = queue.work(name, handler, options);
      try {
        const done = await waitFor('job done', async () => {
          const job = await queue.get(id);
          return job?.status === 'done' && job;
        });
        assert.equal(done.attempts, 1);
        assert.deepEqual(runs, [id]);
      } finally {
        await Promise.all([first.stop(), second.stop()]);
      }
    });

    test('a worker that lost its lease is told so and cannot overwrite the newer claim', async () => {
      const name = newQueueName();
      const { id } = await queue.enqueue(name, {});
      const started = deferred();
      const handlerDone = deferred<boolean>();
      const errors: unknown[] = [];
      const worker = queue.work(
        name,
        async (_job, ctx) => {
          started.resolve();
          const aborted = await Promise.race([
            new Promise<boolean>((resolve) => ctx.signal.addEventListener('abort', () => resolve(true))),
            deadline(5000).then(() => false),
          ]);
          handlerDone.resolve(aborted);
          return 'stale result';
        },
        { leaseMs: 300, pollMs: 20, onError: (e) => errors.push(e) },
      );
      try {
        await started.promise;
        // Another worker claimed it meanwhile (as after a long event-loop stall).
        await store.db
          .updateTable('jobs')
          .set((eb) => ({ attempts: eb('attempts', '+', 1), lease_until: new Date(Date.now() + 60_000).toISOString() }))
          .where('id', '=', id)
          .execute();
        assert.equal(await handlerDone.promise, true, 'the handler was not aborted');
        await waitFor('lost-lease report', async () => errors.length > 0);
        const job = await queue.get(id);
        assert.equal(job?.status, 'running');
        assert.equal(job?.attempts, 2);
        assert.equal(job?.result, undefined);
        assert.match(String(errors[0]), /lease/);
      } finally {
        await worker.stop();
      }
    });

    test('two workers run each of 200 jobs exactly once', async () => {
      const name = newQueueName();
      const secondStore = openStore(database.url);
      const secondQueue = new SqlJobQueue(secondStore);
      try {
        const ids: string[] = [];
        for (let i = 0; i < 200; i++) ids.push((await queue.enqueue(name, { i })).id);
        const runs = new Map<string, number>();
        const inFlight = new Set<string>();
        let overlaps = 0;
        const byWorker = [0, 0];
        const handlerOf = (worker: number) => async (job: Job) => {
          if (inFlight.has(job.id)) overlaps++;
          inFlight.add(job.id);
          runs.set(job.id, (runs.get(job.id) ?? 0) + 1);
          byWorker[worker]++;
          await sleep(Math.random() * 4);
          inFlight.delete(job.id);
        };
        const options = { concurrency: 4, pollMs: 20 };
        const workers = [queue.work(name, handlerOf(0), options), secondQueue.work(name, handlerOf(1), options)];
        try {
          await waitFor('200 jobs done', async () => (await queue.counts(name)).done === 200, 20_000);
        } finally {
          await Promise.all(workers.map((w) => w.stop()));
        }
        assert.equal(overlaps, 0);
        assert.equal(runs.size, 200);
        for (const id of ids) assert.equal(runs.get(id), 1, `job ${id} ran ${runs.get(id) ?? 0} times`);
        assert.ok(byWorker[0] > 0 && byWorker[1] > 0, `work was not shared: ${byWorker}`);
        assert.deepEqual(await queue.counts(name), { queued: 0, running: 0, done: 200, failed: 0 });
      } finally {
        await secondQueue.close();
        await secondStore.close();
      }
    });

    test('get with an app code does not see other apps\' jobs', async () => {
      const name = newQueueName();
      const { id } = await queue.enqueue(name, { secret: 1 }, { appCode: 'app-a' });
      assert.equal((await queue.get(id, 'app-a'))?.id, id);
      assert.equal(await queue.get(id, 'app-b'), undefined);
      assert.equal((await queue.get(id))?.appCode, 'app-a');
      assert.equal(await queue.get('no-such-job'), undefined);
    });

    test('stop waits for running handlers and claims nothing afterwards', async () => {
      const name = newQueueName();
      const { id } = await queue.enqueue(name, {});
      const started = deferred();
      let finished = false;
      const worker = queue.work(
        name,
        async () => {
          started.resolve();
          await sleep(300);
          finished = true;
          return 'finished';
        },
        { pollMs: 20 },
      );
      await started.promise;
      await worker.stop();
      assert.equal(finished, true);
      assert.equal((await queue.get(id))?.status, 'done');

      const later = await queue.enqueue(name, {});
      await sleep(150);
      assert.equal((await queue.get(later.id))?.status, 'queued');
    });
  });
}

test('default backoff doubles from 1 s, is capped at 5 min and adds at most 10% jitter', () => {
  const expected = [1000, 2000, 4000, 8000];
  for (let attempt = 1; attempt <= expected.length; attempt++) {
    const delay = exponentialBackoff(attempt);
    assert.ok(delay >= expected[attempt - 1] && delay <= expected[attempt - 1] * 1.1, `attempt ${attempt}: ${delay}`);
  }
  const capped = exponentialBackoff(40);
  assert.ok(capped >= 300_000 && capped <= 330_000, `capped: ${capped}`);
});

jobQueueSuite('SQLite', sqliteDatabase);
jobQueueSuite('PostgreSQL', postgresDatabase);
