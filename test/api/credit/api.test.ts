import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { uuidv7 } from 'uuidv7';
import { SCORECARD_FORMAT, type Scorecard } from '../../../src/credit/model/scorecard.js';
import { CreditStore } from '../../../src/credit/store.js';
import { startTestApp, type TestApp } from '../../../fixtures/servers/app.js';
import { historyCsv, importCsv, iso, score } from '../../support/credit/support.js';

const DAY = 86_400;
const T = Math.floor(Date.parse('2025-03-01T00:00:00Z') / 1000);
const PHONE = '84912345678';

describe('GET /dmp/creditscoring/v1', () => {
  let app: TestApp;

  before(async () => {
    app = await startTestApp();
    const report = await importCsv(app.deps, app.appCode, historyCsv(PHONE, T));
    assert.equal(report.rejected, 0, JSON.stringify(report.rejects));
  });
  after(() => app.close());

  test('scores a known number from alpha with the shipped default model, whatever form the number is written in', async () => {
    const forms = ['0912345678', '+84 912 345 678', '84912345678', '0912.345.678', '(+84) 912-345-678'];
    const answers = await Promise.all(forms.map((phone) => score(app.url, app.apiKey, { phone, dltype: 1, decision_time: T })));
    for (const r of answers) {
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.phone, PHONE);
      assert.deepEqual(r.body, answers[0].body);
    }
    const body = answers[0].body;
    assert.deepEqual(Object.keys(body).slice(0, 5), ['phone', 'score', 'alpha_score', 'beta_score', 'gamma_score']);
    assert.ok(body.alpha_score > 0 && body.alpha_score < 1, `alpha_score ${body.alpha_score}`);
    assert.equal(body.beta_score, -1);
    assert.equal(body.gamma_score, -1);
    assert.equal(body.score, body.alpha_score, 'the mean of the scores that are not -1');
    assert.equal(body.models.alpha, 'global/alpha/1/v1');
    assert.equal(body.reasons.alpha.length, 3);
    for (const reason of body.reasons.alpha) {
      assert.equal(typeof reason.feature, 'string');
      assert.ok(['raises', 'lowers'].includes(reason.direction));
    }
  });

  test('the loan type picks the model', async () => {
    const consumer = await score(app.url, app.apiKey, { phone: PHONE, dltype: 1, decision_time: T });
    const cash = await score(app.url, app.apiKey, { phone: PHONE, dltype: 2, decision_time: T });
    assert.equal(cash.body.models.alpha, 'global/alpha/2/v1');
    assert.notEqual(cash.body.alpha_score, consumer.body.alpha_score);
  });

  test('a history of late bills scores lower than a clean one', async () => {
    const other = '84987654321';
    await importCsv(app.deps, app.appCode, historyCsv(other, T, { late: 25 }));
    const clean = await score(app.url, app.apiKey, { phone: PHONE, dltype: 1, decision_time: T });
    const late = await score(app.url, app.apiKey, { phone: other, dltype: 1, decision_time: T });
    assert.ok(late.body.alpha_score < clean.body.alpha_score, `${late.body.alpha_score} < ${clean.body.alpha_score}`);
    assert.ok(late.body.reasons.alpha.some((r: { feature: string; direction: string }) => /late/.test(r.feature) && r.direction === 'lowers'));
  });

  test('point in time: events after decision_time never change the score; events before it do', async () => {
    const phone = '84981112222';
    await importCsv(app.deps, app.appCode, historyCsv(phone, T));
    const before = await score(app.url, app.apiKey, { phone, dltype: 1, decision_time: T });
    const future = ['phone,event_type,occurred_at,amount,days_late'];
    for (let d = 0; d < 30; d++) future.push(`${phone},topup,${iso(T + d * DAY)},5000000,`);
    future.push(`${phone},bill_payment,${iso(T)},100000,90`, `${phone},device_change,${iso(T + 1)},,`, `${phone},activation,${iso(T + DAY)},,`);
    const report = await importCsv(app.deps, app.appCode, future.join('\n'));
    assert.equal(report.inserted, 33, JSON.stringify(report.rejects));
    const afterImport = await score(app.url, app.apiKey, { phone, dltype: 1, decision_time: T });
    assert.deepEqual(afterImport.body, before.body, 'events at or after decision_time leaked into the score');
    // The same events are in the past for a later decision: then they count.
    const later = await score(app.url, app.apiKey, { phone, dltype: 1, decision_time: T + 40 * DAY });
    assert.notDeepEqual(later.body.reasons, before.body.reasons);
  });

  test('a number with no data before decision_time: every score is -1, and so is score', async () => {
    const phone = '84977000111';
    await importCsv(app.deps, app.appCode, historyCsv(phone, T));
    const queries: Record<string, string | number>[] = [
      { phone: '0912000999', dltype: 1 },
      { phone, dltype: 1, decision_time: T - 1000 * DAY },
    ];
    for (const q of queries) {
      const r = await score(app.url, app.apiKey, q);
      assert.equal(r.status, 200);
      assert.deepEqual(
        { score: r.body.score, alpha: r.body.alpha_score, beta: r.body.beta_score, gamma: r.body.gamma_score },
        { score: -1, alpha: -1, beta: -1, gamma: -1 },
      );
      assert.deepEqual(r.body.reasons, {});
    }
  });

  test('source selection: 0 all (default), 1 alpha only, 2 beta only, 3 gamma only', async () => {
    const all = await score(app.url, app.apiKey, { phone: PHONE, dltype: 1, decision_time: T });
    const explicitAll = await score(app.url, app.apiKey, { phone: PHONE, dltype: 1, decision_time: T, source: 0 });
    const alpha = await score(app.url, app.apiKey, { phone: PHONE, dltype: 1, decision_time: T, source: 1 });
    assert.deepEqual(explicitAll.body, all.body);
    assert.deepEqual(alpha.body, all.body);
    for (const source of [2, 3]) {
      const r = await score(app.url, app.apiKey, { phone: PHONE, dltype: 1, decision_time: T, source });
      assert.equal(r.status, 200);
      assert.equal(r.body.alpha_score, -1, 'alpha was not asked, so it answers -1 although it has data');
      assert.equal(r.body.score, -1);
      assert.deepEqual(r.body.reasons, {});
    }
  });

  test('decision_time defaults to now', async () => {
    const r = await score(app.url, app.apiKey, { phone: PHONE, dltype: 1 });
    assert.equal(r.status, 200);
    assert.ok(r.body.alpha_score > 0, 'all the history lies before now');
  });

  test('bad queries get a clear JSON error with its own code', async () => {
    const now = Math.floor(Date.now() / 1000);
    const cases: [Record<string, string | number>, string][] = [
      [{ dltype: 1 }, 'INVALID_PHONE'],
      [{ phone: '02438123456', dltype: 1 }, 'INVALID_PHONE'],
      [{ phone: '+1 202 555 0123', dltype: 1 }, 'INVALID_PHONE'],
      [{ phone: '<script>', dltype: 1 }, 'INVALID_PHONE'],
      [{ phone: PHONE }, 'INVALID_DLTYPE'],
      [{ phone: PHONE, dltype: 3 }, 'INVALID_DLTYPE'],
      [{ phone: PHONE, dltype: 'cash' }, 'INVALID_DLTYPE'],
      [{ phone: PHONE, dltype: 1, source: 4 }, 'INVALID_SOURCE'],
      [{ phone: PHONE, dltype: 1, source: 'alpha' }, 'INVALID_SOURCE'],
      [{ phone: PHONE, dltype: 1, decision_time: 'yesterday' }, 'INVALID_DECISION_TIME'],
      [{ phone: PHONE, dltype: 1, decision_time: -5 }, 'INVALID_DECISION_TIME'],
      [{ phone: PHONE, dltype: 1, decision_time: now + 3600 }, 'DECISION_TIME_IN_FUTURE'],
      [{ phone: PHONE, dltype: 1, decision_time: now * 1000 }, 'DECISION_TIME_IN_FUTURE'],
    ];
    for (const [query, code] of cases) {
      const r = await score(app.url, app.apiKey, query);
      assert.equal(r.status, 400, `${JSON.stringify(query)}: ${r.text}`);
      assert.equal(r.body.code, code, JSON.stringify(query));
      assert.equal(typeof r.body.message, 'string');
      assert.ok(!/at .*\.ts:\d+/.test(r.text), 'no stack trace');
    }
    const twice = await fetch(`${app.url}/dmp/creditscoring/v1?phone=${PHONE}&phone=0987654321&dltype=1`, { headers: { api_key: app.apiKey } });
    assert.equal(twice.status, 400);
    const ms = await score(app.url, app.apiKey, { phone: PHONE, dltype: 1, decision_time: now * 1000 });
    assert.match(ms.body.message, /milliseconds/);
  });

  test('credentials: missing or wrong key is 401 in the service shape; every key spelling works', async () => {
    const none = await score(app.url, undefined, { phone: PHONE, dltype: 1 });
    assert.equal(none.status, 401);
    assert.equal(none.body.code, 'UNAUTHORIZED');
    const wrong = await score(app.url, 'sk_nope', { phone: PHONE, dltype: 1 });
    assert.equal(wrong.status, 401);
    for (const header of ['api-key', 'apikey']) {
      const r = await fetch(`${app.url}/dmp/creditscoring/v1?phone=${PHONE}&dltype=1`, { headers: { [header]: app.apiKey } });
      assert.equal(r.status, 200, header);
    }
    const viaQuery = await fetch(`${app.url}/dmp/creditscoring/v1?phone=${PHONE}&dltype=1&api_key=${app.apiKey}`);
    assert.equal(viaQuery.status, 200);
  });

  test("tenancy: one application never sees another application's imported events", async () => {
    const other = await app.newTenant('credit-other');
    const theirs = await score(app.url, other.apiKey, { phone: PHONE, dltype: 1, decision_time: T });
    assert.equal(theirs.status, 200);
    assert.equal(theirs.body.alpha_score, -1, "app B scored from app A's feature store");
    // B imports a bad history for the same number; A's answer must not move.
    const mine = await score(app.url, app.apiKey, { phone: PHONE, dltype: 1, decision_time: T });
    const report = await importCsv(app.deps, other.appCode, historyCsv(PHONE, T, { late: 40 }));
    assert.ok(report.inserted > 0, 'the same events are new for another application');
    const theirsNow = await score(app.url, other.apiKey, { phone: PHONE, dltype: 1, decision_time: T });
    assert.ok(theirsNow.body.alpha_score > 0 && theirsNow.body.alpha_score < mine.body.alpha_score);
    assert.deepEqual((await score(app.url, app.apiKey, { phone: PHONE, dltype: 1, decision_time: T })).body, mine.body);
  });

  test('/readyz reports the credit engine, its sources and default models', async () => {
    const r = await fetch(`${app.url}/readyz`);
    const body = (await r.json()) as { checks: { credit: Record<string, unknown> } };
    assert.equal(body.checks.credit.ok, true);
    assert.deepEqual(body.checks.credit.default_models, ['global/alpha/1/v1', 'global/alpha/2/v1']);
    assert.deepEqual(Object.keys(body.checks.credit.sources as object), ['alpha', 'beta', 'gamma']);
  });
});

