import fs from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Piscina } from 'piscina';
import { PlatformError } from '../http/errors.js';

export interface PoolOptions {
  /** The worker module: it default-exports `async (task) => result`. */
  filename: string | URL;
  /** A name for logs and /readyz. */
  name: string;
  threads: number;
  /** Tasks allowed to wait for a free thread; past that callers get "busy". */
  maxQueue: number;
  /** Longest a task may wait plus run. */
  timeoutMs: number;
  /**
   * Longest a new task is expected to wait for a thread (the tasks ahead of it times the recent run time,
   * shared by the threads) before callers get "busy" (0: only `maxQueue` bounds the wait).
   */
  maxWaitMs?: number;
  /** A worker thread idle this long is ended (default 60 s); the next task starts a new one, loading its models again. */
  idleTimeoutMs?: number;
  /**
   * Called in this thread with a worker thread's id when the pool ends that thread (idle, a task past its
   * time, an error, close). A terminated thread runs no more code, so what it leaves behind is cleaned here.
   */
  onThreadEnd?: (threadId: number) => void;
}

export interface PoolStats {
  name: string;
  threads: number;
  queued: number;
  maxQueue: number;
  completed: number;
  /** Recent run time of one task (ms; moving average of tasks that found a free thread), 0 before any. */
  taskMs: number;
  /** How long a task submitted now is expected to wait for a thread (ms). */
  expectedWaitMs: number;
}

let defaultIdleTimeoutMs = 60_000;

/** The idle time after which pools made from now on end a worker thread (SAOLA_POOL_IDLE_MS, set by buildApp). */
export function setPoolIdleTimeout(ms: number): void {
  defaultIdleTimeoutMs = ms;
}

/**
 * CPU-heavy work (OCR, face inference, audio) runs here, off the event loop.
 * Each worker thread loads its models once; the queue is bounded so an
 * overloaded server answers "busy" at once instead of timing everyone out.
 */
export class WorkerPool<Task, Result> {
  private readonly piscina: Piscina;
  /** Tasks accepted and not yet settled: running plus waiting. */
  private inFlight = 0;
  /** Moving average of the run time of tasks that did not wait (ms); 0 until one finished. */
  private taskMs = 0;

  constructor(private readonly options: PoolOptions) {
    const filename = workerFile(options.filename);
    this.piscina = new Piscina({
      filename,
      // No thread until the first task: a server (or test) that never uses an engine never loads its
      // models, and is never torn down while a native runtime is still initialising in a worker.
      minThreads: 0,
      maxThreads: options.threads,
      // The bound is enforced in run(), where "running + waiting" is exact.
      maxQueue: options.maxQueue + options.threads,
      // Engines set their own intra-op threads; keep each worker to its share of the cores.
      concurrentTasksPerWorker: 1,
      // Between tasks a worker waits on its message port, so its event loop turns. With piscina's default
      // ('sync') it blocks in Atomics.wait instead and setImmediate callbacks never run; Node 20 frees native
      // addon objects (sherpa-onnx streams: ~170 KiB each) from such a callback, so that memory was never
      // returned (+19 MiB/min of RSS in the speech soak, docs/security.md). The cost is one event per task.
      atomics: 'disabled',
      // A thread idle this long is ended (and its models' memory with it); SAOLA_POOL_IDLE_MS.
      idleTimeout: options.idleTimeoutMs ?? defaultIdleTimeoutMs,
    });
    const onThreadEnd = options.onThreadEnd;
    if (onThreadEnd) {
      this.piscina.on('workerDestroy', (worker: { id: number }) => {
        try {
          onThreadEnd(worker.id);
        } catch (err) {
          this.lastError = `cleaning up after thread ${worker.id}: ${(err as Error)?.message ?? String(err)}`;
        }
      });
    }
    // A worker that fails to load emits 'error'; unhandled, it would take the server down.
    // Its tasks would wait forever for a thread that never comes: fail them now.
    this.piscina.on('error', (err: unknown) => {
      this.lastError = (err as Error)?.message ?? String(err);
      const failing = this.workerFailed;
      this.workerFailed = new AbortController();
      failing.abort(new WorkerLoadError(`The ${this.options.name} engine failed to start: ${this.lastError}`));
    });
  }

  /** Aborted (and replaced) whenever a worker thread dies outside a task. */
  private workerFailed = new AbortController();

  /** The last error a worker thread raised outside a task (e.g. its module failed to load). */
  lastError: string | undefined;

