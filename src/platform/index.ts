import path from 'node:path';
import { migrations } from '../migrations.js';
import { Credentials } from './auth/credentials.js';
import { FsBlobStore } from './blobs/fs-store.js';
import type { Config } from './config.js';
import { migrateToLatest, openStore } from './db/database.js';
import { Lifecycle, type ServiceDeps } from './deps.js';
import { SqlJobQueue } from './jobs/sql-queue.js';

/**
 * Opens the platform a process runs on: the store (migrated), credentials,
 * blobs and the job queue, chosen by configuration. `lifecycle.close()` undoes it.
 */
export async function openPlatform(config: Config): Promise<ServiceDeps & { migrated: string[] }> {
  const store = openStore(config.databaseUrl);
  const lifecycle = new Lifecycle();
  lifecycle.onClose('store', () => store.close());
  const migrated = await migrateToLatest(store, migrations);
  const credentials = new Credentials(store, config.authCacheSeconds);
  const blobs = new FsBlobStore(path.join(config.dataDir, 'blobs'));
  const jobs = new SqlJobQueue(store);
  lifecycle.onClose('jobs', () => jobs.close());
  lifecycle.addReadiness('jobs', async () => ({ ok: true, engine: `sql (${store.dialect})` }));
  lifecycle.addReadiness('blobs', () => ({ ok: true, engine: 'filesystem' }));
  return { config, store, credentials, blobs, jobs, lifecycle, migrated };
}
