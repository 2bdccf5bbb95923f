import type { FastifyBaseLogger } from 'fastify';
import { BUCKET_COUNT, bucketOf } from './histogram.js';
import { utcDay, type UsageDelta, type UsageStore } from './store.js';

/**
 * Counts requests in memory and writes them to the store in one batch every
 * few seconds, so a request costs a map lookup and a few additions, never a
 * write. A crash loses at most one interval of counts; close() writes the rest.
 */
export class UsageRecorder {
  private pending = new Map<string, UsageDelta>();
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();
  /** The current UTC day and when it ends: formatting a date per request was most of record()'s cost. */
  private day = '';
  private dayEnd = 0;
  /** The counters of `pending` for the current day, by service, endpoint, application and status (emptied with it). */
  private readonly index = new Map<string, Map<string, Map<string, Map<number, UsageDelta>>>>();

  constructor(
    private readonly store: UsageStore,
    private readonly log: FastifyBaseLogger,
    intervalMs = 5000,
    /** Keys kept when writes fail (a database outage must not grow memory without end). */
    private readonly maxPending = 50_000,
    /** Also written at each flush (credentials' last use). */
    private readonly alsoOnFlush?: () => Promise<void>,
  ) {
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  record(appCode: string, service: string, endpoint: string, status: number, latencyMs: number, at = Date.now()): void {
    if (at >= this.dayEnd || at < this.dayEnd - 86_400_000) {
      this.day = utcDay(at);
      this.dayEnd = Date.parse(`${this.day}T00:00:00.000Z`) + 86_400_000;
      this.index.clear();
    }
    // The counter of this (service, endpoint, application, status) today: found through `index` by the strings as
    // they come (each request's are the same strings, whose hashes V8 keeps), so a request builds no key string.
    let byEndpoint = this.index.get(service);
    if (!byEndpoint) this.index.set(service, (byEndpoint = new Map()));
    let byApp = byEndpoint.get(endpoint);
    if (!byApp) byEndpoint.set(endpoint, (byApp = new Map()));
    let byStatus = byApp.get(appCode);
    if (!byStatus) byApp.set(appCode, (byStatus = new Map()));
    let delta = byStatus.get(status);
    if (!delta) {
      const day = this.day;
      const key = `${appCode}\u0000${day}\u0000${service}\u0000${endpoint}\u0000${status}`;
      delta = this.pending.get(key);
      if (!delta) {
        if (this.pending.size >= this.maxPending) return;
        delta = { app_code: appCode, day, service, endpoint, status, count: 0, latencySumMs: 0, latencyMaxMs: 0, buckets: new Array(BUCKET_COUNT).fill(0) };
        this.pending.set(key, delta);
      }
      byStatus.set(status, delta);
    }
    delta.count += 1;
    delta.latencySumMs += latencyMs;
    if (latencyMs > delta.latencyMaxMs) delta.latencyMaxMs = latencyMs;
    delta.buckets[bucketOf(latencyMs)] += 1;
  }

  /** Writes what is pending; flushes never overlap. Failed batches are kept for the next try. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      if (this.alsoOnFlush) {
        try {
          await this.alsoOnFlush();
        } catch (err) {
          this.log.warn({ err: (err as Error).message }, 'usage: could not write last-use times');
        }
      }
      if (this.pending.size === 0) return;
      const batch = this.pending;
      this.pending = new Map();
      this.index.clear();
      try {
        await this.store.add([...batch.values()]);
      } catch (err) {
        this.log.warn({ err: (err as Error).message, rows: batch.size }, 'usage: could not write counters; will retry');
        for (const [key, delta] of batch) {
          const now = this.pending.get(key);
          if (!now) {
            if (this.pending.size < this.maxPending) this.pending.set(key, delta);
            continue;
          }
          now.count += delta.count;
          now.latencySumMs += delta.latencySumMs;
          now.latencyMaxMs = Math.max(now.latencyMaxMs, delta.latencyMaxMs);
          delta.buckets.forEach((n, i) => (now.buckets[i] += n));
        }
      }
    });
    return this.flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