  /** Expected wait of the `n`th task submitted now: the tasks ahead of it in the queue, run `threads` at a time. */
  expectedWaitMs(n = 1): number {
    const ahead = this.inFlight - this.options.threads + n;
    return ahead <= 0 ? 0 : Math.ceil(ahead / this.options.threads) * this.taskMs;
  }

  /**
   * Whether `n` more tasks would be taken now: room in the queue, and (with `maxWaitMs`) the last of them
   * expected to wait no longer than allowed. A request that needs several tasks (a face match: two photos)
   * asks first and then submits them all in the same turn, so that it is not half admitted, the accepted
   * half's work wasted on an answer that is a refusal anyway.
   */
  admits(n = 1): boolean {
    if (this.inFlight + n > this.options.threads + this.options.maxQueue) return false;
    // A queue short in tasks can still be long in time (ID cards take ~1 s each on 2 cores): past the wait
    // allowed, refuse now rather than answer after the client has given up.
    const maxWait = this.options.maxWaitMs ?? 0;
    return !(maxWait > 0 && this.expectedWaitMs(n) > maxWait);
  }

  async run(task: Task, opts: { signal?: AbortSignal; transferList?: Transferable[] } = {}): Promise<Result> {
    if (!this.admits(1)) throw new PlatformError('busy', `The ${this.options.name} engine is busy; try again shortly`);
    const direct = this.inFlight < this.options.threads;
    const started = performance.now();
    this.inFlight++;
    // One controller per task, fed by the caller's signal, the time limit and a worker's failure, its listeners
    // removed when the task settles. (AbortSignal.any over the pool's long-lived failure signal kept a WeakRef
    // per task on Node 20: 5,000 more WeakRefs in the heap after 8 minutes of soak.)
    const controller = new AbortController();
    const signal = controller.signal;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new PoolTimeoutError(`The ${this.options.name} task took longer than ${this.options.timeoutMs} ms`));
    }, this.options.timeoutMs);
    const failed = this.workerFailed.signal;
    const onFailed = () => controller.abort(failed.reason);
    const onCaller = () => controller.abort(opts.signal?.reason);
    if (failed.aborted) onFailed();
    else failed.addEventListener('abort', onFailed, { once: true });
    if (opts.signal?.aborted) onCaller();
    else opts.signal?.addEventListener('abort', onCaller, { once: true });
    try {
      const result = (await this.piscina.run(task, { signal, transferList: opts.transferList as never })) as Result;
      // Only a task that found a free thread measures the run time alone (a new thread's model load included,
      // once: the average forgets it within a few tasks).
      if (direct) {
        const ms = performance.now() - started;
        this.taskMs = this.taskMs === 0 ? ms : 0.8 * this.taskMs + 0.2 * ms;
      }
      return result;
    } catch (err) {
      const message = (err as Error)?.message ?? '';
      if (message === 'Task queue is at limit') {
        throw new PlatformError('busy', `The ${this.options.name} engine is busy; try again shortly`);
      }
      if (timedOut) throw new PoolTimeoutError(`The ${this.options.name} task took longer than ${this.options.timeoutMs} ms`);
      if (failed.aborted) throw failed.reason;
      throw err;
    } finally {
      clearTimeout(timer);
      failed.removeEventListener('abort', onFailed);
      opts.signal?.removeEventListener('abort', onCaller);
      this.inFlight--;
    }
  }

  stats(): PoolStats {
    return {
      name: this.options.name,
      threads: this.piscina.threads.length,
      queued: Math.max(0, this.inFlight - this.options.threads),
      maxQueue: this.options.maxQueue,
      completed: this.piscina.completed,
      taskMs: Math.round(this.taskMs),
      expectedWaitMs: Math.round(this.expectedWaitMs()),
    };
  }

  async close(): Promise<void> {
    await this.piscina.destroy();
  }
}

/**
 * The worker module as a file URL. Services name it `./worker.js`; under tsx
 * (tests, `npm run dev`) only the `.ts` source exists, so use that instead.
 */
function workerFile(filename: string | URL): string {
  const url = filename instanceof URL ? filename : filename.startsWith('file:') ? new URL(filename) : pathToFileURL(filename);
  const file = fileURLToPath(url);
  if (!fs.existsSync(file) && file.endsWith('.js') && fs.existsSync(file.slice(0, -3) + '.ts')) {
    return pathToFileURL(file.slice(0, -3) + '.ts').href;
  }
  return url.href;
}

export class WorkerLoadError extends Error {
  override name = 'WorkerLoadError';
}

export class PoolTimeoutError extends Error {
  override name = 'PoolTimeoutError';
}
