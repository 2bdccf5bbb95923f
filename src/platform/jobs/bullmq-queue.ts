import { createHash, randomUUID } from 'node:crypto';
import { Job as BullJob, Queue as BullQueue, UnrecoverableError, Worker as BullWorker } from 'bullmq';
import { Redis, type RedisOptions } from 'ioredis';
import { uuidv7 } from 'uuidv7';
import {
  DEFAULT_LEASE_MS,
  DEFAULT_MAX_ATTEMPTS,
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

/** The custom backoff type every job carries, so the worker's `backoff` decides retry delays. */
const BACKOFF_TYPE = 'saola';
/** Stalls are counted as attempts by this queue (see handle()), so BullMQ's own stall limit never applies first. */
const UNLIMITED_STALLS = 1_000_000;

/** What a job's BullMQ `data` holds. */
interface StoredJob {
  payload: unknown;
  appCode: string | null;
  key: string | null;
  /** Written once by the enqueue that created the job: tells that enqueue it won. */
  nonce: string;
}

export interface BullJobQueueOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://...`. */
  url: string;
  /** Prefix of every key written (`<prefix>:<queue>:...`); default `saola`. */
  prefix?: string;
}

/**
 * The scale-out job queue: BullMQ 6 on Redis, behind the same JobQueue
 * interface as the SQL table, passing the same conformance suite.
 *
 * How the SQL semantics map onto BullMQ:
 * - A lease is BullMQ's job lock (`lockDuration` = leaseMs, renewed at half of
 *   it). A job whose worker died keeps its lock until the lock expires; then a
 *   worker's stalled-job check (every leaseMs / 2) puts it back. So it runs
 *   again between leaseMs and about 1.5 x leaseMs after the death, never
 *   before the lease ended.
 * - `attempts` is BullMQ's `attemptsStarted`: claims so far, counting claims
 *   whose worker died. The handler wrapper enforces `maxAttempts` on it itself
 *   (BullMQ counts only finished attempts): a job claimed once more than
 *   allowed fails with "lease expired after N attempts" without running, and a
 *   failure on the last allowed claim is final. BullMQ's own stall limit is
 *   set out of the way.
 * - Retry delays come from the worker's `backoff(attempts)`, through a custom
 *   BullMQ backoff strategy.
 * - Idempotency: a keyed job's id is derived from (queue, app, key) (a UUIDv8
 *   built from a SHA-256), and BullMQ's add is atomic, so exactly one enqueue
 *   creates it; that enqueue finds its own nonce in the stored job.
 * - `get(id)` finds the job's queue in one Redis hash (`<prefix>::job-queues`),
 *   written before the job itself.
 *
 * Where it differs (see ARCHITECTURE.md):
 * - `ctx.progress` after the lease was lost still writes (BullMQ does not check
 *   the lock on progress); the result of such a claim is still discarded.
 * - `pollMs` is unused: workers block on Redis and wake at once on any enqueue,
 *   from any process.
 * - `updatedTime` is the latest of created, started and finished (progress
 *   writes do not move it); `runAt` of a waiting retry is read from BullMQ's
 *   delayed set.
 * - Jobs are kept forever, as in the SQL table (no removeOnComplete): the key
 *   of a finished job still returns it. Trim old jobs with BullMQ's `clean`.
 */
export class BullJobQueue implements JobQueue {
  readonly prefix: string;
  /** Commands of enqueue/get/counts: fails after a few reconnect attempts instead of hanging a request. */
  private readonly client: Redis;
  /** Shared by the workers (BullMQ duplicates it for their blocking reads); waits out Redis restarts. */
  private workerClient: Redis | undefined;
  private readonly queues = new Map<string, BullQueue>();
  private readonly workers = new Set<BullQueueWorker>();

  constructor(private readonly options: BullJobQueueOptions) {
    this.prefix = options.prefix ?? 'saola';
    this.client = new Redis(options.url, { ...CLIENT_OPTIONS, maxRetriesPerRequest: 3 });
    this.client.on('error', () => {
      /* reported by the command that failed, and by check() */
    });
  }

  /** Resolves when Redis answers (readiness). */
  async check(): Promise<void> {
    await this.client.ping();
  }

  async enqueue(queue: string, payload: unknown, opts: EnqueueOptions = {}): Promise<Enqueued> {
    if (queue === '') throw new TypeError('queue name is empty');
    const maxAttempts = checkMaxAttempts(opts.maxAttempts ?? DEFAULT_MAX_ATTEMPTS);
    const id = opts.key === undefined ? uuidv7() : keyedId(queue, opts.appCode, opts.key);
    const data: StoredJob = {
      payload: JSON.parse(JSON.stringify(payload) ?? 'null'),
      appCode: opts.appCode ?? null,
      key: opts.key ?? null,
      nonce: randomUUID(),
    };
    // The index first: a job that exists can always be found by get().
    await this.client.hset(this.indexKey(), id, queue);
    await this.queueOf(queue).add(queue, data, {
      jobId: id,
      delay: opts.runAt ? Math.max(0, opts.runAt.getTime() - Date.now()) : undefined,
      attempts: maxAttempts,
      backoff: { type: BACKOFF_TYPE },
      removeOnComplete: false,
      removeOnFail: false,
    });
    if (opts.key === undefined) return { id, created: true };
    const stored = await BullJob.fromId<StoredJob>(this.queueOf(queue), id);
    return { id, created: stored?.data.nonce === data.nonce };
  }

