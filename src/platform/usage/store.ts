import { sql } from 'kysely';
import type { Store } from '../db/database.js';
import type { QuotaRow, UsageRow } from '../db/schema.js';
import { BUCKET_COLUMNS, BUCKET_COUNT, quantileMs } from './histogram.js';

/** One aggregated slice of usage, as the CLI, the admin API and the console show it. */
export interface UsageLine {
  service: string;
  endpoint: string;
  count: number;
  errors: number;
  p50_ms: number | null;
  p95_ms: number | null;
  max_ms: number;
  mean_ms: number | null;
}

export interface UsageDay {
  day: string;
  service: string;
  count: number;
  errors: number;
  p50_ms: number | null;
  p95_ms: number | null;
}

export interface UsageReport {
  app_code: string;
  from: string;
  to: string;
  total: number;
  errors: number;
  endpoints: UsageLine[];
  days: UsageDay[];
}

/** A pending increment for one usage row, as the recorder batches it. */
export interface UsageDelta {
  app_code: string;
  day: string;
  service: string;
  endpoint: string;
  status: number;
  count: number;
  latencySumMs: number;
  latencyMaxMs: number;
  buckets: number[];
}

/** An answer is an error when its HTTP status is 4xx or 5xx. */
const isError = (status: number) => status >= 400;

/** Usage rows and quotas in the relational store (both engines). */
export class UsageStore {
  constructor(private readonly store: Store) {}

  /** Adds a batch of deltas in one transaction: insert, or add to the row that is there. */
  async add(deltas: readonly UsageDelta[]): Promise<void> {
    if (deltas.length === 0) return;
    const greatest = this.store.dialect === 'postgres' ? 'greatest' : 'max';
    await this.store.db.transaction().execute(async (trx) => {
      // Chunks keep each statement under SQLite's bound-variable limit.
      for (let i = 0; i < deltas.length; i += 20) {
        const rows = deltas.slice(i, i + 20).map((d) => {
          const row: Record<string, unknown> = {
            app_code: d.app_code,
            day: d.day,
            service: d.service,
            endpoint: d.endpoint,
            status: d.status,
            count: d.count,
            latency_sum_ms: d.latencySumMs,
            latency_max_ms: d.latencyMaxMs,
          };
          BUCKET_COLUMNS.forEach((column, b) => (row[column] = d.buckets[b] ?? 0));
          return row as unknown as UsageRow;
        });
        const set: Record<string, unknown> = {
          count: sql`usage_daily.count + excluded.count`,
          latency_sum_ms: sql`usage_daily.latency_sum_ms + excluded.latency_sum_ms`,
          latency_max_ms: sql`${sql.raw(greatest)}(usage_daily.latency_max_ms, excluded.latency_max_ms)`,
        };
        for (const column of BUCKET_COLUMNS) set[column] = sql`${sql.ref(`usage_daily.${column}`)} + ${sql.ref(`excluded.${column}`)}`;
        await trx
          .insertInto('usage_daily')
          .values(rows)
          .onConflict((oc) => oc.columns(['app_code', 'day', 'service', 'endpoint', 'status']).doUpdateSet(set as never))
          .execute();
      }
      // Counts taken before their application was deleted (`saola app delete --purge` runs in another
      // process while this one still holds them) must not bring its rows back after the purge.
      const codes = [...new Set(deltas.map((d) => d.app_code))];
      await trx.deleteFrom('usage_daily').where('app_code', 'in', codes).where('app_code', 'not in', trx.selectFrom('applications').select('code')).execute();
    });
  }

