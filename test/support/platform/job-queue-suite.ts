/**
 * The behaviour every JobQueue must have, run on each implementation: the SQL
 * table on SQLite and PostgreSQL (test/system/integration/jobs.test.ts) and BullMQ on
 * Redis (test/system/integration/jobs-bullmq.test.ts).
 */
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PermanentJobError, type Job, type JobQueue, type WorkOptions } from '../../../src/platform/jobs/queue.js';
import { sleep } from '../wait.js';

/** One engine's queue plus the few things only the engine itself can fake. */
export interface JobQueueBackend {
  queue: JobQueue;
  /** Another JobQueue on the same engine, as another process would open it. */
  openPeer(): Promise<{ queue: JobQueue; close(): Promise<void> }>;
  /**
   * A worker elsewhere claims the next due job of `queue` with a lease of
   * `leaseMs`, then dies holding it. Answers the claimed job's id.
   */
  claimAndDie(queue: string, leaseMs: number): Promise<string>;
  /** Another worker takes over the running claim on job `id` (as after a long stall of its holder). */
  takeOverClaim(queue: string, id: string): Promise<void>;
  /**
   * The script (a TypeScript file) and its arguments that start a worker process on this
   * engine which claims jobs of `queue`, prints `claimed <id>` for each and
   * never finishes one (for the kill -9 tests in jobs-crash.test.ts); 'default'
   * leaves the lease to the queue.
   */
  crashWorkerArgs(queue: string, leaseMs: number | 'default'): string[];
  /** Closes the queue and removes everything the backend created. */
  close(): Promise<void>;
}

export interface JobQueueHarness {
  /** Shown in the test names. */
  name: string;
  open(): Promise<JobQueueBackend>;
}

export { sleep };
/** For the losing side of a race: does not keep the test process alive. */
export const deadline = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

export async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
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