describe('an HTTP-backed beta source', () => {
  let app: TestApp;
  let provider: http.Server;
  const asked: string[] = [];

  before(async () => {
    provider = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      asked.push(`${url.searchParams.get('phone')}@${url.searchParams.get('decision_time')} ${req.headers.authorization ?? ''}`);
      const phone = url.searchParams.get('phone');
      if (phone === '84911111111') return res.writeHead(404).end();
      if (phone === '84922222222') return res.writeHead(500).end('boom');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ features: { tenure_days: 2000, topup_count_90d: 20 } }));
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    const port = (provider.address() as AddressInfo).port;
    process.env.SAOLA_CREDIT_BETA_URL = `http://127.0.0.1:${port}/features`;
    process.env.SAOLA_CREDIT_BETA_TOKEN = 'beta-secret';
    try {
      app = await startTestApp();
    } finally {
      delete process.env.SAOLA_CREDIT_BETA_URL;
      delete process.env.SAOLA_CREDIT_BETA_TOKEN;
    }
  });
  after(async () => {
    await app.close();
    await new Promise((resolve) => provider.close(resolve));
  });

  test('asks the provider with the normalised phone and the decision time; no model for beta means -1', async () => {
    const r = await score(app.url, app.apiKey, { phone: '0933333333', dltype: 1, decision_time: T, source: 2 });
    assert.equal(r.status, 200);
    assert.deepEqual(asked, [`84933333333@${T} Bearer beta-secret`]);
    assert.equal(r.body.beta_score, -1, 'no beta model is trained');
  });

  test('a provider that is down or knows nothing costs only its own score', async () => {
    for (const phone of ['0911111111', '0922222222']) {
      const r = await score(app.url, app.apiKey, { phone, dltype: 1, decision_time: T });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.score, -1);
    }
    const ready = (await (await fetch(`${app.url}/readyz`)).json()) as { checks: { credit: { sources: Record<string, string> } } };
    assert.match(ready.checks.credit.sources.beta, /^http /);
  });

  test('with a beta model stored for the application, score is the mean of alpha and beta; other applications keep -1', async () => {
    const beta: Scorecard = {
      format: SCORECARD_FORMAT,
      source: 'beta',
      dltype: 1,
      version: 1,
      trained_time: new Date().toISOString(),
      trained_on: 'hand-written test model',
      train_rows: 0,
      train_good: 0,
      train_bad: 0,
      holdout: null,
      intercept: 1,
      features: [
        {
          name: 'tenure_days',
          coefficient: 1,
          iv: 0.5,
          bins: [
            { min: null, max: 1000, woe: -0.5, good: 1, bad: 1 },
            { min: 1000, max: null, woe: 0.5, good: 1, bad: 1 },
          ],
        },
      ],
    };
    const store = CreditStore.over(app.deps.store.db);
    const row = { id: uuidv7(), app_code: app.appCode, source: 'beta', dltype: 1, model: '', metrics: 'null', train_rows: 0, created_time: new Date().toISOString() };
    await store.saveModel(row, (version) => JSON.stringify({ ...beta, version }));
    await importCsv(app.deps, app.appCode, historyCsv(PHONE, T));
    const r = await score(app.url, app.apiKey, { phone: PHONE, dltype: 1, decision_time: T });
    const expectedBeta = Math.round((1 / (1 + Math.exp(-1.5))) * 1e4) / 1e4;
    assert.equal(r.body.beta_score, expectedBeta);
    assert.ok(r.body.alpha_score > 0);
    assert.equal(r.body.score, Math.round(((r.body.alpha_score + expectedBeta) / 2) * 1e4) / 1e4);
    assert.equal(r.body.models.beta, `${app.appCode}/beta/1/v1`);
    assert.deepEqual(r.body.reasons.beta, [{ feature: 'tenure_days', value: 2000, bin: '[1000, +inf)', effect: 0.5, direction: 'raises' }]);
    const onlyBeta = await score(app.url, app.apiKey, { phone: PHONE, dltype: 1, decision_time: T, source: 2 });
    assert.equal(onlyBeta.body.score, expectedBeta);
    assert.equal(onlyBeta.body.alpha_score, -1);

    const other = await app.newTenant('beta-other');
    const theirs = await score(app.url, other.apiKey, { phone: PHONE, dltype: 1, decision_time: T });
    assert.equal(theirs.body.beta_score, -1, "another application used this application's beta model");
  });
});
