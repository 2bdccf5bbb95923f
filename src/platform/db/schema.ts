/**
 * Row types of every table, as Kysely sees them. Ids are text, timestamps are
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

export interface IntentRow {
  code: string;
  app_code: string;
  label: string;
  description: string;
  type: number;
  created_time: string;
}

export interface SampleRow {
  code: string;
  app_code: string;
  content: string;
  created_time: string;
}

export interface EntityRow {
  code: string;
  app_code: string;
  label: string;
  type: number;
  description: string;
  created_time: string;
}

export interface IntentSampleRow {
  code: string;
  app_code: string;
  intent_code: string;
  sample_code: string;
  created_time: string;
}

export interface EntitySampleRow {
  code: string;
  app_code: string;
  entity_code: string;
  sample_code: string;
  parent_code: string;
  value: string;
  start: number;
  end: number;
  created_time: string;
}

export interface Database {
  applications: ApplicationRow;
  credentials: CredentialRow;
  jobs: JobRow;
  nlu_intents: IntentRow;
  nlu_samples: SampleRow;
  nlu_entities: EntityRow;
  nlu_intent_samples: IntentSampleRow;
  nlu_entity_samples: EntitySampleRow;
}
