import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CsvError } from '../../../src/credit/csv.js';
import { CreditStore } from '../../../src/credit/store.js';
import { startTestApp, type TestApp } from '../../../fixtures/servers/app.js';
import { createTestDatabase, type TestDatabase } from '../../../fixtures/servers/postgres.js';
import { historyCsv, importCsv, score } from '../../support/credit/support.js';

const T = Math.floor(Date.parse('2025-03-01T00:00:00Z') / 1000);

/** One valid row of each kind, then one row per mistake; line numbers count the header as line 1. */
const MIXED = [
  'phone,event_type,occurred_at,amount,days_late,event_id', // 1
  '0912345678,activation,2022-01-01T00:00:00Z,,,', // 2 ok
  '"+84 912 345 678",topup,2024-12-01T10:00:00+07:00,"100000",,', // 3 ok (quoted)
  '0912.345.678,bill_payment,1733011200,150000,3,', // 4 ok (Unix seconds)
  '0912345678,DEVICE_CHANGE,2024-11-01 08:00:00Z,,,dc-1', // 5 ok (case, space separator, event_id)
  '02438123456,topup,2024-12-01T00:00:00Z,100000,,', // 6 landline
  '0912345678,loan_taken,2024-12-01T00:00:00Z,,,', // 7 unknown type
  '0912345678,topup,2024-12-01 10:00:00,100000,,', // 8 no zone
  '0912345678,topup,2099-01-01T00:00:00Z,100000,,', // 9 future
  '0912345678,topup,2024-12-01T00:00:00Z,,,', // 10 no amount
  '0912345678,topup,2024-12-01T00:00:00Z,-5,,', // 11 negative amount
  '0912345678,topup,2024-12-01T00:00:00Z,100000,2,', // 12 days_late on a topup
  '0912345678,bill_payment,2024-12-01T00:00:00Z,100000,1.5,', // 13 fractional days
  '0912345678,topup,2024-12-01T00:00:00Z', // 14 too few fields
  '0912345678,topup,not-a-date,100000,,', // 15 bad date
  '0912345678,device_change,2024-11-01T08:00:00Z,,,dc-1', // 16 ok but the same event_id as line 5: a duplicate
].join('\n');

const EXPECTED_REJECTS: [number, RegExp][] = [
  [6, /not a mobile/],
  [7, /event_type "loan_taken"/],
  [8, /no time zone/],
  [9, /future/],
  [10, /needs an amount/],
  [11, /amount "-5"/],
  [12, /days_late belongs only to bill_payment/],
  [13, /days_late "1.5"/],
  [14, /expected 6 fields/],
  [15, /not Unix seconds or an ISO-8601/],
];

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`alpha import (${engine})`, () => {
    let app: TestApp;
    let database: TestDatabase | undefined;

    before(async () => {
      if (engine === 'postgres') database = await createTestDatabase();
      app = await startTestApp(database ? { databaseUrl: database.url } : {});
    });
    after(async () => {
      await app.close();
      await database?.drop();
    });

    test('validates row by row: valid rows land, each rejected row is reported with its line and reason', async () => {
      const report = await importCsv(app.deps, app.appCode, MIXED);
      assert.equal(report.rows, 15);
      assert.equal(report.inserted, 4);
      assert.equal(report.duplicates, 1, 'line 16 repeats event_id dc-1');
      assert.equal(report.rejected, EXPECTED_REJECTS.length);
      assert.deepEqual(
        report.rejects.map((r) => r.line),
        EXPECTED_REJECTS.map(([line]) => line),
      );
      for (const [i, [, reason]] of EXPECTED_REJECTS.entries()) assert.match(report.rejects[i].reason, reason);
      assert.equal(await CreditStore.over(app.deps.store.db).countEvents(app.appCode), 4);
    });

    test('idempotent: importing the same file again adds nothing', async () => {
      const again = await importCsv(app.deps, app.appCode, MIXED);
      assert.equal(again.inserted, 0);
      assert.equal(again.duplicates, 5);
      assert.equal(await CreditStore.over(app.deps.store.db).countEvents(app.appCode), 4);
    });

    test('--strict refuses the whole file when one row is bad', async () => {
      const phone = '84977123456';
      const file = historyCsv(phone, T) + `${phone},topup,yesterday,1000,\n`;
      const report = await importCsv(app.deps, app.appCode, file, true);
      assert.equal(report.refused, true);
      assert.equal(report.inserted, 0);
      assert.equal(report.rejected, 1);
      const r = await score(app.url, app.apiKey, { phone, dltype: 1, decision_time: T });
      assert.equal(r.body.alpha_score, -1, 'nothing was imported');
      const clean = await importCsv(app.deps, app.appCode, historyCsv(phone, T), true);
      assert.equal(clean.refused, false);
      assert.equal(clean.inserted, 37);
    });

    test('a file without the required columns, or empty, is refused as a whole', async () => {
      await assert.rejects(importCsv(app.deps, app.appCode, 'phone,when\n0912345678,2024-01-01T00:00:00Z\n'), (err: unknown) => {
        return err instanceof CsvError && /event_type, occurred_at/.test(err.message);
      });
      await assert.rejects(importCsv(app.deps, app.appCode, ''), CsvError);
    });

    test('imported events are scored, point in time, per application', async () => {
      const phone = '84966554433';
      await importCsv(app.deps, app.appCode, historyCsv(phone, T));
      const mine = await score(app.url, app.apiKey, { phone, dltype: 2, decision_time: T });
      assert.ok(mine.body.alpha_score > 0 && mine.body.alpha_score < 1);
      const other = await app.newTenant(`other-${engine}`);
      const theirs = await score(app.url, other.apiKey, { phone, dltype: 2, decision_time: T });
      assert.equal(theirs.body.alpha_score, -1);
      assert.equal(await CreditStore.over(app.deps.store.db).countEvents(other.appCode), 0);
    });
  });
}
