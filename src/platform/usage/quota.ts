import type { Redis } from 'ioredis';
import type { QuotaRow } from '../db/schema.js';
import { utcDay, type UsageStore } from './store.js';

/** One fixed window's counter: counts a hit unless it would pass the limit. */
export interface QuotaCounter {
  /**
   * Adds one to `key` (a window that ends at `windowEnd` ms) when the count
   * stays within `limit`; `seed` gives the count a window starts from.
   */
  take(key: string, limit: number, windowEnd: number, seed: () => Promise<number>): Promise<boolean>;
  /** Gives back a hit taken in the same request (the other window refused it). */
  giveBack(key: string): Promise<void>;
  close(): Promise<void>;
}

/** Embedded counters: one process's memory. Several `saola serve` processes need the Redis counter. */
export class MemoryQuotaCounter implements QuotaCounter {
  private readonly windows = new Map<string, { count: number; end: number }>();

  async take(key: string, limit: number, windowEnd: number, seed: () => Promise<number>): Promise<boolean> {
    const now = Date.now();
    let window = this.windows.get(key);
    if (!window || window.end <= now) {
      if (this.windows.size > 100_000) for (const [k, w] of this.windows) if (w.end <= now) this.windows.delete(k);
      const start = await seed();
      window = this.windows.get(key) ?? { count: start, end: windowEnd };
      this.windows.set(key, window);
    }
    if (window.count >= limit) return false;
    window.count += 1;
    return true;
  }

  async giveBack(key: string): Promise<void> {
    const window = this.windows.get(key);
    if (window && window.count > 0) window.count -= 1;
  }

  async close(): Promise<void> {}
}

/** Shared counters in Redis (INCR on a key that expires with its window), for many processes. */
export class RedisQuotaCounter implements QuotaCounter {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async take(key: string, limit: number, windowEnd: number, seed: () => Promise<number>): Promise<boolean> {
    const full = `${this.prefix}:quota:${key}`;
    const ttl = Math.max(1000, windowEnd - Date.now() + 1000);
    if ((await this.redis.exists(full)) === 0) await this.redis.set(full, String(await seed()), 'PX', ttl, 'NX');
    const count = await this.redis.incr(full);
    if (count === 1) await this.redis.pexpire(full, ttl);
    if (count > limit) {
      await this.redis.decr(full);
      return false;
    }
    return true;
  }

  async giveBack(key: string): Promise<void> {
    await this.redis.decr(`${this.prefix}:quota:${key}`);
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}

export interface QuotaVerdict {
  /** Which limit refused: the message names it. */
  limit: 'minute' | 'day';
  allowed: number;
  retryAfterS: number;
}

/**
 * Per-application, per-service limits: requests per minute and per UTC day.
 * The table is re-read every few seconds, so `saola quota set` on any machine
 * takes effect without a restart. The day window starts from the counts
 * already stored today, so a restart does not hand out a fresh day.
 */
export class QuotaGate {
  private quotas = new Map<string, QuotaRow>();
  private loadedAt = 0;
  private loading: Promise<void> | undefined;

  constructor(
    private readonly store: UsageStore,
    private readonly counter: QuotaCounter,
    private readonly refreshMs = 5000,
  ) {}

  invalidate(): void {
    this.loadedAt = 0;
  }

  /**
   * False when no application has a quota (as of the last read), so requests
   * skip the check; it still starts the periodic re-read, so a quota set
   * elsewhere is seen within the refresh interval.
   */
  get mayLimit(): boolean {
    if (Date.now() - this.loadedAt > this.refreshMs) {
      void this.current().catch(() => undefined);
      // Not read yet: check (the first check awaits the read).
      if (this.loadedAt === 0) return true;
    }
    return this.quotas.size > 0;
  }

  private async current(): Promise<Map<string, QuotaRow>> {
    if (Date.now() - this.loadedAt > this.refreshMs) {
      this.loading ??= this.store
        .quotas()
        .then((rows) => {
          this.quotas = new Map(rows.map((r) => [`${r.app_code}\u0000${r.service}`, r]));
          this.loadedAt = Date.now();
        })
        .finally(() => (this.loading = undefined));
      // The first load is awaited; later ones refresh behind the requests that keep using the last table.
      if (this.loadedAt === 0) await this.loading;
    }
    return this.quotas;
  }

  /** Counts a request against its application's quota; answers why it is refused, or undefined. */
  async check(appCode: string, service: string): Promise<QuotaVerdict | undefined> {
    const quotas = await this.current();
    if (quotas.size === 0) return undefined;
    const quota = quotas.get(`${appCode}\u0000${service}`);
    if (!quota) return undefined;
    const now = Date.now();
    let minuteKey: string | undefined;
    if (quota.per_minute !== null) {
      const minute = Math.floor(now / 60_000);
      const end = (minute + 1) * 60_000;
      minuteKey = `${appCode}:${service}:m:${minute}`;
      if (!(await this.counter.take(minuteKey, quota.per_minute, end, async () => 0))) {
        return { limit: 'minute', allowed: quota.per_minute, retryAfterS: Math.max(1, Math.ceil((end - now) / 1000)) };
      }
    }
    if (quota.per_day !== null) {
      const day = utcDay(now);
      const end = Date.parse(`${day}T00:00:00.000Z`) + 86_400_000;
      const dayKey = `${appCode}:${service}:d:${day}`;
      if (!(await this.counter.take(dayKey, quota.per_day, end, () => this.store.countOn(appCode, service, day)))) {
        if (minuteKey) await this.counter.giveBack(minuteKey);
        return { limit: 'day', allowed: quota.per_day, retryAfterS: Math.max(1, Math.ceil((end - now) / 1000)) };
      }
    }
    return undefined;
  }
}
