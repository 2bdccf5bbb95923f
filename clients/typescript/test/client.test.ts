import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { retryAfterMs, Saola, SaolaError } from '../src/index.js';
import { startTestApp, type TestApp } from '../../../fixtures/servers/app.js';

/** The client against a real Saola server (started in-process on a random port). */
describe('@saola/client against a running server', () => {
  let app: TestApp;
  let saola: Saola;

  before(async () => {
    app = await startTestApp();
    saola = new Saola({ baseUrl: app.url, apiKey: app.apiKey, token: app.token });
  });
  after(() => app.close());

  test('NLU training data: intents, samples, mappings, entities, export and import', async () => {
    const intent = await saola.nlu.intents.create({ label: 'book_flight', description: 'đặt vé' });
    assert.equal(intent.label, 'book_flight');
    const sample = await saola.nlu.samples.create('tôi muốn bay ra Hà Nội');
    const mapping = await saola.nlu.intentSamples.create(intent.code, sample.code);
    assert.equal(mapping.intent_code, intent.code);
    assert.equal(mapping.intent_label, '', 'the spec answers the label empty on creation');
    const city = await saola.nlu.entities.create({ label: 'city', description: 'thành phố', type: 2 });
    const start = 'tôi muốn bay ra '.length;
    const tag = await saola.nlu.entitySamples.create({ entity_code: city.code, sample_code: sample.code, value: 'Hà Nội', start, end: start + 'Hà Nội'.length });
    assert.equal(tag.entity_code, city.code);
    const detail = await saola.nlu.samples.get(sample.code);
    assert.equal(detail.intent.intent_label, 'book_flight');
    assert.deepEqual(
      detail.entities.map((e) => e.value),
      ['Hà Nội'],
    );
    const list = await saola.nlu.samples.list({ limit: 10 });
    assert.deepEqual(
      list.map((s) => s.entities),
      [['city']],
    );
    const set = await saola.nlu.export();
    assert.equal(set.format, 'saola.nlu.v1');
    assert.equal(set.samples[0].intent, 'book_flight');
    const other = await app.newTenant('client-import');
    const imported = await new Saola({ baseUrl: app.url, token: other.token }).nlu.import(set);
    assert.deepEqual([imported.samples_created, imported.intents_created, imported.entity_links_created], [1, 1, 1]);
    await saola.nlu.entitySamples.delete(tag.entity_sample_code);
    await saola.nlu.samples.delete(sample.code);
    await assert.rejects(saola.nlu.samples.get(sample.code), (err: SaolaError) => err instanceof SaolaError && err.status === 404);
  });

  test('NLU training and prediction: keywords, train, waitForTraining with progress, predict, threshold, history', async () => {
    const tenant = await app.newTenant('client-train');
    const bot = new Saola({ baseUrl: app.url, token: tenant.token });
    const rows = [
      ...['đặt vé máy bay đi Huế', 'mua vé bay ra Hà Nội', 'tôi muốn bay vào Sài Gòn', 'đặt chuyến bay đi Đà Nẵng', 'book vé bay Hà Nội'].map((sample) => ({
        intent: 'book_flight',
        sample,
      })),
      ...['thời tiết Huế hôm nay', 'ngày mai Hà Nội có mưa không', 'trời Sài Gòn nóng không', 'dự báo thời tiết Đà Nẵng', 'Hà Nội có lạnh không'].map((sample) => ({
        intent: 'weather',
        sample,
      })),
    ];
    assert.equal((await bot.nlu.intentSamples.import(rows)).number_of_imported_sample, rows.length);
    await bot.nlu.entities.create({ label: 'city', description: 'thành phố', type: 2 });
    await bot.nlu.keywords.put('city', 'Hồ Chí Minh', ['Sài Gòn', 'tphcm']);
    assert.deepEqual(await bot.nlu.keywords.list('city'), [{ value: 'Hồ Chí Minh', synonyms: ['Sài Gòn', 'tphcm'] }]);
    assert.equal((await bot.nlu.trainStatus()).trainable, true);

    const queued = await bot.nlu.train();
    assert.ok([0, 1].includes(queued.status[0]!.state));
    const seen: number[] = [];
    const done = await bot.nlu.waitForTraining({ pollMs: 50, onProgress: (st) => seen.push(st.progress) });
    assert.equal(done.status, 2);
    assert.equal(done.progress, 100);
    assert.equal(done.trainable, false);
    assert.equal(seen.at(-1), 100);

    const answer = await bot.nlu.predict('cho mình vé bay vào tphcm ngày mai', { saveHistory: true });
    assert.equal(answer.data.intents?.[0]?.label, 'book_flight');
    const city = answer.data.entities?.find((e) => e.entity === 'city');
    assert.deepEqual([city?.value, city?.real_value], ['tphcm', 'Hồ Chí Minh']);
    assert.equal((await bot.nlu.predict('thời tiết Huế', { part: 'intent' })).data.entities, undefined);
    const measures = (await bot.nlu.predict('vé 2 triệu đồng, bay 2 tiếng', { part: 'entity' })).data.entities ?? [];
    assert.deepEqual(
      measures.map((e) => [e.entity, e.value, e.real_value, e.subentities.map((s) => [s.entity, s.real_value])]),
      [
        ['sys_money', '2 triệu đồng', '2000000 VND', [['sys_number', 2000000]]],
        ['sys_number', '2 triệu', 2000000, []],
        ['sys_duration', '2 tiếng', 'PT2H', [['sys_number', 2]]],
        ['sys_number', '2', 2, []],
      ],
    );

    // The inbox: the saved prediction reported, listed, labelled into a sample that records its origin.
    const reported = await bot.nlu.inbox.report(answer.data.history_id, 'sai rồi');
    assert.deepEqual([reported.state, reported.reasons.includes('reported'), reported.comment], ['open', true, 'sai rồi']);
    const inbox = await bot.nlu.inbox.list({ reason: 'reported' });
    assert.equal(inbox.total_items, 1);
    assert.equal(inbox.groups[0]!.items[0]!.history_id, answer.data.history_id);
    const start = 'cho mình vé bay vào '.length;
    const labelled = await bot.nlu.inbox.label('book_flight', [{ history_id: answer.data.history_id, entities: [{ entity: 'city', start, end: start + 5 }] }]);
    assert.deepEqual([labelled.labelled, labelled.samples_created, labelled.intents_created], [1, 1, 0]);
    assert.equal((await bot.nlu.inbox.list()).total_items, 0, 'no open item left');
    const item = (await bot.nlu.inbox.list({ state: 'labelled' })).groups[0]!.items[0]!;
    const origin = await bot.nlu.sampleOrigin(item.sample_code);
    assert.deepEqual([origin.source, origin.history_id], ['inbox', answer.data.history_id]);
    assert.equal(
      (await bot.nlu.inbox.stats(2)).days.reduce((n, d) => n + d.labelled, 0),
      1,
    );
    assert.deepEqual(await bot.nlu.inbox.setSettings({ history_retention_days: 30 }), { history_retention_days: 30, mask_history: false });
    assert.equal((await bot.nlu.inbox.settings()).history_retention_days, 30);
    assert.deepEqual(await bot.nlu.inbox.dismiss([answer.data.history_id]), { resolved: 1 });
    assert.equal((await bot.nlu.inbox.list({ state: 'dismissed' })).total_items, 1);

    // The model's cross-validated report; no version before it to compare with.
    const report = await bot.nlu.reports.waitFor(undefined, { pollMs: 50 });
    assert.equal(report.model_code, done.model_code);
    assert.equal(report.samples, rows.length);
    assert.deepEqual(report.intents.per_intent.map((r) => r.intent).sort(), ['book_flight', 'weather']);
    await assert.rejects(bot.nlu.reports.compare(), (err: SaolaError) => err.status === 404 && (err.body as { code: string }).code === 'REPORT_NOT_FOUND');

    assert.deepEqual(await bot.nlu.settings.setThreshold(1), { threshold: 1 });
    assert.deepEqual((await bot.nlu.predict('thời tiết', { part: 'intent' })).data.intents, [], 'under the threshold');
    assert.equal((await bot.nlu.settings.get()).threshold, 1);

    const history = await bot.nlu.history.list({ limit: 10 });
    assert.equal(history.total, 1);
    assert.equal(history.items[0]!.content, 'cho mình vé bay vào tphcm ngày mai');
    await bot.nlu.history.delete(history.items[0]!.history_id);
    assert.equal((await bot.nlu.history.list()).total, 0);
    await bot.nlu.keywords.delete('city', 'Hồ Chí Minh');
    assert.deepEqual(await bot.nlu.keywords.list('city'), []);
  });

  test('credit scoring and TTS: synthesize() waits for the audio and downloads it', async () => {
    const score = await saola.credit.score({ phone: '0912345678', dltype: 1 });
    assert.equal(score.phone, '84912345678');
    assert.equal(typeof score.alpha_score, 'number');
    const progress: string[] = [];
    const speech = await saola.tts.synthesize('Xin chào các bạn.', { voice: 'leminh', format: 'wav', pollMs: 100, onProgress: (s) => progress.push(s.status) });
    assert.equal(speech.status.status, 'done');
    assert.equal(progress.at(-1), 'done');
    assert.match(speech.contentType, /audio\/(wav|x-wav|wave)/);
    assert.equal(Buffer.from(speech.audio).subarray(0, 4).toString('latin1'), 'RIFF');
  });

  test('a wrong key is a SaolaError carrying the service body and request id', async () => {
    const stranger = new Saola({ baseUrl: app.url, apiKey: 'sk_wrong', retries: 0 });
    await assert.rejects(stranger.credit.score({ phone: '0912345678', dltype: 1 }), (err: SaolaError) => {
      assert.equal(err.status, 401);
      assert.equal((err.body as { statusCode: number }).statusCode, 401);
      assert.ok(err.requestId);
      return true;
    });
    await assert.rejects(new Saola({ baseUrl: app.url }).nlu.samples.list(), /needs a bearer token/);
  });

  test('the base URL comes from SAOLA_BASE_URL when no option names one', async () => {
    const saved = process.env.SAOLA_BASE_URL;
    process.env.SAOLA_BASE_URL = app.url + '/';
    try {
      const fromEnv = new Saola({ token: app.token });
      assert.equal(fromEnv.baseUrl, app.url);
      assert.ok(Array.isArray(await fromEnv.nlu.intents.list()));
    } finally {
      if (saved === undefined) delete process.env.SAOLA_BASE_URL;
      else process.env.SAOLA_BASE_URL = saved;
    }
  });
});

