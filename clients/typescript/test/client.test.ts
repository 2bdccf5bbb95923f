import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { retryAfterMs, Saola, SaolaError } from '../src/index.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';

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
