import type { JobHandler } from '../../src/platform/jobs/queue.js';
import { sleep } from './wait.js';

/**
 * The handler of the kill -9 worker processes: reports each claim on stdout
 * and never finishes, writing progress (and so heartbeats) until it is killed.
 */
export const endlessJob: JobHandler = async (job, ctx) => {
  await ctx.progress(10);
  process.stdout.write(`claimed ${job.id}\n`);
  for (let pct = 11; ; pct = pct < 90 ? pct + 1 : 11) {
    await sleep(25);
    await ctx.progress(pct);
  }
};
