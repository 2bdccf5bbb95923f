import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { migrations } from '../../src/migrations.js';
import { migrateToLatest, openStore } from '../../src/platform/db/database.js';
import { SqlJobQueue } from '../../src/platform/jobs/sql-queue.js';

const POSTGRES_URL = process.env.SAOLA_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/saola_test';
const CRASH_WORKER = fileURLToPath(new URL('../support/job-crash-worker.ts', import.meta.url));
const LEASE_MS = 500;
const JOBS = 12;
/** The crash worker runs 4 at once. */
const CLAIMED_BEFORE_KILL = 4;

interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

async function sqliteDatabase(): Promise<TestDatabase> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'saola-jobs-crash-'));
  return { url: `sqlite:${path.join(dir, 'jobs.db')}`, drop: () => fs.rm(dir, { recursive: true, force: true }) };
}

/** A schema of its own, so test files running in parallel never see each other's jobs. */
async function postgresDatabase(): Promise<TestDatabase> {
  const admin = openStore(POSTGRES_URL);
  const schema = `jobs_crash_${randomUUID().replaceAll('-', '')}`;
  try {
    await sql`create schema ${sql.id(schema)}`.execute(admin.db);
  } catch (error) {
    await admin.close();
    throw new Error(`PostgreSQL at ${POSTGRES_URL} is required for this test: ${String(error)}`);
  }
  const url = new URL(POSTGRES_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    drop: async () => {
      await sql`drop schema ${sql.id(schema)} cascade`.execute(admin.db);
      await admin.close();
    },
  };
}

/** Starts the crash worker and resolves with the job ids it claimed once it holds `count` of them. */
async function startCrashWorker(databaseUrl: string, queue: string, count: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', CRASH_WORKER, databaseUrl, queue, String(LEASE_MS)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
    child.on('exit', (code, signal) => resolve(signal ?? code)),
  );
  const claimed: string[] = [];
  const lines = readline.createInterface({ input: child.stdout });
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`crash worker claimed ${claimed.length} jobs in 20 s: ${stderr}`)), 20_000);
      lines.on('line', (line) => {
        const match = /^claimed (\S+)$/.exec(line);
        if (match) claimed.push(match[1]);
        if (claimed.length >= count) {
          clearTimeout(timer);
          resolve();
        }
      });
      void exited.then((how) => {
        clearTimeout(timer);
        reject(new Error(`crash worker exited (${how}) early: ${stderr}`));
      });
    });
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return { child, claimed, exited };
}

function crashSuite(engine: string, createDatabase: () => Promise<TestDatabase>) {
  describe(`SqlJobQueue after kill -9 on ${engine}`, () => {
    test('every job claimed by a killed worker is reclaimed and completed once', async () => {
      const database = await createDatabase();
      const store = openStore(database.url);
      const queue = new SqlJobQueue(store);
      try {
        await migrateToLatest(store, migrations);
        const name = `crash-${randomUUID()}`;
        const ids: string[] = [];
        for (let i = 0; i < JOBS; i++) ids.push((await queue.enqueue(name, { i })).id);

        const crashWorker = await startCrashWorker(database.url, name, CLAIMED_BEFORE_KILL);
        // Let it write heartbeats and progress for a while, then kill it mid-work.
        await new Promise((resolve) => setTimeout(resolve, 200));
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
        assert.deepEqual(await queue.counts(name), {
          queued: JOBS - CLAIMED_BEFORE_KILL,
          running: CLAIMED_BEFORE_KILL,
          done: 0,
          failed: 0,
        });

        const runs = new Map<string, number>();
        const startedAt = new Map<string, number>();
        const worker = queue.work(
          name,
          async (job) => {
            runs.set(job.id, (runs.get(job.id) ?? 0) + 1);
            startedAt.set(job.id, Date.now());
            return { by: 'survivor' };
          },
          { concurrency: 4, leaseMs: LEASE_MS, pollMs: 50 },
        );
        try {
          const giveUpAt = Date.now() + 10_000;
          while ((await queue.counts(name)).done < JOBS) {
            assert.ok(Date.now() < giveUpAt, `not all jobs done: ${JSON.stringify(await queue.counts(name))}`);
            await new Promise((resolve) => setTimeout(resolve, 25));
          }
        } finally {
          await worker.stop();
        }

        assert.deepEqual(await queue.counts(name), { queued: 0, running: 0, done: JOBS, failed: 0 });
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
        await queue.close();
        await store.close();
        await database.drop();
      }
    });
  });
}

crashSuite('SQLite', sqliteDatabase);
crashSuite('PostgreSQL', postgresDatabase);