  async get(id: string, appCode?: string): Promise<Job | undefined> {
    const queue = await this.client.hget(this.indexKey(), id);
    if (queue === null) return undefined;
    const bull = this.queueOf(queue);
    // State first, then the job: a job that moved on in between shows fields at
    // least as new as its state, so a finished job always has its result and error.
    const state = await bull.getJobState(id);
    const status = STATUS_OF[state];
    if (status === undefined) return undefined;
    const found = await BullJob.fromId<StoredJob>(bull, id);
    if (!found || (appCode !== undefined && found.data.appCode !== appCode)) return undefined;
    let leaseUntil: Date | undefined;
    let runAt: Date | undefined;
    if (status === 'running') {
      // Timed from before the question: the lock lasts at least until then.
      const asked = Date.now();
      const ttl = await this.client.pttl(`${this.prefix}:${bullName(queue)}:${id}:lock`);
      if (ttl > 0) leaseUntil = new Date(asked + ttl);
    } else if (state === 'delayed') {
      // BullMQ scores a delayed job (due time in ms) * 0x1000 + a counter.
      const score = await this.client.zscore(`${this.prefix}:${bullName(queue)}:delayed`, id);
      if (score !== null) runAt = new Date(Math.floor(Number(score) / 0x1000));
    }
    return toJob(queue, found, status, leaseUntil, runAt);
  }

  async counts(queue: string): Promise<Record<JobStatus, number>> {
    const n = await this.queueOf(queue).getJobCounts('waiting', 'prioritized', 'delayed', 'waiting-children', 'active', 'completed', 'failed');
    const count = (state: string) => n[state] ?? 0;
    return {
      queued: count('waiting') + count('prioritized') + count('delayed') + count('waiting-children'),
      running: count('active'),
      done: count('completed'),
      failed: count('failed'),
    };
  }

  work<P = unknown>(queue: string, handler: JobHandler<P>, opts: WorkOptions = {}): Worker {
    const leaseMs = positiveInteger('leaseMs', opts.leaseMs ?? DEFAULT_LEASE_MS);
    this.workerClient ??= this.newWorkerClient();
    const worker = new BullQueueWorker(this, queue, handler as JobHandler, {
      connection: this.workerClient,
      prefix: this.prefix,
      concurrency: positiveInteger('concurrency', opts.concurrency ?? 1),
      leaseMs,
      backoff: opts.backoff ?? exponentialBackoff,
      onError: reportingSafely(opts.onError ?? logJobError(queue)),
    });
    this.workers.add(worker);
    return worker;
  }

  /** Stops every worker, then closes the Redis connections. */
  async close(): Promise<void> {
    await Promise.all([...this.workers].map((w) => w.stop()));
    await Promise.all([...this.queues.values()].map((q) => q.close()));
    this.queues.clear();
    await Promise.all([quit(this.client), this.workerClient && quit(this.workerClient)]);
    this.workerClient = undefined;
  }

  /** @internal */
  forget(worker: BullQueueWorker): void {
    this.workers.delete(worker);
  }

  private queueOf(queue: string): BullQueue {
    let bull = this.queues.get(queue);
    if (!bull) {
      bull = new BullQueue(bullName(queue), { connection: this.client, prefix: this.prefix });
      bull.on('error', () => {
        /* surfaces as the failing call's rejection */
      });
      this.queues.set(queue, bull);
    }
    return bull;
  }

  private indexKey(): string {
    // An empty queue segment: no BullMQ queue (names are never empty) can own this key.
    return `${this.prefix}::job-queues`;
  }

  private newWorkerClient(): Redis {
    const client = new Redis(this.options.url, { ...CLIENT_OPTIONS, maxRetriesPerRequest: null });
    client.on('error', () => {
      /* workers report through onError; ioredis keeps reconnecting */
    });
    return client;
  }
}

interface WorkerSettings {
  connection: Redis;
  prefix: string;
  concurrency: number;
  leaseMs: number;
  backoff: (attempt: number) => number;
  onError: (error: unknown, job?: Job) => void;
}

class BullQueueWorker implements Worker {
  private readonly worker: BullWorker<StoredJob>;
  /** Lease-loss signals of the jobs running here. */
  private readonly running = new Map<string, { controller: AbortController; job: Job }>();
  private stopped: Promise<void> | undefined;

