/**
 * Row types of the platform's tables (services declare theirs in their own `schema.ts`), as Kysely sees them. Ids are text, timestamps are
 * ISO-8601 text, so both SQLite and PostgreSQL store them the same way.
 */
export interface ApplicationRow {
  code: string;
  name: string;
  created_time: string;
  revoked_time: string | null;
}

export type CredentialKind = 'api_key' | 'token';

export interface CredentialRow {
  id: string;
  app_code: string;
  kind: CredentialKind;
  /** sha256 of the secret, hex. The secret itself is never stored. */
  secret_hash: string;
  /** First characters of the secret, to tell keys apart in listings. */
  prefix: string;
  created_time: string;
  revoked_time: string | null;
  /** Added by the usage migration (0008); written in batches with the usage counters. */
  last_used_time: string | null;
}

export interface JobRow {
  id: string;
  queue: string;
  app_code: string | null;
  /** Idempotency key: one job per (queue, key). */
  job_key: string | null;
  payload: string;
  status: 'queued' | 'running' | 'done' | 'failed';
  attempts: number;
  max_attempts: number;
  run_at: string;
  lease_until: string | null;
  progress: number;
  result: string | null;
  last_error: string | null;
  created_time: string;
  updated_time: string;
}

/** One day's requests of an application to one endpoint with one status; `b0`..`b24` are the latency histogram's buckets. */
export interface UsageRow {
  app_code: string;
  day: string;
  service: string;
  endpoint: string;
  status: number;
  count: number;
  latency_sum_ms: number;
  latency_max_ms: number;
  [bucket: `b${number}`]: number;
}

export interface QuotaRow {
  app_code: string;
  service: string;
  per_minute: number | null;
  per_day: number | null;
  updated_time: string;
}

/** The origins an application lets browsers call from (CORS), JSON array of `scheme://host[:port]`. */
export interface CorsOriginsRow {
  app_code: string;
  origins: string;
  updated_time: string;
}

export interface Database {
  app_cors_origins: CorsOriginsRow;
  applications: ApplicationRow;
  credentials: CredentialRow;
  jobs: JobRow;
  usage_daily: UsageRow;
  usage_quotas: QuotaRow;
}
