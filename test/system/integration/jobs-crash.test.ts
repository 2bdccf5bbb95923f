import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { bullHarness, postgresHarness, sqliteHarness } from '../../support/platform/job-queue-backends.js';
import { startClaimingWorker } from '../../support/platform/claiming-worker.js';
import type { JobQueueHarness } from '../../support/platform/job-queue-suite.js';
import { eventually, sleep } from '../../support/wait.js';

const LEASE_MS = 500;
const JOBS = 12;
/** The crash worker runs 4 at once. */
const CLAIMED_BEFORE_KILL = 4;

function crashSuite(harness: JobQueueHarness) {
  describe(`${harness.name} after kill -9`, () => {
    test('every job claimed by a killed worker is reclaimed and completed once', async () => {
      const engine = await harness.open();
      const { queue } = engine;
      try {
        const queueName = `crash-${randomUUID()}`;
        const ids: string[] = [];
        for (let i = 0; i < JOBS; i++) ids.push((await queue.enqueue(queueName, { i })).id);

        const crashWorker = await startClaimingWorker(engine.crashWorkerArgs(queueName, LEASE_MS), CLAIMED_BEFORE_KILL, 20_000);
        // Let it write heartbeats and progress for a while, then kill it mid-work.
        await sleep(200);
        crashWorker.child.kill('SIGKILL');
        assert.equal(await crashWorker.exited, 'SIGKILL');

        const orphaned = new Set(crashWorker.claimed);
        assert.equal(orphaned.size, CLAIMED_BEFORE_KILL);
        const leaseEnds = new Map<string, number>();
        for (const id of orphaned) {
          const job = await queue.get(id);
          assert.equal(job?.status, 'running');
          assert.equal(job?.attempts, 1);
          assert.ok(job.progress >= 10 && job.progress <= 90, `progress ${job.progress}`);
          assert.ok(job.leaseUntil);
          leaseEnds.set(id, job.leaseUntil.getTime());
        }
        assert.deepEqual(await queue.counts(queueName), {
          queued: JOBS - CLAIMED_BEFORE_KILL,
          running: CLAIMED_BEFORE_KILL,
          done: 0,
          failed: 0,
        });

        const runs = new Map<string, number>();
        const startedAt = new Map<string, number>();
        const worker = queue.work(
          queueName,
          async (job) => {
            runs.set(job.id, (runs.get(job.id) ?? 0) + 1);
            startedAt.set(job.id, Date.now());
            return { by: 'survivor' };
          },
          { concurrency: 4, leaseMs: LEASE_MS, pollMs: 50 },
        );
        try {
          let counts: unknown;
          await eventually(
            async () => {
              const now = await queue.counts(queueName);
              counts = now;
              return now.done >= JOBS;
            },
            { timeoutMs: 10_000, intervalMs: 25, what: () => `not all jobs done: ${JSON.stringify(counts)}` },
          );
        } finally {
          await worker.stop();
        }

        assert.deepEqual(await queue.counts(queueName), { queued: 0, running: 0, done: JOBS, failed: 0 });
        for (const id of ids) {
          const job = await queue.get(id);
          assert.equal(runs.get(id), 1, `job ${id} ran ${runs.get(id) ?? 0} times here`);
          assert.deepEqual(job?.result, { by: 'survivor' });
          assert.equal(job?.attempts, orphaned.has(id) ? 2 : 1);
          const leaseEnd = leaseEnds.get(id);
          // An orphan is only taken back after the dead worker's lease ran out.
          if (leaseEnd !== undefined) assert.ok(startedAt.get(id)! >= leaseEnd, `job ${id} reclaimed before its lease ended`);
        }
      } finally {
        await engine.close();
      }
    });
  });
}

crashSuite(sqliteHarness);
crashSuite(postgresHarness);
crashSuite(bullHarness);
