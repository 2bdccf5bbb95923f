import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../../src/platform/config.js';
import { BullJobQueue } from '../../../src/platform/jobs/bullmq-queue.js';
import { SqlJobQueue } from '../../../src/platform/jobs/sql-queue.js';
import { startTestApp } from '../../../fixtures/servers/app.js';
import { REDIS_URL, bullHarness, connectRedis, newRedisPrefix, removeRedisPrefix } from '../../support/platform/job-queue-backends.js';
import { jobQueueSuite } from '../../support/platform/job-queue-suite.js';

jobQueueSuite(bullHarness);

describe('BullMQ selection', () => {
  test('SAOLA_REDIS_URL switches the job queue to BullMQ and is validated', () => {
    const embedded = loadConfig({});
    assert.equal(embedded.redisUrl, undefined);
    assert.equal(embedded.redisPrefix, 'saola');
    const config = loadConfig({ SAOLA_REDIS_URL: 'redis://:secret@cache:6379/2', SAOLA_REDIS_PREFIX: 'saola-prod' });
    assert.equal(config.redisUrl, 'redis://:secret@cache:6379/2');
    assert.equal(config.redisPrefix, 'saola-prod');
    assert.equal(loadConfig({ SAOLA_REDIS_URL: 'rediss://cache:6380' }).redisUrl, 'rediss://cache:6380');
    for (const env of [{ SAOLA_REDIS_URL: 'http://cache:6379' }, { SAOLA_REDIS_URL: 'not a url' }, { SAOLA_REDIS_PREFIX: 'a:b' }]) {
      assert.throws(
        () => loadConfig(env),
        (e: unknown) => e instanceof ConfigError && /SAOLA_REDIS_/.test(e.message),
        JSON.stringify(env),
      );
    }
  });

  test('the server runs its jobs on BullMQ and says so in /readyz', async () => {
    const admin = await connectRedis();
    const prefix = newRedisPrefix();
    const t = await startTestApp({ env: { SAOLA_REDIS_URL: REDIS_URL, SAOLA_REDIS_PREFIX: prefix } });
    try {
      assert.ok(t.deps.jobs instanceof BullJobQueue);
      const { id } = await t.deps.jobs.enqueue('platform-check', { ok: 1 }, { appCode: t.appCode });
      assert.equal(await admin.hget(`${prefix}::job-queues`, id), 'platform-check', 'the job is in this Redis');
      assert.equal((await t.deps.jobs.get(id, t.appCode))?.status, 'queued');
      const ready = await (await fetch(`${t.url}/readyz`)).json();
      assert.deepEqual(ready.checks.jobs, { ok: true, engine: 'bullmq (redis)' });
    } finally {
      await t.close();
      await removeRedisPrefix(admin, prefix);
      admin.disconnect();
    }
  });

  test('without SAOLA_REDIS_URL the SQL queue is used', async () => {
    const t = await startTestApp({ env: { SAOLA_RUN_WORKERS: 'false' } });
    try {
      assert.ok(t.deps.jobs instanceof SqlJobQueue);
      const ready = await (await fetch(`${t.url}/readyz`)).json();
      assert.deepEqual(ready.checks.jobs, { ok: true, engine: 'sql (sqlite)' });
      assert.deepEqual(ready.checks.blobs, { ok: true, engine: 'filesystem' });
    } finally {
      await t.close();
    }
  });

  test('the embedded default loads neither BullMQ nor the AWS SDK', async () => {
    // A fresh process: this one has loaded both already.
    const script = `
      import fs from 'node:fs';
      import os from 'node:os';
      import path from 'node:path';
      import { createRequire } from 'node:module';
      import { loadConfig } from './src/platform/config.ts';
      import { openPlatform } from './src/platform/index.ts';
      import { migrations } from './src/services.ts';
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-lazy-'));
      const deps = await openPlatform(loadConfig({ SAOLA_DATA_DIR: dataDir }), migrations);
      await deps.blobs.put('a/b.txt', Buffer.from('x'));
      await deps.jobs.enqueue('lazy', {});
      await deps.lifecycle.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
      const loaded = Object.keys(createRequire(import.meta.url).cache);
      console.log(JSON.stringify(loaded.filter((file) => /node_modules\\/(bullmq|ioredis|@aws-sdk)\\//.test(file))));
    `;
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: new URL('../../..', import.meta.url),
    });
    assert.deepEqual(JSON.parse(stdout.trim().split('\n').at(-1)!), []);
  });

  test('an unreachable Redis shows in /readyz and fails enqueues instead of hanging', async () => {
    const queue = new BullJobQueue({ url: 'redis://127.0.0.1:1', prefix: newRedisPrefix() });
    try {
      await assert.rejects(queue.check());
      await assert.rejects(queue.enqueue('never', {}));
    } finally {
      await queue.close();
    }
  });
});
