/** Row types of the credit tables (timestamps are ISO-8601 text, ids UUIDv7 text). */

export type AlphaEventType = 'activation' | 'topup' | 'bill_payment' | 'device_change';
export const ALPHA_EVENT_TYPES: readonly AlphaEventType[] = ['activation', 'topup', 'bill_payment', 'device_change'];

/** One event of the alpha feature store, owned by the application that imported it. */
export interface AlphaEventRow {
  id: string;
  app_code: string;
  /** Idempotency key: the file's event_id, or a hash of the event's content. Unique per application. */
  event_key: string;
  /** Normalised, 84xxxxxxxxx. */
  phone: string;
  event_type: AlphaEventType;
  occurred_at: string;
  /** VND, for top-ups and bill payments. */
  amount: number | null;
  /** Days a bill was paid after its due date (0 on time). */
  days_late: number | null;
  import_id: string;
  created_time: string;
}

/** A trained scorecard, versioned per (application, source, dltype); the newest version is the one used. */
export interface CreditModelRow {
  id: string;
  app_code: string;
  source: string;
  dltype: number;
  version: number;
  /** The scorecard, JSON (see model/scorecard.ts). */
  model: string;
  /** Held-out metrics at training time, JSON. */
  metrics: string;
  train_rows: number;
  created_time: string;
}

/** What one `saola credit import` did, for audit. */
export interface CreditImportRow {
  id: string;
  app_code: string;
  source: string;
  file_name: string;
  rows_total: number;
  inserted: number;
  duplicates: number;
  rejected: number;
  created_time: string;
}

export type CreditTables = {
  credit_alpha_events: AlphaEventRow;
  credit_models: CreditModelRow;
  credit_imports: CreditImportRow;
  /** Rows of imports in progress (same columns as credit_alpha_events); created_time is the batch's. */
  credit_import_staging: AlphaEventRow;
};
