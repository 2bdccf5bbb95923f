/**
 * A worker process for jobs-crash.test.ts to kill -9, on BullMQ: it claims
 * jobs on the given queue, reports each claim on stdout, and never finishes one.
 * Usage: jobs-crash-worker-bullmq.ts <redisUrl> <prefix> <queue> <leaseMs|default>
 * (test/support/job-crash-worker.ts is its SQL twin.)
 */
import { BullJobQueue } from '../../../src/platform/jobs/bullmq-queue.js';
import { endlessJob } from '../endless-job.js';

const [redisUrl, prefix, queueName, leaseMs] = process.argv.slice(2);
if (!redisUrl || !prefix || !queueName || !leaseMs) {
  console.error('usage: jobs-crash-worker-bullmq.ts <redisUrl> <prefix> <queue> <leaseMs>');
  process.exit(2);
}

const queue = new BullJobQueue({ url: redisUrl, prefix });
queue.work(queueName, endlessJob, { concurrency: 4, leaseMs: leaseMs === 'default' ? undefined : Number(leaseMs) });
