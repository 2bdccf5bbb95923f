import { uuidv7 } from 'uuidv7';
import type { Store } from '../db/database.js';
import type { JobRow } from '../db/schema.js';
import {
  DEFAULT_LEASE_MS,
  DEFAULT_MAX_ATTEMPTS,
  JOB_STATUSES,
  PermanentJobError,
  checkMaxAttempts,
  describeJobError,
  logJobError,
  positiveInteger,
  reportingSafely,
  exponentialBackoff,
  type EnqueueOptions,
  type Enqueued,
  type Job,
  type JobContext,
  type JobHandler,
  type JobQueue,
  type JobStatus,
  type WorkOptions,
  type Worker,
} from './queue.js';

const DEFAULT_POLL_MS = 200;

/**
 * The embedded job queue: one `jobs` table, claimed with leases. A claim is a
 * single UPDATE ... RETURNING, so two workers (threads, processes or hosts)
 * never hold the same lease; a worker that dies simply lets its lease run out.
 *
 * A claim is identified by the row's `attempts` after the claim incremented it:
 * every later write of that claim (heartbeat, progress, result, failure) is
 * guarded by it, so a worker whose lease expired cannot overwrite a newer claim.
 *
 * Workers poll every `pollMs`; an enqueue through this same SqlJobQueue also
 * wakes its idle workers on that queue at once (so one instance per process).
 *
 * Idempotency keys are stored scoped to the app (`job_key` holds
 * `["<app>","<key>"]`), so one tenant's key never returns another tenant's job.
 */
export class SqlJobQueue implements JobQueue {
  private readonly workers = new Set<SqlWorker>();

  constructor(private readonly store: Store) {}

  async enqueue(queue: string, payload: unknown, opts: EnqueueOptions = {}): Promise<Enqueued> {
    if (queue === '') throw new TypeError('queue name is empty');
    const maxAttempts = checkMaxAttempts(opts.maxAttempts ?? DEFAULT_MAX_ATTEMPTS);
    const now = new Date().toISOString();
    const row: JobRow = {
      id: uuidv7(),
      queue,
      app_code: opts.appCode ?? null,
      job_key: opts.key === undefined ? null : storedKey(opts.appCode, opts.key),
      payload: JSON.stringify(payload) ?? 'null',
      status: 'queued',
      attempts: 0,
      max_attempts: maxAttempts,
      run_at: (opts.runAt ?? new Date()).toISOString(),
      lease_until: null,
      progress: 0,
      result: null,
      last_error: null,
      created_time: now,
      updated_time: now,
    };
    const { db } = this.store;
    let enqueued: Enqueued;
    if (row.job_key === null) {
      await db.insertInto('jobs').values(row).execute();
      enqueued = { id: row.id, created: true };
    } else {
      const jobKey = row.job_key;
      const inserted = await db
        .insertInto('jobs')
        .values(row)
        .onConflict((oc) => oc.columns(['queue', 'job_key']).doNothing())
        .returning('id')
        .executeTakeFirst();
      if (inserted) {
        enqueued = { id: inserted.id, created: true };
      } else {
        const existing = await db.selectFrom('jobs').select('id').where('queue', '=', queue).where('job_key', '=', jobKey).executeTakeFirstOrThrow();
        enqueued = { id: existing.id, created: false };
      }
    }
    if (enqueued.created) this.wake(queue);
    return enqueued;
  }

  async get(id: string, appCode?: string): Promise<Job | undefined> {
    let query = this.store.db.selectFrom('jobs').selectAll().where('id', '=', id);
    if (appCode !== undefined) query = query.where('app_code', '=', appCode);
    const row = await query.executeTakeFirst();
    return row && toJob(row);
  }

  async counts(queue: string): Promise<Record<JobStatus, number>> {
    const rows = await this.store.db
      .selectFrom('jobs')
      .select((eb) => ['status', eb.fn.countAll<number>().as('n')])
      .where('queue', '=', queue)
      .groupBy('status')
      .execute();
    const counts = Object.fromEntries(JOB_STATUSES.map((s) => [s, 0])) as Record<JobStatus, number>;
    for (const { status, n } of rows) counts[status] = Number(n);
    return counts;
  }