export function jobQueueSuite(harness: JobQueueHarness): void {
  describe(`JobQueue conformance: ${harness.name}`, () => {
    let backend: JobQueueBackend;
    let queue: JobQueue;

    before(async () => {
      backend = await harness.open();
      queue = backend.queue;
    });

    after(async () => {
      await backend?.close();
    });

    const finished = (id: string, status: 'done' | 'failed') =>
      waitFor(`job ${status}`, async () => {
        const job = await queue.get(id);
        return job?.status === status && job;
      });

    test('runs a queued job once and stores its result', async () => {
      const name = newQueueName();
      const { id, created } = await queue.enqueue(name, { n: 21 }, { appCode: 'app1' });
      assert.equal(created, true);
      const queued = await queue.get(id);
      assert.equal(queued?.status, 'queued');
      assert.equal(queued?.attempts, 0);
      assert.equal(queued?.queue, name);
      assert.equal(queued?.maxAttempts, 5);
      assert.deepEqual(queued?.payload, { n: 21 });

      const seen: Job<{ n: number }>[] = [];
      const worker = queue.work<{ n: number }>(name, async (job) => {
        seen.push(job);
        return { doubled: job.payload.n * 2 };
      });
      try {
        const done = await finished(id, 'done');
        assert.deepEqual(done.result, { doubled: 42 });
        assert.equal(done.attempts, 1);
        assert.equal(done.progress, 100);
        assert.equal(done.leaseUntil, undefined);
        assert.equal(done.lastError, undefined);
        assert.equal(done.appCode, 'app1');
        assert.ok(done.updatedTime.getTime() >= done.createdTime.getTime());
        assert.equal(seen.length, 1);
        assert.equal(seen[0].id, id);
        assert.equal(seen[0].status, 'running');
        assert.equal(seen[0].attempts, 1);
        assert.ok(seen[0].leaseUntil && seen[0].leaseUntil.getTime() > Date.now() - 1000);
        assert.deepEqual(await queue.counts(name), { queued: 0, running: 0, done: 1, failed: 0 });
      } finally {
        await worker.stop();
      }
    });

    test('payloads and results round-trip as JSON; undefined stays undefined', async () => {
      const name = newQueueName();
      const payloads: unknown[] = [null, 'text', 7, [1, { a: 'ä' }], { nested: { list: [true, false] } }];
      const ids: string[] = [];
      for (const payload of payloads) ids.push((await queue.enqueue(name, payload)).id);
      const nothing = await queue.enqueue(name, { give: 'undefined' });
      const worker = queue.work(name, async (job) => ((job.payload as { give?: string } | null)?.give === 'undefined' ? undefined : { echo: job.payload }));
      try {
        for (let i = 0; i < ids.length; i++) {
          const done = await finished(ids[i], 'done');
          assert.deepEqual(done.payload, payloads[i]);
          assert.deepEqual(done.result, { echo: payloads[i] });
        }
        assert.equal((await finished(nothing.id, 'done')).result, undefined);
      } finally {
        await worker.stop();
      }
    });

    test('bad enqueue options are refused', async () => {
      await assert.rejects(queue.enqueue('', {}), TypeError);
      await assert.rejects(queue.enqueue(newQueueName(), {}, { maxAttempts: 0 }), TypeError);
      await assert.rejects(queue.enqueue(newQueueName(), {}, { maxAttempts: 1.5 }), TypeError);
      assert.throws(() => queue.work(newQueueName(), async () => {}, { concurrency: 0 }), TypeError);
    });

    test('queue names may hold any characters', async () => {
      const name = `tts:synthesis/${randomUUID()}%3A ä`;
      const { id } = await queue.enqueue(name, { ok: true });
      const worker = queue.work(name, async () => 'ran');
      try {
        const done = await finished(id, 'done');
        assert.equal(done.queue, name);
        assert.equal(done.result, 'ran');
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
        await sleep(100); // the worker's first look found nothing: it now waits
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
      const { id } = await queue.enqueue(name, {}, { runAt });
      const waiting = await queue.get(id);
      assert.equal(waiting?.status, 'queued');
      assert.ok(Math.abs(waiting.runAt.getTime() - runAt.getTime()) < 50, `runAt ${waiting.runAt.toISOString()}`);
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
      const noApp = await queue.enqueue(name, {}, { key: 'order-7' });
      for (const other of [otherKey, otherQueue, otherApp, noApp]) {
        assert.equal(other.created, true);
        assert.notEqual(other.id, first.id);
      }

      const racing = await Promise.all(Array.from({ length: 8 }, (_, i) => queue.enqueue(name, { i }, { key: 'burst', appCode: 'app1' })));
      assert.equal(racing.filter((r) => r.created).length, 1);
      assert.equal(new Set(racing.map((r) => r.id)).size, 1);
      assert.equal((await queue.counts(name)).queued, 5);
    });

    test('a finished keyed job still answers its key', async () => {
      const name = newQueueName();
      const first = await queue.enqueue(name, {}, { key: 'once', appCode: 'app1' });
      const worker = queue.work(name, async () => 'done once');
      try {
        await finished(first.id, 'done');
      } finally {
        await worker.stop();
      }
      assert.deepEqual(await queue.enqueue(name, {}, { key: 'once', appCode: 'app1' }), { id: first.id, created: false });
      assert.deepEqual(await queue.counts(name), { queued: 0, running: 0, done: 1, failed: 0 });
    });

    test('retries a failing job with backoff until it succeeds', async () => {
      const name = newQueueName();
      const { id } = await queue.enqueue(name, {});
      const claimedAt: number[] = [];
      const backoffAsked: number[] = [];
      let retryState: Job | undefined;
      const worker = queue.work(
        name,
        async (job) => {
          claimedAt.push(Date.now());
          if (job.attempts === 2) retryState = job;
          if (job.attempts < 3) throw new Error(`flaky attempt ${job.attempts}`);
          return 'third time lucky';
        },
        { ...quiet, pollMs: 20, backoff: (attempt) => (backoffAsked.push(attempt), 150) },
      );
      try {
        const done = await finished(id, 'done');
        assert.equal(done.attempts, 3);
        assert.equal(done.result, 'third time lucky');
        assert.equal(done.lastError, undefined);
        assert.deepEqual(backoffAsked, [1, 2]);
        assert.equal(claimedAt.length, 3);
        for (let i = 1; i < claimedAt.length; i++) {
          assert.ok(claimedAt[i] - claimedAt[i - 1] >= 140, `retry ${i} came after ${claimedAt[i] - claimedAt[i - 1]} ms`);
        }
        assert.equal(retryState?.lastError, 'Error: flaky attempt 1', 'a retried job shows the last error');
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
        const failed = await finished(id, 'failed');
        assert.equal(failed.attempts, 3);
        assert.equal(failed.lastError, 'Error: engine exploded 3');
        assert.equal(failed.leaseUntil, undefined);
        assert.equal(failed.result, undefined);
        await sleep(150);
        assert.equal(calls, 3);
        assert.deepEqual(await queue.counts(name), { queued: 0, running: 0, done: 0, failed: 1 });
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
        const failed = await finished(id, 'failed');
        assert.equal(failed.attempts, 1);
        assert.equal(failed.lastError, 'PermanentJobError: text is empty');
        await sleep(100);
        assert.equal(calls, 1);
        assert.ok(errors[0] instanceof PermanentJobError);
      } finally {
        await worker.stop();
      }
    });

    test('a long error message is cut', async () => {
      const name = newQueueName();
      const { id } = await queue.enqueue(name, {}, { maxAttempts: 1 });
      const worker = queue.work(
        name,
        async () => {
          throw new Error('x'.repeat(10_000));
        },
        quiet,
      );
      try {
        const failed = await finished(id, 'failed');
        assert.equal(failed.lastError?.length, 2003);
        assert.ok(failed.lastError?.startsWith('Error: xxx') && failed.lastError.endsWith('...'));
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
          assert.ok(job.leaseUntil && job.leaseUntil.getTime() > Date.now());
          proceed[i].resolve();
        }
        const done = await finished(id, 'done');
        assert.equal(done.progress, 100);
        assert.equal(done.result, undefined);
      } finally {
        await worker.stop();
      }
    });

    test('a job whose worker died is claimed again once its lease expires', async () => {
      const name = newQueueName();
      const dead = await queue.enqueue(name, { who: 'dead' });
      assert.equal(await backend.claimAndDie(name, 200), dead.id);
      const alive = await queue.enqueue(name, { who: 'alive' });
      assert.equal(await backend.claimAndDie(name, 60_000), alive.id);
      const orphan = await queue.get(dead.id);
      assert.equal(orphan?.status, 'running');
      assert.equal(orphan?.attempts, 1);
      assert.ok(orphan.leaseUntil);

      const ran: string[] = [];
      const startedAt = new Map<string, number>();
      const worker = queue.work(
        name,
        async (job) => {
          ran.push(job.id);
          startedAt.set(job.id, Date.now());
        },
        { pollMs: 20, leaseMs: 300 },
      );
      try {
        const reclaimed = await finished(dead.id, 'done');
        assert.equal(reclaimed.attempts, 2);
        assert.ok(startedAt.get(dead.id)! >= orphan.leaseUntil.getTime(), 'reclaimed before the lease ended');
        await sleep(300);
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
      const { id } = await queue.enqueue(name, {}, { maxAttempts: 1 });
      assert.equal(await backend.claimAndDie(name, 100), id);
      let calls = 0;
      const worker = queue.work(name, async () => void calls++, { pollMs: 20, leaseMs: 300 });
      try {
        const failed = await finished(id, 'failed');
        assert.equal(failed.attempts, 1);
        assert.equal(failed.lastError, 'lease expired after 1 attempts');
        assert.equal(calls, 0);
      } finally {
        await worker.stop();
      }
    });

    test('the heartbeat keeps a long job leased to its worker', async () => {
      const name = newQueueName();
      const { id } = await queue.enqueue(name, {});
      const runs: string[] = [];
      // Three leases long. A lease of 800 ms (a beat every 267 ms) outlasts the event-loop stalls of a loaded
      // 2-core machine running test files side by side; at 300 ms one stall let the second worker claim the job.
      const options = { leaseMs: 800, pollMs: 20 };
      const handler = async (job: Job) => {
        runs.push(job.id);
        await sleep(2400);
      };
      const first = queue.work(name, handler, options);
      const second = queue.work(name, handler, options);
      try {
        const done = await finished(id, 'done');
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
        await backend.takeOverClaim(name, id);
        assert.equal(await handlerDone.promise, true, 'the handler was not aborted');
        await waitFor('lost-lease report', async () => errors.length > 0);
        await sleep(100); // give a stale completion the chance to land
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
      const peer = await backend.openPeer();
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
        const workers = [queue.work(name, handlerOf(0), options), peer.queue.work(name, handlerOf(1), options)];
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
        assert.equal((await peer.queue.get(ids[0]))?.status, 'done', 'the peer sees the same jobs');
      } finally {
        await peer.close();
      }
    });

    test("get with an app code does not see other apps' jobs", async () => {
      const name = newQueueName();
      const { id } = await queue.enqueue(name, { secret: 1 }, { appCode: 'app-a' });
      assert.equal((await queue.get(id, 'app-a'))?.id, id);
      assert.equal(await queue.get(id, 'app-b'), undefined);
      assert.equal((await queue.get(id))?.appCode, 'app-a');
      const unowned = await queue.enqueue(name, {});
      assert.equal((await queue.get(unowned.id))?.appCode, undefined);
      assert.equal(await queue.get(unowned.id, 'app-a'), undefined);
      assert.equal(await queue.get('no-such-job'), undefined);
      assert.equal(await queue.get(randomUUID(), 'app-a'), undefined);
    });

    test('stop waits for running handlers and claims nothing afterwards', async () => {
      const name = newQueueName();
      const { id } = await queue.enqueue(name, {});
      const started = deferred();
      let finishedRun = false;
      const worker = queue.work(
        name,
        async () => {
          started.resolve();
          await sleep(300);
          finishedRun = true;
          return 'finished';
        },
        { pollMs: 20 },
      );
      await started.promise;
      await worker.stop();
      assert.equal(finishedRun, true);
      assert.equal((await queue.get(id))?.status, 'done');

      const later = await queue.enqueue(name, {});
      await sleep(150);
      assert.equal((await queue.get(later.id))?.status, 'queued');
    });
  });
}
