/**
 * The durable job queue every service uses for work that outlives a request
 * (TTS synthesis, callbacks, training). Jobs run at least once: a handler may
 * see the same job again after a crash, so handlers must be idempotent.
 */

export type JobStatus = 'queued' | 'running' | 'done' | 'failed';

export const JOB_STATUSES: readonly JobStatus[] = ['queued', 'running', 'done', 'failed'];

export interface Job<P = unknown> {
  id: string;
  queue: string;
  /** The tenant that owns the job, if any. */
  appCode: string | undefined;
  /** Idempotency key: one job per (queue, key). */
  key: string | undefined;
  payload: P;
  status: JobStatus;
  /** Claims so far, including the one running now. */
  attempts: number;
  maxAttempts: number;
  runAt: Date;
  leaseUntil: Date | undefined;
  /** 0-100. */
  progress: number;
  /** The handler's return value, once the job is done. */
  result: unknown;
  lastError: string | undefined;
  createdTime: Date;
  updatedTime: Date;
}

export interface EnqueueOptions {
  appCode?: string;
  key?: string;
  /** Not before this time (defaults to now). */
  runAt?: Date;
  /** Defaults to 5. */
  maxAttempts?: number;
}

export interface Enqueued {
  id: string;
  /** False when a job with the same (queue, key) already existed. */
  created: boolean;
}

export interface JobContext {
  /** Aborted when this claim lost its lease (another worker may now own the job). */
  signal: AbortSignal;
  /** Records progress, 0-100 (clamped, rounded). */
  progress(pct: number): Promise<void>;
}

export type JobHandler<P = unknown> = (job: Job<P>, ctx: JobContext) => Promise<unknown>;

export interface WorkOptions {
  /** Jobs run at once by this worker; default 1. */
  concurrency?: number;
  /** How long a claim is exclusive without a heartbeat; default `DEFAULT_LEASE_MS` (6 s). */
  leaseMs?: number;
  /** How often an idle worker looks for due jobs; default 200 ms. */
  pollMs?: number;
  /** Milliseconds to wait before the retry that follows failed attempt `attempt` (1-based). */
  backoff?: (attempt: number) => number;
  /** Told about handler failures and storage errors; defaults to console.error. */
  onError?: (error: unknown, job?: Job) => void;
}

export interface Worker {
  /** Stops claiming and waits for the running handlers to finish. */
  stop(): Promise<void>;
}

export interface JobQueue {
  enqueue(queue: string, payload: unknown, opts?: EnqueueOptions): Promise<Enqueued>;
  /** With `appCode`, a job of another app is not found (tenancy). */
  get(id: string, appCode?: string): Promise<Job | undefined>;
  work<P = unknown>(queue: string, handler: JobHandler<P>, opts?: WorkOptions): Worker;
  counts(queue: string): Promise<Record<JobStatus, number>>;
  /** Stops every worker this queue started; the caller still owns the store. */
  close(): Promise<void>;
}

/** Thrown by a handler when retrying cannot help (bad input): the job fails at once. */
export class PermanentJobError extends Error {
  override name = 'PermanentJobError';
}

export const DEFAULT_MAX_ATTEMPTS = 5;

/**
 * A claim's lease when the worker sets none. The heartbeat renews it while the
 * handler runs however long it takes, so the lease bounds only how long a job
 * whose worker died (SIGKILL, lost host) waits before another worker takes it:
 * at most the lease plus one poll on the SQL queue, the lease plus half of it
 * on BullMQ (its stalled-job check runs every half lease). 6 s keeps both well
 * under the 15 s a client waits for a TTS link, while a heartbeat (every third
 * of the lease on SQL, every half on BullMQ) may still be late by seconds on a
 * loaded machine before the lease is lost.
 */
export const DEFAULT_LEASE_MS = 6_000;
const BACKOFF_BASE_MS = 1000;
const BACKOFF_CAP_MS = 5 * 60 * 1000;

/** 1 s, 2 s, 4 s ... capped at 5 min, plus up to 10% jitter so retries of a burst spread out. */
export function exponentialBackoff(attempt: number): number {
  const exponent = Math.max(0, Math.min(attempt - 1, 30));
  const delay = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** exponent);
  return Math.round(delay * (1 + Math.random() * 0.1));
}

const MAX_ERROR_LENGTH = 2000;

/** How a handler's failure is stored as `lastError`: `Name: message`, cut at 2000 characters. */
export function describeJobError(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH)}...` : text;
}

/** A throwing error reporter must not take a worker's loop or heartbeat down with it. */
export function reportingSafely(onError: (error: unknown, job?: Job) => void): (error: unknown, job?: Job) => void {
  return (error, job) => {
    try {
      onError(error, job);
    } catch {
      /* nothing better to do with it */
    }
  };
}

/** The default `onError` of a worker on `queue`. */
export function logJobError(queue: string): (error: unknown, job?: Job) => void {
  return (error, job) => console.error(`job ${job?.id ?? ''} on ${queue}:`, error);
}

export function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new TypeError(`${name} must be a positive integer, got ${value}`);
  return value;
}

export function checkMaxAttempts(maxAttempts: number): number {
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new TypeError(`maxAttempts must be a positive integer, got ${maxAttempts}`);
  }
  return maxAttempts;
}
