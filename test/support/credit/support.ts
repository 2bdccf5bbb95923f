import { Readable } from 'node:stream';
import { readCsv } from '../../../src/credit/csv.js';
import { importAlphaEvents, type ImportReport } from '../../../src/credit/import.js';
import { CreditStore } from '../../../src/credit/store.js';
import type { ServiceDeps } from '../../../src/platform/deps.js';
import { call, type Reply } from '../http.js';

/** CSV text as the record stream the importer reads. */
export const csvRecords = (text: string) => () => readCsv(Readable.from([Buffer.from(text)]));

export function importCsv(deps: ServiceDeps, appCode: string, text: string, strict = false): Promise<ImportReport> {
  return importAlphaEvents(CreditStore.over(deps.store.db), appCode, csvRecords(text), { fileName: 'test.csv', strict });
}

export const iso = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString();

export function score(base: string, apiKey: string | undefined, query: Record<string, string | number>): Promise<Reply> {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
  return call(base, 'GET', `/dmp/creditscoring/v1?${qs}`, { headers: apiKey ? { api_key: apiKey } : {} });
}

/** A year of ordinary history for a number, ending just before `t` (Unix seconds). */
export function historyCsv(phone: string, t: number, opts: { late?: number } = {}): string {
  const day = 86_400;
  const rows = ['phone,event_type,occurred_at,amount,days_late', `${phone},activation,${iso(t - 900 * day)},,`];
  for (let m = 1; m <= 12; m++) {
    rows.push(`${phone},topup,${iso(t - m * 30 * day + 3600)},100000,`);
    rows.push(`${phone},topup,${iso(t - m * 30 * day + 5 * day)},50000,`);
    rows.push(`${phone},bill_payment,${iso(t - m * 30 * day + 2 * day)},150000,${opts.late ?? 0}`);
  }
  return rows.join('\n') + '\n';
}
