import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { creditCommand } from '../../../src/credit/cli.js';
import { CreditStore } from '../../../src/credit/store.js';
import { CommandUsageError } from '../../../src/platform/cli.js';
import { loadConfig, type Config } from '../../../src/platform/config.js';
import { startTestApp, type TestApp } from '../../../fixtures/servers/app.js';
import { score } from '../../support/credit/support.js';
import { migrations } from '../../../src/services.js';

interface Run {
  code: number;
  out: string;
  err: string;
}

describe('saola credit (CLI, end to end)', () => {
  let dir: string;
  let config: Config;
  let app: TestApp;
  const file = (name: string) => path.join(dir, name);

  async function credit(...args: string[]): Promise<Run> {
    let out = '';
    let err = '';
    const code = await creditCommand({ config, migrations, args, stdout: (t) => (out += t), stderr: (t) => (err += t) });
    return { code, out, err };
  }
  const json = async (...args: string[]) => {
    const run = await credit(...args, '--json');
    return { ...run, body: JSON.parse(run.out) };
  };

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-credit-cli-'));
    const databaseUrl = `sqlite:${file('saola.db')}`;
    config = loadConfig({ SAOLA_DATA_DIR: dir, SAOLA_DATABASE_URL: databaseUrl });
    // The server and the CLI share one database, as on an operator's machine.
    app = await startTestApp({ databaseUrl });
  });
  after(async () => {
    await app.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('synth writes a synthetic population as import and outcome files', async () => {
    const run = await credit('synth', '--people', '1500', '--seed', '11', '--events', file('events.csv'), '--outcomes', file('outcomes.csv'));
    assert.equal(run.code, 0, run.err);
    assert.match(run.out, /SYNTHETIC/);
    const outcomes = fs.readFileSync(file('outcomes.csv'), 'utf8').trim().split('\n');
    assert.equal(outcomes[0], 'phone,decision_time,dltype,repaid');
    assert.equal(outcomes.length, 1501);
  });

  test('import alpha: loads the events, and a second run adds nothing', async () => {
    const first = await json('import', 'alpha', file('events.csv'), '--app', 'test-app');
    assert.equal(first.code, 0, first.err);
    assert.equal(first.body.rejected, 0);
    assert.ok(first.body.inserted > 10_000, `${first.body.inserted} events`);
    assert.equal(first.body.inserted, first.body.rows);
    const second = await credit('import', 'alpha', file('events.csv'), '--app', app.appCode);
    assert.equal(second.code, 0);
    assert.match(second.out, new RegExp(`${first.body.rows} rows, 0 new, ${first.body.rows} already present, 0 rejected`));
    assert.equal(await CreditStore.over(app.deps.store.db).countEvents(app.appCode), first.body.inserted);
  });

  test('import alpha: a file with bad rows reports them by line and writes the reject report', async () => {
    fs.writeFileSync(
      file('bad.csv'),
      'phone,event_type,occurred_at,amount\n0912345678,topup,2024-01-01T00:00:00Z,10000\n12345,topup,2024-01-01T00:00:00Z,10000\n0912345678,topup,2024-01-01T00:00:00Z,lots\n',
    );
    const run = await credit('import', 'alpha', file('bad.csv'), '--app', 'test-app', '--rejects', file('rejects.csv'));
    assert.equal(run.code, 2, 'rejected rows make the exit code 2');
    assert.match(run.out, /3 rows, 1 new, 0 already present, 2 rejected/);
    assert.match(run.out, /line 3: phone "12345"/);
    assert.match(run.out, /line 4: amount "lots"/);
    const report = fs.readFileSync(file('rejects.csv'), 'utf8').trim().split('\n');
    assert.equal(report[0], 'line,reason');
    assert.deepEqual(
      report.slice(1).map((l) => l.split(',')[0]),
      ['3', '4'],
    );
  });

  test('train alpha: one stored, versioned model per dltype, used by the server from the next request', async () => {
    const phone = fs.readFileSync(file('outcomes.csv'), 'utf8').split('\n')[1].split(',');
    const query = { phone: phone[0], dltype: 1, decision_time: phone[1] };
    const before = await score(app.url, app.apiKey, query);
    assert.equal(before.body.models.alpha, 'global/alpha/1/v1');

    const run = await json('train', 'alpha', '--outcomes', file('outcomes.csv'), '--app', 'test-app');
    assert.equal(run.code, 0, run.out + run.err);
    assert.equal(run.body.outcomes, 1500);
    assert.deepEqual(
      run.body.models.map((m: { dltype: number; version: number }) => [m.dltype, m.version]),
      [
        [1, 1],
        [2, 1],
      ],
    );
    for (const m of run.body.models) assert.ok(m.holdout.auc > 0.6, `dltype ${m.dltype} holdout AUC ${m.holdout.auc}`);

    const afterTraining = await score(app.url, app.apiKey, query);
    assert.equal(afterTraining.body.models.alpha, `${app.appCode}/alpha/1/v1`);

    const other = await app.newTenant('cli-other');
    const theirs = await score(app.url, other.apiKey, { ...query, dltype: 2 });
    assert.equal(theirs.body.alpha_score, -1, 'no events of theirs');
  });

  test('the stored model reproduces the scores it was measured with (eval on the same held-out phones gives the same numbers)', async () => {
    const models = await json('models', '--app', 'test-app');
    const trained = models.body.models.filter((m: { version: number }) => m.version === 1);
    const evaluated = await json('eval', '--app', 'test-app', '--outcomes', file('outcomes.csv'));
    assert.equal(evaluated.code, 0, evaluated.err);
    for (const result of evaluated.body.results) {
      const stored = JSON.parse(trained.find((m: { dltype: number }) => m.dltype === result.dltype).metrics);
      assert.equal(result.rows, stored.rows);
      assert.equal(Math.round(result.auc * 1e6) / 1e6, stored.auc);
      assert.equal(Math.round(result.ks * 1e6) / 1e6, stored.ks);
      assert.equal(Math.round(result.brier * 1e6) / 1e6, stored.brier);
      assert.equal(result.calibration.length, 10);
    }
  });

  test('training again stores the next version, which the server then uses', async () => {
    const run = await json('train', 'alpha', '--outcomes', file('outcomes.csv'), '--app', 'test-app', '--dltype', '2');
    assert.equal(run.code, 0);
    assert.deepEqual(
      run.body.models.map((m: { dltype: number; version: number }) => [m.dltype, m.version]),
      [[2, 2]],
    );
    const listed = await credit('models', '--app', 'test-app');
    assert.match(listed.out, /alpha dltype 2 v2/);
    const phone = fs.readFileSync(file('outcomes.csv'), 'utf8').split('\n')[1].split(',');
    const r = await score(app.url, app.apiKey, { phone: phone[0], dltype: 2, decision_time: phone[1] });
    assert.equal(r.body.models.alpha, `${app.appCode}/alpha/2/v2`);
  });

  test('eval without outcomes: the default models on a held-out synthetic population, AUC, KS and calibration', async () => {
    const run = await credit('eval');
    assert.equal(run.code, 0, run.err);
    assert.match(run.out, /synthetic, seed \d+/);
    assert.match(run.out, /dltype 1 {2}model global\/alpha\/1\/v1/);
    assert.match(run.out, /AUC 0\.\d{3} {2}KS 0\.\d{3}/);
    assert.match(run.out, /calibration/);
    const data = await json('eval');
    for (const result of data.body.results) {
      assert.ok(result.auc > 0.65 && result.ks > 0.25, `dltype ${result.dltype}: AUC ${result.auc}, KS ${result.ks}`);
      for (const row of result.calibration) assert.ok(Math.abs(row.meanPredicted - row.observedRepaid) < 0.1, 'calibrated within 10 points per decile');
    }
  });

  test('usage mistakes are reported, not crashes', async () => {
    assert.equal((await credit('--help')).code, 0);
    assert.equal((await credit()).code, 2);
    await assert.rejects(credit('import', 'beta', file('events.csv'), '--app', 'test-app'), CommandUsageError);
    await assert.rejects(credit('import', 'alpha', file('missing.csv'), '--app', 'test-app'), CommandUsageError);
    await assert.rejects(credit('import', 'alpha', file('events.csv')), /--app is required/);
    await assert.rejects(credit('import', 'alpha', file('events.csv'), '--app', 'nobody'), /No application "nobody"/);
    await assert.rejects(credit('train', 'alpha', '--app', 'test-app'), /--outcomes is required/);
    await assert.rejects(credit('train', 'delta', '--outcomes', file('outcomes.csv'), '--app', 'test-app'), /Unknown source/);
    await assert.rejects(credit('frobnicate'), /Unknown credit command/);
    await assert.rejects(credit('import', '--bogus'), CommandUsageError);
    fs.writeFileSync(file('broken.csv'), 'phone,event_type,occurred_at\n0912345678,"topup,2024\n');
    const broken = await credit('import', 'alpha', file('broken.csv'), '--app', 'test-app');
    assert.equal(broken.code, 2);
    assert.match(broken.err, /Invalid CSV: line 2/);
  });
});