  /** Usage of one application between two UTC days (inclusive), per endpoint and per service and day. */
  async report(appCode: string, from: string, to: string, service?: string): Promise<UsageReport> {
    let query = this.store.db.selectFrom('usage_daily').selectAll().where('app_code', '=', appCode).where('day', '>=', from).where('day', '<=', to);
    if (service) query = query.where('service', '=', service);
    const rows = await query.execute();
    const byEndpoint = new Map<string, Acc>();
    const byDay = new Map<string, Acc>();
    for (const row of rows) {
      merge(byEndpoint, `${row.service}\u0000${row.endpoint}`, row);
      merge(byDay, `${row.day}\u0000${row.service}`, row);
    }
    const endpoints = [...byEndpoint.entries()]
      .map(([key, a]) => {
        const [svc, endpoint] = key.split('\u0000');
        return {
          service: svc,
          endpoint,
          count: a.count,
          errors: a.errors,
          p50_ms: quantileMs(a.buckets, 0.5, a.max),
          p95_ms: quantileMs(a.buckets, 0.95, a.max),
          max_ms: round(a.max),
          mean_ms: a.count ? round(a.sum / a.count) : null,
        };
      })
      .sort((x, y) => x.service.localeCompare(y.service) || y.count - x.count);
    const days = [...byDay.entries()]
      .map(([key, a]) => {
        const [day, svc] = key.split('\u0000');
        return { day, service: svc, count: a.count, errors: a.errors, p50_ms: quantileMs(a.buckets, 0.5, a.max), p95_ms: quantileMs(a.buckets, 0.95, a.max) };
      })
      .sort((x, y) => x.day.localeCompare(y.day) || x.service.localeCompare(y.service));
    const total = endpoints.reduce((s, e) => s + e.count, 0);
    const errors = endpoints.reduce((s, e) => s + e.errors, 0);
    return { app_code: appCode, from, to, total, errors, endpoints, days };
  }

  /** Requests an application made to a service on one day, as stored (the per-day quota starts from it). */
  async countOn(appCode: string, service: string, day: string): Promise<number> {
    const row = await this.store.db
      .selectFrom('usage_daily')
      .select((eb) => eb.fn.sum<number>('count').as('n'))
      .where('app_code', '=', appCode)
      .where('service', '=', service)
      .where('day', '=', day)
      // Refused requests did not use the quota.
      .where('status', '<>', 429)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  async quotas(appCode?: string): Promise<QuotaRow[]> {
    let query = this.store.db.selectFrom('usage_quotas').selectAll();
    if (appCode) query = query.where('app_code', '=', appCode);
    return query.orderBy('app_code').orderBy('service').execute();
  }

  /** Sets (or, with both limits null, removes) an application's quota for one service. */
  async setQuota(appCode: string, service: string, perMinute: number | null, perDay: number | null): Promise<QuotaRow | null> {
    if (perMinute === null && perDay === null) {
      await this.store.db.deleteFrom('usage_quotas').where('app_code', '=', appCode).where('service', '=', service).execute();
      return null;
    }
    const row: QuotaRow = { app_code: appCode, service, per_minute: perMinute, per_day: perDay, updated_time: new Date().toISOString() };
    await this.store.db
      .insertInto('usage_quotas')
      .values(row)
      .onConflict((oc) => oc.columns(['app_code', 'service']).doUpdateSet({ per_minute: perMinute, per_day: perDay, updated_time: row.updated_time }))
      .execute();
    return row;
  }
}

interface Acc {
  count: number;
  errors: number;
  sum: number;
  max: number;
  buckets: number[];
}

function merge(map: Map<string, Acc>, key: string, row: UsageRow): void {
  let acc = map.get(key);
  if (!acc) map.set(key, (acc = { count: 0, errors: 0, sum: 0, max: 0, buckets: new Array(BUCKET_COUNT).fill(0) }));
  const count = Number(row.count);
  acc.count += count;
  if (isError(Number(row.status))) acc.errors += count;
  acc.sum += Number(row.latency_sum_ms);
  acc.max = Math.max(acc.max, Number(row.latency_max_ms));
  BUCKET_COLUMNS.forEach((column, i) => (acc.buckets[i] += Number((row as unknown as Record<string, number>)[column])));
}

const round = (ms: number) => Math.round(ms * 10) / 10;

/** The UTC day of a moment, as usage rows store it. */
export function utcDay(at: Date | number = Date.now()): string {
  return new Date(at).toISOString().slice(0, 10);
}
