import { columnsOf, CsvError, type CsvRecord } from './csv.js';
import type { RejectedRow } from './import.js';
import { normaliseVietnamMobile } from './phone.js';
import { parseTimestamp } from './timestamps.js';

/** One known outcome: a loan of `dltype` decided at `decisionTime` was repaid (1) or not (0). */
export interface Outcome {
  line: number;
  phone: string;
  decisionTime: Date;
  dltype: number;
  repaid: number;
}

export const OUTCOME_COLUMNS = ['phone', 'decision_time', 'dltype', 'repaid'] as const;

/** Reads an outcomes (labels) file: valid rows, and the rejected ones with their reasons. */
export async function readOutcomes(records: AsyncIterable<CsvRecord>, now = Date.now()): Promise<{ outcomes: Outcome[]; rejects: RejectedRow[] }> {
  const outcomes: Outcome[] = [];
  const rejects: RejectedRow[] = [];
  let col: Record<(typeof OUTCOME_COLUMNS)[number], number> | undefined;
  let width = 0;
  for await (const { line, fields } of records) {
    if (!col) {
      col = columnsOf(fields, OUTCOME_COLUMNS);
      width = fields.length;
      continue;
    }
    const reject = (reason: string) => rejects.push({ line, reason });
    if (fields.length !== width) {
      reject(`expected ${width} fields as in the header, got ${fields.length}`);
      continue;
    }
    const get = (i: number) => fields[i].trim();
    const phone = normaliseVietnamMobile(get(col.phone));
    if (!phone.ok) {
      reject(phone.message);
      continue;
    }
    const time = parseTimestamp(get(col.decision_time), now);
    if (!time.ok) {
      reject(`decision_time ${time.message}`);
      continue;
    }
    const dltype = get(col.dltype);
    if (dltype !== '1' && dltype !== '2') {
      reject(`dltype "${dltype.slice(0, 20)}" must be 1 (consumer loan) or 2 (cash loan)`);
      continue;
    }
    const repaid = get(col.repaid);
    if (repaid !== '0' && repaid !== '1') {
      reject(`repaid "${repaid.slice(0, 20)}" must be 1 (repaid) or 0 (defaulted)`);
      continue;
    }
    outcomes.push({ line, phone: phone.phone, decisionTime: new Date(time.ms), dltype: Number(dltype), repaid: Number(repaid) });
  }
  if (!col) throw new CsvError(1, 'the file is empty: a header line is needed (phone,decision_time,dltype,repaid)');
  return { outcomes, rejects };
}