  work<P = unknown>(queue: string, handler: JobHandler<P>, opts: WorkOptions = {}): Worker {
    const worker = new SqlWorker(this, queue, handler as JobHandler, {
      concurrency: positiveInteger('concurrency', opts.concurrency ?? 1),
      leaseMs: positiveInteger('leaseMs', opts.leaseMs ?? DEFAULT_LEASE_MS),
      pollMs: positiveInteger('pollMs', opts.pollMs ?? DEFAULT_POLL_MS),
      backoff: opts.backoff ?? exponentialBackoff,
      onError: reportingSafely(opts.onError ?? logJobError(queue)),
    });
    this.workers.add(worker);
    worker.start();
    return worker;
  }

  async close(): Promise<void> {
    await Promise.all([...this.workers].map((w) => w.stop()));
  }

  /** @internal */
  forget(worker: SqlWorker): void {
    this.workers.delete(worker);
  }

  /** Enqueues in this process reach idle workers at once instead of at their next poll. */
  private wake(queue: string): void {
    for (const worker of this.workers) if (worker.queue === queue) worker.wake();
  }

  /** @internal Claims the next due job, or a running one whose lease expired. */
  async claim(queue: string, leaseMs: number): Promise<JobRow | undefined> {
    const { db, dialect } = this.store;
    for (;;) {
      const now = new Date();
      const nowIso = now.toISOString();
      const row = await db
        .updateTable('jobs')
        .set((eb) => ({
          status: 'running',
          attempts: eb('attempts', '+', 1),
          lease_until: new Date(now.getTime() + leaseMs).toISOString(),
          updated_time: nowIso,
        }))
        .where('id', '=', (eb) =>
          eb
            .selectFrom('jobs as due')
            .select('due.id')
            .where('due.queue', '=', queue)
            .where((w) =>
              w.or([w.and([w('due.status', '=', 'queued'), w('due.run_at', '<=', nowIso)]), w.and([w('due.status', '=', 'running'), w('due.lease_until', '<', nowIso)])]),
            )
            .orderBy('due.run_at')
            .limit(1)
            // Concurrent claimers skip each other's row instead of queueing on its lock.
            .$if(dialect === 'postgres', (q) => q.forUpdate().skipLocked()),
        )
        .returningAll()
        .executeTakeFirst();
      if (!row) return undefined;
      if (row.attempts <= row.max_attempts) return row;
      // Its last allowed attempt died with its worker: running it again would exceed the limit.
      await db
        .updateTable('jobs')
        .set({
          status: 'failed',
          attempts: row.max_attempts,
          lease_until: null,
          last_error: `lease expired after ${row.max_attempts} attempts`,
          updated_time: new Date().toISOString(),
        })
        .where('id', '=', row.id)
        .where('status', '=', 'running')
        .where('attempts', '=', row.attempts)
        .execute();
    }
  }

  /** @internal Runs `set` on the job only while `claim` still holds it; false when it does not. */
  async updateClaimed(claim: JobRow, set: Partial<Pick<JobRow, 'status' | 'run_at' | 'lease_until' | 'progress' | 'result' | 'last_error'>>): Promise<boolean> {
    const result = await this.store.db
      .updateTable('jobs')
      .set({ ...set, updated_time: new Date().toISOString() })
      .where('id', '=', claim.id)
      .where('status', '=', 'running')
      .where('attempts', '=', claim.attempts)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }
}

interface WorkerSettings {
  concurrency: number;
  leaseMs: number;
  pollMs: number;
  backoff: (attempt: number) => number;
  onError: (error: unknown, job?: Job) => void;
}

class SqlWorker implements Worker {
  private readonly running = new Set<Promise<void>>();
  private stopping = false;
  private loop: Promise<void> | undefined;
  private stopped: Promise<void> | undefined;
  /** Set by wake() while the loop is busy, so the next idle wait returns at once. */
  private wokenWhileBusy = false;
  private endIdleWait: (() => void) | undefined;

  constructor(
    private readonly owner: SqlJobQueue,
    readonly queue: string,
    private readonly handler: JobHandler,
    private readonly settings: WorkerSettings,
  ) {}

  start(): void {
    this.loop = this.claimLoop();
  }

  wake(): void {
    if (this.endIdleWait) this.endIdleWait();
    else this.wokenWhileBusy = true;
  }

  stop(): Promise<void> {
    this.stopped ??= (async () => {
      this.stopping = true;
      this.wake();
      await this.loop;
      await Promise.all(this.running);
      this.owner.forget(this);
    })();
    return this.stopped;
  }