  constructor(
    private readonly owner: BullJobQueue,
    readonly queue: string,
    private readonly handler: JobHandler,
    private readonly settings: WorkerSettings,
  ) {
    const { backoff, leaseMs, onError } = settings;
    this.worker = new BullWorker<StoredJob>(bullName(queue), (job) => this.handle(job), {
      connection: settings.connection,
      prefix: settings.prefix,
      concurrency: settings.concurrency,
      lockDuration: leaseMs,
      // Every half lease (the lock is renewed at half of it too): a dead
      // worker's job is marked by one check after its last renewal and moved
      // back by the first check after its lock ran out, so it is claimed again
      // at most 1.5 x leaseMs after the death.
      stalledInterval: Math.max(1, Math.floor(leaseMs / 2)),
      maxStalledCount: UNLIMITED_STALLS,
      settings: {
        // Called with the claim number, as the SQL queue does (BullMQ passes finished attempts).
        backoffStrategy: (made, _type, _err, job) => Math.max(0, Math.round(backoff((job as { attemptsStarted?: number } | undefined)?.attemptsStarted ?? made))),
      },
    });
    this.worker.on('error', (error) => onError(error));
    this.worker.on('lockRenewalFailed', (ids: string[]) => {
      for (const id of ids) {
        const entry = this.running.get(id);
        if (!entry || entry.controller.signal.aborted) continue;
        const lost = new Error(`lease on job ${id} was lost`);
        onError(lost, entry.job);
        entry.controller.abort(lost);
      }
    });
  }

  stop(): Promise<void> {
    this.stopped ??= (async () => {
      await this.worker.close();
      this.owner.forget(this);
    })();
    return this.stopped;
  }

  private async handle(bull: BullJob<StoredJob>): Promise<{ v: unknown }> {
    const maxAttempts = bull.opts.attempts ?? DEFAULT_MAX_ATTEMPTS;
    if (bull.attemptsStarted > maxAttempts) {
      // Its last allowed claim died with its worker: running it again would exceed the limit.
      throw new UnrecoverableError(`lease expired after ${maxAttempts} attempts`);
    }
    const job = toJob(this.queue, bull, 'running', new Date(Date.now() + this.settings.leaseMs), undefined);
    const controller = new AbortController();
    const id = bull.id ?? '';
    this.running.set(id, { controller, job });
    const ctx: JobContext = {
      signal: controller.signal,
      progress: async (pct) => {
        await bull.updateProgress(Math.max(0, Math.min(100, Math.round(Number.isFinite(pct) ? pct : 0))));
      },
    };
    try {
      // Wrapped so that `undefined` survives BullMQ's JSON round trip.
      return { v: await this.handler(job, ctx) };
    } catch (error) {
      this.settings.onError(error, job);
      const reason = describeJobError(error);
      if (error instanceof PermanentJobError || bull.attemptsStarted >= maxAttempts) throw new UnrecoverableError(reason);
      throw new Error(reason);
    } finally {
      this.running.delete(id);
    }
  }
}

const CLIENT_OPTIONS: RedisOptions = {
  // Reconnect with a growing pause, at most 2 s between tries.
  retryStrategy: (times) => Math.min(times * 100, 2000),
};

/** BullMQ state -> our status; absent: the job is gone. */
const STATUS_OF: Record<string, JobStatus | undefined> = {
  waiting: 'queued',
  prioritized: 'queued',
  delayed: 'queued',
  'waiting-children': 'queued',
  active: 'running',
  completed: 'done',
  failed: 'failed',
};

function toJob(queue: string, bull: BullJob<StoredJob>, status: JobStatus, leaseUntil: Date | undefined, runAt: Date | undefined): Job {
  const maxAttempts = bull.opts.attempts ?? DEFAULT_MAX_ATTEMPTS;
  const created = bull.timestamp;
  const progress = typeof bull.progress === 'number' ? bull.progress : 0;
  const returned = bull.returnvalue as { v?: unknown } | null | undefined;
  return {
    id: bull.id ?? '',
    queue,
    appCode: bull.data.appCode ?? undefined,
    key: bull.data.key ?? undefined,
    payload: bull.data.payload,
    status,
    attempts: Math.min(bull.attemptsStarted, maxAttempts),
    maxAttempts,
    runAt: runAt ?? new Date(created + (bull.opts.delay ?? 0)),
    leaseUntil: status === 'running' ? leaseUntil : undefined,
    progress: status === 'done' ? 100 : progress,
    result: status === 'done' && returned ? returned.v : undefined,
    lastError: status === 'done' ? undefined : bull.failedReason || undefined,
    createdTime: new Date(created),
    updatedTime: new Date(Math.max(created, bull.processedOn ?? 0, bull.finishedOn ?? 0)),
  };
}

/** BullMQ separates key parts with ':', so a queue name carrying one is escaped. */
function bullName(queue: string): string {
  return queue.replaceAll('%', '%25').replaceAll(':', '%3A');
}

/** One id per (queue, app, key): a UUIDv8 (RFC 9562, custom) from the SHA-256 of the three. */
function keyedId(queue: string, appCode: string | undefined, key: string): string {
  const hex = createHash('sha256')
    .update(JSON.stringify([queue, appCode ?? null, key]))
    .digest('hex');
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

async function quit(client: Redis): Promise<void> {
  try {
    await client.quit();
  } catch {
    client.disconnect();
  }
}
