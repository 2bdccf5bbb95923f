import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, test } from 'node:test';
import { CsvError, readCsv, type CsvRecord } from '../../../src/credit/csv.js';
import { alphaFeatures, type AlphaEvent } from '../../../src/credit/sources/alpha-features.js';
import { parseTimestamp } from '../../../src/credit/timestamps.js';

const DAY = 86_400_000;
const T = Date.parse('2024-06-01T00:00:00Z');
const at = (daysBefore: number) => T - daysBefore * DAY;

const history: AlphaEvent[] = [
  { type: 'activation', time: at(400), amount: null, daysLate: null },
  { type: 'topup', time: at(10), amount: 50_000, daysLate: null },
  { type: 'topup', time: at(40), amount: 100_000, daysLate: null },
  { type: 'topup', time: at(100), amount: 20_000, daysLate: null },
  { type: 'bill_payment', time: at(20), amount: 150_000, daysLate: 0 },
  { type: 'bill_payment', time: at(50), amount: 150_000, daysLate: 12 },
  { type: 'device_change', time: at(30), amount: null, daysLate: null },
  { type: 'device_change', time: at(500), amount: null, daysLate: null },
];

describe('alpha features', () => {
  test('computed from the history before the decision time', () => {
    assert.deepEqual(alphaFeatures(history, T), {
      tenure_days: 400,
      topup_count_90d: 2,
      topup_amount_90d: 150_000,
      topup_active_months_6m: 3,
      days_since_last_topup: 10,
      bill_payments_12m: 2,
      late_payment_ratio_12m: 0.5,
      max_days_late_12m: 12,
      device_changes_12m: 1,
    });
  });

  test('point in time: events at or after the decision time change nothing', () => {
    const future: AlphaEvent[] = [
      { type: 'topup', time: T, amount: 9_000_000, daysLate: null },
      { type: 'topup', time: T + DAY, amount: 9_000_000, daysLate: null },
      { type: 'bill_payment', time: T + 5 * DAY, amount: 1, daysLate: 300 },
      { type: 'device_change', time: T + 1, amount: null, daysLate: null },
      { type: 'activation', time: T + 2 * DAY, amount: null, daysLate: null },
    ];
    assert.deepEqual(alphaFeatures([...future, ...history, ...future], T), alphaFeatures(history, T));
  });

  test('no event before the decision time: the source knows nothing (null)', () => {
    assert.equal(alphaFeatures([], T), null);
    assert.equal(alphaFeatures([{ type: 'topup', time: T + DAY, amount: 10_000, daysLate: null }], T), null);
  });

  test('no bills: the bill ratios are missing, not zero', () => {
    const f = alphaFeatures(
      history.filter((e) => e.type !== 'bill_payment'),
      T,
    );
    assert.equal(f?.late_payment_ratio_12m, null);
    assert.equal(f?.max_days_late_12m, null);
    assert.equal(f?.bill_payments_12m, 0);
  });
});

async function records(chunks: string[]): Promise<CsvRecord[]> {
  const out: CsvRecord[] = [];
  for await (const r of readCsv(Readable.from(chunks.map((c) => Buffer.from(c))))) out.push(r);
  return out;
}

describe('CSV reader', () => {
  test('quotes, doubled quotes, CRLF, a BOM, blank lines and line numbers', async () => {
    const text = '\ufeffa,b,c\r\n1,"x, y",3\r\n\r\n"say ""hi""",,"multi\nline"\n4,5,6';
    assert.deepEqual(await records([text]), [
      { line: 1, fields: ['a', 'b', 'c'] },
      { line: 2, fields: ['1', 'x, y', '3'] },
      { line: 4, fields: ['say "hi"', '', 'multi\nline'] },
      { line: 6, fields: ['4', '5', '6'] },
    ]);
  });

  test('the same records whatever the chunk boundaries (split quotes, CRLF, UTF-8 characters)', async () => {
    const text = 'phone,note\r\n0912345678,"Nguyễn ""Văn"" A"\r\n0987654321,"b,c"\r\n';
    const whole = await records([text]);
    const bytes = Buffer.from(text);
    for (let cut = 1; cut < bytes.length; cut++) {
      const out: CsvRecord[] = [];
      for await (const r of readCsv(Readable.from([bytes.subarray(0, cut), bytes.subarray(cut)]))) out.push(r);
      assert.deepEqual(out, whole, `cut at byte ${cut}`);
    }
  });

  test('an unclosed quote is an error with its line, not a hang or a crash', async () => {
    await assert.rejects(records(['a,b\n1,"open\n2,3\n']), (err: unknown) => err instanceof CsvError && err.line === 2);
  });
});

describe('timestamps in files', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');
  test('Unix seconds and ISO-8601 with a zone', () => {
    assert.deepEqual(parseTimestamp('1717200000', now), { ok: true, ms: 1717200000_000 });
    assert.deepEqual(parseTimestamp('2024-06-01T07:00:00+07:00', now), { ok: true, ms: Date.parse('2024-06-01T00:00:00Z') });
    assert.deepEqual(parseTimestamp('2024-06-01 00:00:00Z', now), { ok: true, ms: Date.parse('2024-06-01T00:00:00Z') });
    assert.deepEqual(parseTimestamp('2024-06-01T07:00+0700', now), { ok: true, ms: Date.parse('2024-06-01T00:00:00Z') });
  });
  test('refuses local times, nonsense, the far past and the future', () => {
    for (const bad of ['2024-06-01 10:00:00', '2024-06-01', 'yesterday', '2024-13-45T00:00:00Z', '1980-01-01T00:00:00Z', '2030-01-01T00:00:00Z', '-5']) {
      assert.equal(parseTimestamp(bad, now).ok, false, bad);
    }
  });
});
