import { createHash } from 'node:crypto';
import { uuidv7 } from 'uuidv7';
import { columnsOf, CsvError, type CsvRecord } from './csv.js';
import { normaliseVietnamMobile } from './phone.js';
import { ALPHA_EVENT_TYPES, type AlphaEventRow, type AlphaEventType } from './schema.js';
import type { CreditStore } from './store.js';
import { parseTimestamp } from './timestamps.js';

export const EVENT_COLUMNS = ['phone', 'event_type', 'occurred_at'] as const;
export const EVENT_OPTIONAL_COLUMNS = ['amount', 'days_late', 'event_id'] as const;

export interface RejectedRow {
  line: number;
  reason: string;
}

export interface ImportReport {
  import_id: string;
  file: string;
  /** Data rows read (header excluded). */
  rows: number;
  inserted: number;
  /** Valid rows already stored (an earlier import, or repeated in this file). */
  duplicates: number;
  rejected: number;
  /** The first rejected rows with their reasons (all of them up to the cap). */
  rejects: RejectedRow[];
  /** True when --strict refused the whole file because a row was invalid. */
  refused: boolean;
}

export interface ImportOptions {
  fileName: string;
  /** Refuse the whole file when any row is invalid (nothing is imported). */
  strict?: boolean;
  now?: number;
  /** Staging rows of other imports silent this long are dropped as abandoned (default 10 minutes). */
  abandonAfterMs?: number;
}

/** Rejects kept in the report; the count goes on beyond. */
const MAX_REPORTED_REJECTS = 10_000;
const BATCH = 2000;
const DEFAULT_ABANDON_MS = 600_000;
const MAX_AMOUNT = 1e12;

type Checked = { ok: true; row: Omit<AlphaEventRow, 'id' | 'app_code' | 'import_id' | 'created_time'> } | { ok: false; reason: string };

function checkRow(fields: string[], col: Record<(typeof EVENT_COLUMNS)[number] | (typeof EVENT_OPTIONAL_COLUMNS)[number], number>, width: number, now: number): Checked {
  if (fields.length !== width) return { ok: false, reason: `expected ${width} fields as in the header, got ${fields.length}` };
  const get = (i: number) => (i >= 0 ? fields[i].trim() : '');
  const phone = normaliseVietnamMobile(get(col.phone));
  if (!phone.ok) return { ok: false, reason: phone.message };
  const type = get(col.event_type).toLowerCase() as AlphaEventType;
  if (!ALPHA_EVENT_TYPES.includes(type)) return { ok: false, reason: `event_type "${get(col.event_type).slice(0, 40)}" is not one of ${ALPHA_EVENT_TYPES.join(', ')}` };
  const time = parseTimestamp(get(col.occurred_at), now);
  if (!time.ok) return { ok: false, reason: `occurred_at ${time.message}` };

  const amountText = get(col.amount);
  let amount: number | null = null;
  if (amountText) {
    amount = Number(amountText);
    if (!Number.isFinite(amount) || amount < 0 || amount > MAX_AMOUNT)
      return { ok: false, reason: `amount "${amountText.slice(0, 40)}" is not a number from 0 to ${MAX_AMOUNT}` };
  }
  if ((type === 'topup' || type === 'bill_payment') && amount === null) return { ok: false, reason: `a ${type} needs an amount (VND)` };

  const lateText = get(col.days_late);
  let daysLate: number | null = null;
  if (lateText) {
    daysLate = Number(lateText);
    if (!Number.isInteger(daysLate) || daysLate < 0 || daysLate > 3650)
      return { ok: false, reason: `days_late "${lateText.slice(0, 40)}" is not a whole number of days from 0 to 3650` };
    if (type !== 'bill_payment') return { ok: false, reason: 'days_late belongs only to bill_payment rows' };
  }
  const eventId = get(col.event_id);
  if (eventId.length > 200) return { ok: false, reason: 'event_id is longer than 200 characters' };
  const occurredAt = new Date(time.ms).toISOString();
  const key = eventId
    ? `id:${eventId}`
    : 'h:' +
      createHash('sha256')
        .update([phone.phone, type, occurredAt, amount ?? '', daysLate ?? ''].join('|'))
        .digest('hex')
        .slice(0, 40);
  return { ok: true, row: { event_key: key, phone: phone.phone, event_type: type, occurred_at: occurredAt, amount, days_late: daysLate } };
}

