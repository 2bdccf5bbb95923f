/**
 * The engines the job queue suites run on: the SQL table on SQLite and on
 * PostgreSQL, and BullMQ on the Redis at 127.0.0.1:6379. A suite that cannot
 * reach PostgreSQL or Redis fails; it never skips.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker as BullWorker } from 'bullmq';
import { Redis } from 'ioredis';
import { migrations } from '../../../src/services.js';
import { migrateToLatest, openStore } from '../../../src/platform/db/database.js';
import { BullJobQueue } from '../../../src/platform/jobs/bullmq-queue.js';
import { SqlJobQueue } from '../../../src/platform/jobs/sql-queue.js';
import { createTestDatabase, type TestDatabase } from '../../../fixtures/servers/postgres.js';
import type { JobQueueBackend, JobQueueHarness } from './job-queue-suite.js';

const SQL_CRASH_WORKER = fileURLToPath(new URL('../job-crash-worker.ts', import.meta.url));
const BULL_CRASH_WORKER = fileURLToPath(new URL('./jobs-crash-worker-bullmq.ts', import.meta.url));

export const REDIS_URL = process.env.SAOLA_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export async function sqliteDatabase(): Promise<TestDatabase> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'saola-jobs-'));
  return { url: `sqlite:${path.join(dir, 'jobs.db')}`, drop: () => fs.rm(dir, { recursive: true, force: true }) };
}

export function sqlHarness(name: string, createDatabase: () => Promise<TestDatabase>): JobQueueHarness {
  return {
    name,
    async open(): Promise<JobQueueBackend> {
      const database = await createDatabase();
      const store = openStore(database.url);
      await migrateToLatest(store, migrations);
      const queue = new SqlJobQueue(store);
      return {
        queue,
        async openPeer() {
          const peerStore = openStore(database.url);
          const peer = new SqlJobQueue(peerStore);
          return {
            queue: peer,
            async close() {
              await peer.close();
              await peerStore.close();
            },
          };
        },
        async claimAndDie(queueName, leaseMs) {
          const claimed = await queue.claim(queueName, leaseMs);
          if (!claimed) throw new Error(`nothing to claim on ${queueName}`);
          return claimed.id;
        },
        async takeOverClaim(_queueName, id) {
          await store.db
            .updateTable('jobs')
            .set((eb) => ({ attempts: eb('attempts', '+', 1), lease_until: new Date(Date.now() + 60_000).toISOString() }))
            .where('id', '=', id)
            .execute();
        },
        crashWorkerArgs: (queueName, leaseMs) => [SQL_CRASH_WORKER, database.url, queueName, String(leaseMs)],
        async close() {
          await queue.close();
          await store.close();
          await database.drop();
        },
      };
    },
  };
}

export const sqliteHarness = sqlHarness('SqlJobQueue on SQLite', sqliteDatabase);
export const postgresHarness = sqlHarness('SqlJobQueue on PostgreSQL', createTestDatabase);

/** A Redis connection that is known to answer, or an error naming the URL. */
export async function connectRedis(): Promise<Redis> {
  const client = new Redis(REDIS_URL, { maxRetriesPerRequest: null, lazyConnect: true, retryStrategy: () => null });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    client.disconnect();
    throw new Error(`Redis is required for this suite at ${REDIS_URL}: ${(error as Error).message}`);
  }
  return client;
}

/** A key prefix no other test run uses. */
export const newRedisPrefix = () => `saola-test-${randomUUID().slice(0, 8)}`;

/** Deletes every key under `prefix`. */
export async function removeRedisPrefix(client: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    if (keys.length > 0) await client.unlink(...keys);
    cursor = next;
  } while (cursor !== '0');
}

export const bullHarness: JobQueueHarness = {
  name: 'BullJobQueue on Redis',
  async open(): Promise<JobQueueBackend> {
    const admin = await connectRedis();
    const prefix = newRedisPrefix();
    const queue = new BullJobQueue({ url: REDIS_URL, prefix });
    return {
      queue,
      async openPeer() {
        const peer = new BullJobQueue({ url: REDIS_URL, prefix });
        return { queue: peer, close: () => peer.close() };
      },
      async claimAndDie(queueName, leaseMs) {
        // A worker that fetches by hand never renews its lock: closing it leaves the claim behind.
        const connection = admin.duplicate();
        const dying = new BullWorker(queueName, null, { connection, prefix, lockDuration: leaseMs, autorun: false });
        try {
          const job = await dying.getNextJob(randomUUID());
          if (!job?.id) throw new Error(`nothing to claim on ${queueName}`);
          return job.id;
        } finally {
          await dying.close();
          connection.disconnect();
        }
      },
      async takeOverClaim(queueName, id) {
        // What another worker's claim leaves: its lock token, and one more start.
        await admin.set(`${prefix}:${queueName}:${id}:lock`, randomUUID(), 'PX', 60_000);
        await admin.hincrby(`${prefix}:${queueName}:${id}`, 'ats', 1);
      },
      crashWorkerArgs: (queueName, leaseMs) => [BULL_CRASH_WORKER, REDIS_URL, prefix, queueName, String(leaseMs)],
      async close() {
        await queue.close();
        await removeRedisPrefix(admin, prefix);
        admin.disconnect();
      },
    };
  },
};
