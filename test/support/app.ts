import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/platform/config.js';
import type { ServiceDeps } from '../../src/platform/deps.js';
import { migrations } from '../../src/services.js';
import { openPlatform } from '../../src/platform/index.js';

export interface Tenant {
  appCode: string;
  apiKey: string;
  token: string;
}

export interface TestApp extends Tenant {
  /** Base URL of the running server, e.g. http://127.0.0.1:40123 */
  url: string;
  app: FastifyInstance;
  deps: ServiceDeps;
  dataDir: string;
  /** Another application with its own key and token, for tenancy tests. */
  newTenant(name: string): Promise<Tenant>;
  close(): Promise<void>;
}

/**
 * Starts the whole server over real HTTP on 127.0.0.1 with a throwaway data
 * folder and one application. `databaseUrl` picks the store (SQLite by
 * default); `env` sets platform and service settings for this server;
 * `dataDir` restarts on an existing folder.
 */
export async function startTestApp(
  opts: {
    databaseUrl?: string;
    env?: Record<string, string>;
    /** Reopen an existing data folder (a restart); it is then not deleted on close. */
    dataDir?: string;
  } = {},
): Promise<TestApp> {
  const ownsDataDir = opts.dataDir === undefined;
  const dataDir = opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'saola-test-'));
  const config = loadConfig({
    SAOLA_DATA_DIR: dataDir,
    SAOLA_LOG_LEVEL: process.env.SAOLA_TEST_LOG_LEVEL ?? 'silent',
    SAOLA_PORT: '0',
    SAOLA_HOST: '127.0.0.1',
    SAOLA_AUTH_CACHE_SECONDS: '0',
    // The server shares its event loop with the test's own synchronous work (training, fixtures), so the
    // loop's delay says nothing about the server here: shedding on it is tested on a server of its own.
    SAOLA_MAX_EVENT_LOOP_DELAY_MS: '0',
    // Nor does a pool's expected wait: with test files running side by side on 2 cores an engine task can
    // take seconds, and a request refused as busy is not what a suite checks. Tested where a test sets it.
    SAOLA_POOL_MAX_WAIT_MS: '0',
    ...(opts.databaseUrl ? { SAOLA_DATABASE_URL: opts.databaseUrl } : {}),
    ...opts.env,
  });
  // Services read their own SAOLA_<SERVICE>_* settings from process.env while
  // they register; give them opts.env for that moment, then restore.
  const saved = new Map(Object.keys(opts.env ?? {}).map((k) => [k, process.env[k]]));
  Object.assign(process.env, opts.env);
  let deps: ServiceDeps;
  let app: FastifyInstance;
  try {
    deps = await openPlatform(config, migrations);
    try {
      app = await buildApp(deps);
    } catch (err) {
      // A service that refuses to start: close what the others started, or the test process never ends.
      await deps.lifecycle.close();
      throw err;
    }
  } finally {
    for (const [k, v] of saved) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const url = `http://127.0.0.1:${port}`;
  // Links handed out by the server must point at this test server.
  deps.config.publicUrl = opts.env?.SAOLA_PUBLIC_URL ?? url;

  async function newTenant(name: string): Promise<Tenant> {
    const created = await deps.credentials.createApp(name);
    const key = await deps.credentials.issue(created.app_code, 'api_key');
    const token = await deps.credentials.issue(created.app_code, 'token');
    return { appCode: created.app_code, apiKey: key.secret, token: token.secret };
  }

  // A restarted server keeps its applications; a new one gets its first.
  const first = ownsDataDir ? await newTenant('test-app') : { appCode: '', apiKey: '', token: '' };
  return {
    ...first,
    url,
    app,
    deps,
    dataDir,
    newTenant,
    async close() {
      await app.close();
      await deps.lifecycle.close();
      if (ownsDataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