/**
 * Imports alpha events for one application from CSV records, validating row
 * by row: valid rows are staged in batches, invalid ones are reported with
 * their line and reason; then the whole import becomes visible in one
 * transaction with its record in credit_imports, so a killed import leaves
 * no event behind (only staging rows, dropped by a later import once silent
 * for `abandonAfterMs`). Idempotent: each event has a key (event_id, or a
 * hash of its content), so importing the same file again adds nothing.
 * Under `strict`, `open` is called twice: check every row, then import.
 */
export async function importAlphaEvents(store: CreditStore, appCode: string, open: () => AsyncIterable<CsvRecord>, opts: ImportOptions): Promise<ImportReport> {
  const now = opts.now ?? Date.now();
  const report: ImportReport = { import_id: uuidv7(), file: opts.fileName, rows: 0, inserted: 0, duplicates: 0, rejected: 0, rejects: [], refused: false };
  const reject = (line: number, reason: string) => {
    report.rejected++;
    if (report.rejects.length < MAX_REPORTED_REJECTS) report.rejects.push({ line, reason });
  };

  type Column = (typeof EVENT_COLUMNS)[number] | (typeof EVENT_OPTIONAL_COLUMNS)[number];
  let staged = 0;
  /** One read of the file: `count` tallies rows and rejects, `write` stores the valid rows. */
  const pass = async (count: boolean, write: boolean) => {
    let col: Record<Column, number> | undefined;
    let width = 0;
    let batch: AlphaEventRow[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      // Each batch's time is the import's heartbeat: staging rows of an import silent too long are dropped.
      const created = new Date().toISOString();
      await store.stageEvents(batch.map((row) => ({ ...row, created_time: created })));
      staged += batch.length;
      batch = [];
    };
    for await (const record of open()) {
      if (!col) {
        col = columnsOf<Column>(record.fields, EVENT_COLUMNS, EVENT_OPTIONAL_COLUMNS);
        width = record.fields.length;
        continue;
      }
      if (count) report.rows++;
      const checked = checkRow(record.fields, col, width, now);
      if (!checked.ok) {
        if (count) reject(record.line, checked.reason);
        continue;
      }
      if (!write) continue;
      batch.push({ ...checked.row, id: uuidv7(), app_code: appCode, import_id: report.import_id, created_time: '' });
      if (batch.length >= BATCH) await flush();
    }
    if (!col) throw new CsvError(1, 'the file is empty: a header line is needed (phone,event_type,occurred_at,...)');
    await flush();
  };

  // Rows staged by imports whose process died are dropped first (they never became visible).
  await store.dropAbandonedStaging(new Date(Date.now() - (opts.abandonAfterMs ?? DEFAULT_ABANDON_MS)).toISOString());
  try {
    if (opts.strict) {
      await pass(true, false);
      if (report.rejected > 0) {
        report.refused = true;
        return report;
      }
      await pass(false, true);
    } else {
      await pass(true, true);
    }
    const counts = await store.commitImport(
      {
        id: report.import_id,
        app_code: appCode,
        source: 'alpha',
        file_name: opts.fileName.slice(0, 500),
        rows_total: report.rows,
        rejected: report.rejected,
        created_time: new Date().toISOString(),
      },
      staged,
    );
    report.inserted = counts.inserted;
    report.duplicates = counts.duplicates;
  } catch (err) {
    // Nothing of a failed import becomes visible; its staged rows go now (or, if this fails too, with the next import).
    await store.dropStaging(report.import_id).catch(() => undefined);
    throw err;
  }
  return report;
}