  private async claimLoop(): Promise<void> {
    while (!this.stopping) {
      if (this.running.size >= this.settings.concurrency) {
        await Promise.race(this.running);
        continue;
      }
      let claimed: JobRow | undefined;
      try {
        claimed = await this.owner.claim(this.queue, this.settings.leaseMs);
      } catch (error) {
        this.settings.onError(error);
      }
      if (claimed) {
        // Even when stop() came in meanwhile: running it now beats leaving it leased.
        const run: Promise<void> = this.run(claimed).finally(() => this.running.delete(run));
        this.running.add(run);
      } else {
        await this.idle();
      }
    }
  }

  private idle(): Promise<void> {
    if (this.wokenWhileBusy || this.stopping) {
      this.wokenWhileBusy = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.endIdleWait = undefined;
        resolve();
      };
      const timer = setTimeout(done, this.settings.pollMs);
      this.endIdleWait = done;
    });
  }

  private async run(claim: JobRow): Promise<void> {
    const { leaseMs, onError } = this.settings;
    const job = toJob(claim);
    const lease = new AbortController();
    const lost = () => lease.abort(new Error(`lease on job ${claim.id} was lost`));

    let beating = false;
    const beat = async () => {
      if (beating || lease.signal.aborted) return;
      beating = true;
      try {
        const held = await this.owner.updateClaimed(claim, {
          lease_until: new Date(Date.now() + leaseMs).toISOString(),
        });
        if (!held) lost();
      } catch (error) {
        // The database may be back before the lease ends; keep beating.
        onError(error, job);
      } finally {
        beating = false;
      }
    };
    // beat() catches its own errors, so its promise never rejects.
    const heartbeat = setInterval(() => void beat(), Math.max(1, Math.floor(leaseMs / 3)));

    const ctx: JobContext = {
      signal: lease.signal,
      progress: async (pct) => {
        const progress = Math.max(0, Math.min(100, Math.round(Number.isFinite(pct) ? pct : 0)));
        if (!(await this.owner.updateClaimed(claim, { progress }))) lost();
      },
    };

    try {
      let outcome: { result: string | null } | { error: unknown };
      try {
        const value = await this.handler(job, ctx);
        outcome = { result: JSON.stringify(value) ?? null };
      } catch (error) {
        outcome = { error };
      }
      clearInterval(heartbeat);
      if ('result' in outcome) {
        const saved = await this.owner.updateClaimed(claim, {
          status: 'done',
          result: outcome.result,
          progress: 100,
          lease_until: null,
          last_error: null,
        });
        if (!saved) onError(new Error(`job ${claim.id} finished after its lease was lost; result discarded`), job);
        return;
      }
      const { error } = outcome;
      onError(error, job);
      const retry = !(error instanceof PermanentJobError) && claim.attempts < claim.max_attempts;
      const last_error = describeJobError(error);
      if (retry) {
        const delay = Math.max(0, this.settings.backoff(claim.attempts));
        await this.owner.updateClaimed(claim, {
          status: 'queued',
          run_at: new Date(Date.now() + delay).toISOString(),
          lease_until: null,
          last_error,
        });
      } else {
        await this.owner.updateClaimed(claim, { status: 'failed', lease_until: null, last_error });
      }
    } catch (error) {
      // Could not record the outcome: the lease will expire and the job runs again.
      onError(error, job);
    } finally {
      clearInterval(heartbeat);
    }
  }
}

function storedKey(appCode: string | undefined, key: string): string {
  return JSON.stringify([appCode ?? null, key]);
}

function keyOf(jobKey: string | null): string | undefined {
  if (jobKey === null) return undefined;
  try {
    const parsed: unknown = JSON.parse(jobKey);
    if (Array.isArray(parsed) && typeof parsed[1] === 'string') return parsed[1];
  } catch {
    /* a key written by hand: show it as it is */
  }
  return jobKey;
}

function toJob(row: JobRow): Job {
  return {
    id: row.id,
    queue: row.queue,
    appCode: row.app_code ?? undefined,
    key: keyOf(row.job_key),
    payload: JSON.parse(row.payload),
    status: row.status,
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
    runAt: new Date(row.run_at),
    leaseUntil: row.lease_until === null ? undefined : new Date(row.lease_until),
    progress: row.progress,
    result: row.result === null ? undefined : JSON.parse(row.result),
    lastError: row.last_error ?? undefined,
    createdTime: new Date(row.created_time),
    updatedTime: new Date(row.updated_time),
  };
}
