/**
 * A worker process for jobs-crash.test.ts to kill -9: it claims jobs on the
 * given queue, reports each claim on stdout, and never finishes one.
 * Usage: job-crash-worker.ts <databaseUrl> <queue> <leaseMs>
 */
import { openStore } from '../../src/platform/db/database.js';
import { SqlJobQueue } from '../../src/platform/jobs/sql-queue.js';

const [databaseUrl, queueName, leaseMs] = process.argv.slice(2);
if (!databaseUrl || !queueName || !leaseMs) {
  console.error('usage: job-crash-worker.ts <databaseUrl> <queue> <leaseMs>');
  process.exit(2);
}

const queue = new SqlJobQueue(openStore(databaseUrl));
queue.work(
  queueName,
  async (job, ctx) => {
    await ctx.progress(10);
    process.stdout.write(`claimed ${job.id}\n`);
    // Keep writing heartbeats and progress until the test kills this process.
    for (let pct = 11; ; pct = pct < 90 ? pct + 1 : 11) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      await ctx.progress(pct);
    }
  },
  { concurrency: 4, leaseMs: Number(leaseMs), pollMs: 50 },
);
