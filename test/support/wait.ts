/**
 * Waiting in tests: `sleep` for a fixed pause (a window to pass, a moment for a child process to act)
 * and `eventually` for a condition another thread, process or timer makes true. A wait that never ends
 * fails with the caller's reason instead of running into the runner's timeout.
 */
import { AssertionError } from 'node:assert';
import { setTimeout as delay } from 'node:timers/promises';

export const sleep = (ms: number): Promise<void> => delay(ms);

export interface EventuallyOptions {
  /** Give up after this long (default 10 s). */
  timeoutMs?: number;
  /** Pause between probes (default 100 ms). */
  intervalMs?: number;
  /** What was awaited, for the failure message; a function is called only on failure (to show the last state). */
  what?: string | (() => string);
}

/**
 * Calls `probe` until it returns something other than undefined, null or false, and returns that.
 * A probe that throws is retried too (an assertion that does not hold yet); after `timeoutMs` the last
 * error is thrown, or an AssertionError naming `what`.
 */
export async function eventually<T>(probe: () => T | Promise<T>, opts: EventuallyOptions = {}): Promise<Exclude<T, undefined | null | false>> {
  const { timeoutMs = 10_000, intervalMs = 100 } = opts;
  const giveUpAt = Date.now() + timeoutMs;
  for (;;) {
    let error: Error | undefined;
    try {
      const value = await probe();
      if (value !== undefined && value !== null && value !== false) return value as Exclude<T, undefined | null | false>;
    } catch (err) {
      error = err instanceof Error ? err : new Error(String(err));
    }
    if (Date.now() >= giveUpAt) {
      if (error !== undefined) throw error;
      const what = typeof opts.what === 'function' ? opts.what() : (opts.what ?? 'the condition');
      throw new AssertionError({ message: `${what}: not reached after ${timeoutMs} ms` });
    }
    await delay(intervalMs);
  }
}

/** Reads `read` until `done` holds for its value and returns that value; the failure shows the last one read. */
export async function waitForValue<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  let last: T | undefined;
  const reached = await eventually(
    async () => {
      last = await read();
      return done(last) ? { value: last } : undefined;
    },
    { timeoutMs, what: () => `${what}: ${JSON.stringify(last)}` },
  );
  return reached.value;
}
