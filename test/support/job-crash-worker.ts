/**
 * A worker process for jobs-crash.test.ts to kill -9: it claims jobs on the
 * given queue, reports each claim on stdout, and never finishes one.
 * Usage: job-crash-worker.ts <databaseUrl> <queue> <leaseMs|default>
 */
import { openStore } from '../../src/platform/db/database.js';
import { SqlJobQueue } from '../../src/platform/jobs/sql-queue.js';
import { endlessJob } from './endless-job.js';

const [databaseUrl, queueName, leaseMs] = process.argv.slice(2);
if (!databaseUrl || !queueName || !leaseMs) {
  console.error('usage: job-crash-worker.ts <databaseUrl> <queue> <leaseMs>');
  process.exit(2);
}

const queue = new SqlJobQueue(openStore(databaseUrl));
queue.work(queueName, endlessJob, { concurrency: 4, leaseMs: leaseMs === 'default' ? undefined : Number(leaseMs), pollMs: 50 });
