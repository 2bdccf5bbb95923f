import { createTestDatabase } from '../../../fixtures/servers/postgres.js';
import { startS3rverBucket } from '../../../fixtures/servers/s3rver.js';
import { connectRedis, newRedisPrefix, REDIS_URL, removeRedisPrefix } from './job-queue-backends.js';

/** One deployment's distributed stores, of this suite alone: a fresh PostgreSQL database, a Redis prefix and an S3 bucket. */
export interface SharedStores {
  databaseUrl: string;
  s3: Awaited<ReturnType<typeof startS3rverBucket>>;
  /** The settings every `saola` process of the deployment gets (database, Redis, blob store). */
  env: Record<string, string>;
  /** Stops the bucket, removes the Redis prefix's keys and drops the database. */
  close(): Promise<void>;
}

/** For suites whose Saola processes share one deployment's stores (several API processes, a restart). */
export async function startSharedStores(): Promise<SharedStores> {
  const database = await createTestDatabase();
  // Redis must be reachable before any process is started on it.
  (await connectRedis()).disconnect();
  const redisPrefix = newRedisPrefix();
  const s3 = await startS3rverBucket();
  return {
    databaseUrl: database.url,
    s3,
    env: { SAOLA_DATABASE_URL: database.url, SAOLA_REDIS_URL: REDIS_URL, SAOLA_REDIS_PREFIX: redisPrefix, ...s3.env },
    async close() {
      await s3.close();
      const redis = await connectRedis();
      await removeRedisPrefix(redis, redisPrefix);
      redis.disconnect();
      await database.drop();
    },
  };
}
