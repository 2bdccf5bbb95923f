import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { PlatformError } from '../../../src/platform/http/errors.js';
import { PoolTimeoutError, WorkerLoadError, WorkerPool } from '../../../src/platform/pool/index.js';
import { sleep } from '../../support/wait.js';

// Named as compiled code names it; the pool finds the .ts source under tsx.
const filename = new URL('../../support/pool-task.js', import.meta.url);
type Task = { ms: number; fail?: boolean; blocked?: boolean };
type Result = { threadId: number; sum: number; immediatesRun: number };

// Time limits here cover a new thread's start-up (loading the worker under tsx), which takes seconds on a loaded
// machine: they are hang detectors, except in the time-limit test.
const pool = new WorkerPool<Task, Result>({ filename, name: 'test', threads: 2, maxQueue: 2, timeoutMs: 30_000 });
after(() => pool.close());

test('runs tasks on worker threads, not the main thread', async () => {
  const results = await Promise.all([pool.run({ ms: 50 }), pool.run({ ms: 50 })]);
  for (const r of results) {
    assert.ok(r.threadId > 0, 'ran on a worker thread');
    assert.ok(r.sum > 0);
  }
});

test("a worker's event loop turns between tasks, so callbacks it queued (native memory's finalisers) run", async () => {
  const one = new WorkerPool<Task, Result>({ filename, name: 'one', threads: 1, maxQueue: 4, timeoutMs: 10_000 });
  try {
    for (let i = 0; i < 4; i++) await one.run({ ms: 5 });
    // Idle, the worker's loop turns; blocked in Atomics.wait (piscina's default) it never does and this stays 0.
    await sleep(100);
    assert.equal((await one.run({ ms: 5 })).immediatesRun, 4);
  } finally {
    await one.close();
  }
});

test('the event loop stays free while workers compute', async () => {
  // A timer of the main thread fires while the 300 ms task is still computing (on a loaded machine the timer may
  // fire late, so the check is that the task has not settled yet, not a time bound).
  let settled = false;
  const work = pool.run({ ms: 300 }).finally(() => (settled = true));
  await sleep(20);
  assert.ok(!settled, 'a timer fired while the task was running');
  await work;
});

test('a full queue answers busy at once', async () => {
  const running = [pool.run({ ms: 400 }), pool.run({ ms: 400 }), pool.run({ ms: 400 }), pool.run({ ms: 400 })];
  await sleep(50);
  await assert.rejects(pool.run({ ms: 10 }), (err: unknown) => err instanceof PlatformError && err.condition === 'busy');
  await Promise.all(running);
});

test('a task error reaches the caller', async () => {
  await assert.rejects(pool.run({ ms: 0, fail: true }), /failed on purpose/);
});

test("a task past its time limit is abandoned, and its thread's end is reported for clean-up", async () => {
  const ended: number[] = [];
  // The limit must cover a new thread's start-up (loading the worker under tsx: from a fraction of a second to
  // many seconds on a loaded machine), since the first task and the one after the abandoned task each start a
  // thread: it is 2 s, or three times what a thread's start-up took just now. The abandoned task holds its
  // thread far past it, without computing.
  const probe = new WorkerPool<Task, Result>({ filename, name: 'probe', threads: 1, maxQueue: 1, timeoutMs: 120_000 });
  const probeStarted = performance.now();
  await probe.run({ ms: 1 }).finally(() => probe.close());
  const limit = Math.max(2_000, Math.ceil(3 * (performance.now() - probeStarted)));
  const quick = new WorkerPool<Task, Result>({ filename, name: 'quick', threads: 1, maxQueue: 1, timeoutMs: limit, onThreadEnd: (id) => ended.push(id) });
  try {
    const first = await quick.run({ ms: 10 });
    await assert.rejects(quick.run({ ms: 120_000, blocked: true }), (err: unknown) => err instanceof PoolTimeoutError);
    assert.deepEqual(ended, [first.threadId], 'the thread running the abandoned task was ended');
    const next = await quick.run({ ms: 10 });
    assert.notEqual(next.threadId, first.threadId);
  } finally {
    await quick.close();
  }
  assert.equal(ended.length, 2, 'close ends the replacement thread too');
});

test('a worker module that cannot load fails its tasks without crashing the process', async () => {
  const broken = new WorkerPool<Task, Result>({
    filename: new URL('../../support/no-such-worker.js', import.meta.url),
    name: 'broken',
    threads: 1,
    maxQueue: 1,
    // A hang detector: failing to load takes seconds under tsx on a loaded machine.
    timeoutMs: 60_000,
  });
  try {
    await assert.rejects(broken.run({ ms: 1 }), (err: unknown) => err instanceof WorkerLoadError && /failed to start/.test(err.message));
  } finally {
    await broken.close();
  }
});

test('a queue short in tasks but long in time answers busy: the expected wait is bounded', async () => {
  // One thread, room for 50 waiting tasks, but at most 1 s of expected wait for tasks of ~400 ms.
  const slow = new WorkerPool<Task, Result>({ filename, name: 'slow', threads: 1, maxQueue: 50, maxWaitMs: 1000, timeoutMs: 30_000 });
  try {
    await slow.run({ ms: 10 }); // the thread is up
    // The run time is learnt from tasks that did not wait. The first task's time includes the thread's start-up
    // (loading the worker under tsx: seconds on a loaded machine), which the moving average forgets by a fifth a
    // task: a few tasks of 400 ms, more while the start-up still weighs the average past a second.
    let runs = 0;
    while (runs < 4 || (slow.stats().taskMs >= 1000 && runs < 20)) {
      await slow.run({ ms: 400 });
      runs++;
    }
    const learnt = slow.stats().taskMs;
    assert.ok(learnt >= 250 && learnt < 1000, `learnt ${learnt} ms after ${runs} tasks of 400 ms`);
    // run() takes or refuses a task before its first await, so the expected wait is current after each call.
    const accepted: Promise<Result>[] = [];
    let wait = 0;
    while (wait <= 1000 && accepted.length < 50) {
      wait = slow.stats().expectedWaitMs;
      accepted.push(slow.run({ ms: 400 }));
    }
    await assert.rejects(accepted.pop()!, (err: unknown) => err instanceof PlatformError && err.condition === 'busy');
    // The time bound refused, long before the 50 places of the queue were taken: one running plus at most 1 s of waiting.
    assert.ok(accepted.length >= 2 && accepted.length <= 1 + Math.ceil(1000 / learnt) + 1, `${accepted.length} accepted`);
    await Promise.all(accepted);
    // Drained, it takes work again.
    assert.equal(slow.stats().expectedWaitMs, 0);
    assert.ok((await slow.run({ ms: 10 })).threadId > 0);
  } finally {
    await slow.close();
  }
});

test('admits(n) says whether n tasks would all be taken, so a request is never half admitted', async () => {
  const two = new WorkerPool<Task, Result>({ filename, name: 'two', threads: 1, maxQueue: 2, timeoutMs: 10_000 });
  try {
    assert.ok(two.admits(3), 'one running and two waiting fit');
    assert.ok(!two.admits(4));
    const running = [two.run({ ms: 300 }), two.run({ ms: 300 })];
    assert.ok(two.admits(1));
    assert.ok(!two.admits(2), 'only one place left: a pair is refused whole');
    await Promise.all(running);
    assert.ok(two.admits(3));
  } finally {
    await two.close();
  }
});