describe('@saola/client retries', () => {
  let server: http.Server;
  let url: string;
  const seen: { method: string; at: number }[] = [];
  let script: { status: number; headers?: Record<string, string> }[] = [];

  before(async () => {
    // A stand-in that answers from a script: the only way to make a real server fail on cue.
    server = http.createServer((req, res) => {
      seen.push({ method: req.method ?? '', at: Date.now() });
      const next = script.shift() ?? { status: 200 };
      res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers });
      res.end(JSON.stringify(next.status === 200 ? { phone: '84912345678', score: 0.5 } : { statusCode: next.status, message: 'scripted' }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  test('429 is retried after Retry-After, 5xx with backoff; then the answer comes through', async () => {
    seen.length = 0;
    script = [{ status: 429, headers: { 'retry-after': '1' } }, { status: 502 }];
    const saola = new Saola({ baseUrl: url, apiKey: 'k', backoffMs: 50 });
    const score = await saola.credit.score({ phone: '0912345678', dltype: 1 });
    assert.equal(score.score, 0.5);
    assert.equal(seen.length, 3);
    assert.ok(seen[1].at - seen[0].at >= 950, `waited ${seen[1].at - seen[0].at} ms after 429 with Retry-After: 1`);
    assert.ok(seen[2].at - seen[1].at < 900, 'a 5xx without Retry-After backs off briefly');
  });

  test('gives up after the configured retries, and never repeats a create after a 500', async () => {
    seen.length = 0;
    script = [{ status: 503 }, { status: 503 }, { status: 503 }];
    await assert.rejects(
      new Saola({ baseUrl: url, apiKey: 'k', retries: 2, backoffMs: 10 }).credit.score({ phone: '1', dltype: 1 }),
      (err: SaolaError) => err.status === 503,
    );
    assert.equal(seen.length, 3);
    seen.length = 0;
    script = [{ status: 500 }];
    await assert.rejects(new Saola({ baseUrl: url, token: 't', backoffMs: 10 }).nlu.samples.create('x'), (err: SaolaError) => err.status === 500);
    assert.equal(seen.length, 1, 'a POST that may have created something is not sent twice');
  });

  test('Retry-After as seconds or an HTTP date', () => {
    assert.equal(retryAfterMs('3'), 3000);
    assert.equal(retryAfterMs(new Date(10_000).toUTCString(), 4_000), 6_000);
    assert.equal(retryAfterMs('soon'), undefined);
    assert.equal(retryAfterMs(null), undefined);
  });
});
