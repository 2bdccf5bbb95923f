import { threadId } from 'node:worker_threads';

let immediatesRun = 0;

/**
 * A CPU-bound task for the worker-pool tests: busy-waits `ms`, then answers
 * which thread ran it and how many of the earlier tasks' setImmediate
 * callbacks have run (native addons free their objects from such callbacks).
 * With `blocked`, the thread is held `ms` without computing (Atomics.wait): a
 * task that never ends in time, for the time-limit test, costs no CPU.
 */
export default async function poolTask(task: { ms: number; fail?: boolean; blocked?: boolean }): Promise<{ threadId: number; sum: number; immediatesRun: number }> {
  if (task.fail) throw new Error('task failed on purpose');
  setImmediate(() => immediatesRun++);
  if (task.blocked) {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, task.ms);
    return { threadId, sum: 0, immediatesRun };
  }
  const until = Date.now() + task.ms;
  let sum = 0;
  while (Date.now() < until) sum += Math.sqrt(sum + 1);
  return { threadId, sum, immediatesRun };
}
