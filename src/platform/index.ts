import path from 'node:path';
import type { Migration } from 'kysely';
import { Credentials } from './auth/credentials.js';
import { FsBlobStore } from './blobs/fs-store.js';
import { S3BlobStore } from './blobs/s3-store.js';
import type { BlobStore } from './blobs/store.js';
import type { Config } from './config.js';
import { migrateToLatest, openStore } from './db/database.js';
import { Lifecycle, type ServiceDeps } from './deps.js';
import type { JobQueue } from './jobs/queue.js';
import { SqlJobQueue } from './jobs/sql-queue.js';
import { platformMigrations as platformTables } from './db/migrations.js';
import { joinMigrations } from './service-module.js';
import { usageMigrations } from './usage/migrations.js';

/** The platform's own tables: applications, credentials, jobs, usage and quotas. */
export const platformMigrations = joinMigrations([platformTables, usageMigrations]);

/**
 * Opens the platform a process runs on: the store (migrated), credentials,
 * blobs and the job queue, chosen by configuration. `lifecycle.close()` undoes it.
 *
 * Each part moves to its server engine on its own: `SAOLA_DATABASE_URL`
 * (PostgreSQL), `SAOLA_REDIS_URL` (BullMQ jobs), `SAOLA_S3_BUCKET` (S3 blobs).
 *
 * `migrations` is the whole schema (the platform's and every service's tables)
 * and comes from the composition root (`src/services.ts` through
 * `src/main.ts`), as everything else does: the platform knows no service.
 */
export async function openPlatform(config: Config, migrations: Readonly<Record<string, Migration>>): Promise<ServiceDeps & { migrated: string[] }> {
  const store = openStore(config.databaseUrl);
  const lifecycle = new Lifecycle();
  lifecycle.onClose('store', () => store.close());
  const migrated = await migrateToLatest(store, migrations);
  const credentials = new Credentials(store, config.authCacheSeconds);

  let blobs: BlobStore;
  if (config.s3) {
    const s3 = new S3BlobStore(config.s3);
    lifecycle.onClose('blobs', () => s3.close());
    lifecycle.addReadiness('blobs', () => probe(s3.describe(), () => s3.check()));
    blobs = s3;
  } else {
    blobs = new FsBlobStore(path.join(config.dataDir, 'blobs'));
    lifecycle.addReadiness('blobs', () => ({ ok: true, engine: 'filesystem' }));
  }

  let jobs: JobQueue;
  if (config.redisUrl) {
    // Loaded only here: the embedded default never loads BullMQ and ioredis.
    const { BullJobQueue } = await import('./jobs/bullmq-queue.js');
    const bull = new BullJobQueue({ url: config.redisUrl, prefix: config.redisPrefix });
    // The engine name only: the URL may carry a password.
    lifecycle.addReadiness('jobs', () => probe('bullmq (redis)', () => bull.check()));
    jobs = bull;
  } else {
    jobs = new SqlJobQueue(store);
    lifecycle.addReadiness('jobs', () => ({ ok: true, engine: `sql (${store.dialect})` }));
  }
  lifecycle.onClose('jobs', () => jobs.close());
  return { config, store, credentials, blobs, jobs, lifecycle, migrated };
}

async function probe(engine: string, check: () => Promise<void>): Promise<Record<string, unknown>> {
  try {
    await check();
    return { ok: true, engine };
  } catch (error) {
    return { ok: false, engine, error: (error as Error).message };
  }
}
