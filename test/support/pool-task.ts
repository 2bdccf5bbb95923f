import { threadId } from 'node:worker_threads';

/** A CPU-bound task for the worker-pool tests: busy-waits `ms`, then answers which thread ran it. */
export default async function poolTask(task: { ms: number; fail?: boolean }): Promise<{ threadId: number; sum: number }> {
  if (task.fail) throw new Error('task failed on purpose');
  const until = Date.now() + task.ms;
  let sum = 0;
  while (Date.now() < until) sum += Math.sqrt(sum + 1);
  return { threadId, sum };
}
