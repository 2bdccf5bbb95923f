import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Credentials } from '../../../../src/platform/auth/credentials.js';
import { PlatformError, ServiceError } from '../../../../src/platform/http/errors.js';
import { installLenientParsers } from '../../../../src/platform/http/body.js';
import type { AudioDecoder, Pcm } from '../../../../src/speech/asr/engine/decode.js';
import type { ModelState, SpeechEngine } from '../../../../src/speech/asr/engine/index.js';
import { asrRoutes } from '../../../../src/speech/asr/routes.js';
import { AsrService } from '../../../../src/speech/asr/service.js';
import { audioFromBody } from '../../../../src/speech/asr/upload.js';
import { joinSegments, type Segment } from '../../../../src/speech/asr/engine/vad.js';
import { eventually } from '../../../support/wait.js';

/**
 * The service's request lifecycle (busy, canceled, time limit) with an engine
 * the test controls, so each path is reached deterministically.
 */
class GatedEngine implements SpeechEngine {
  entered = 0;
  finished = 0;
  private waiting: (() => void)[] = [];
  private enteredWaiters: (() => void)[] = [];
  constructor(
    private readonly state: ModelState = { state: 'ready', spec: { kind: 'transducer', dir: '/m', files: { tokens: '/m/tokens.txt' } } },
    private readonly failWith?: Error,
  ) {}
  async model(): Promise<ModelState> {
    return this.state;
  }
  async detectSpeech(pcm: Pcm): Promise<Segment[]> {
    return [{ start: 0, end: pcm.samples.length }];
  }
  async transcribe(): Promise<string> {
    if (this.failWith) throw this.failWith;
    this.entered++;
    this.enteredWaiters.splice(0).forEach((w) => w());
    await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.finished++;
    return 'xin chào';
  }
  /** Resolves once a recognition is under way. */
  whenEntered(): Promise<void> {
    return this.entered > this.finished ? Promise.resolve() : new Promise((r) => this.enteredWaiters.push(r));
  }
  release(): void {
    this.waiting.splice(0).forEach((r) => r());
  }
  describe() {
    return {};
  }
  async close() {}
}

const decoder: AudioDecoder = {
  source: 'native',
  async decode(audio: Buffer): Promise<Pcm> {
    return { samples: new Float32Array(16_000), seconds: audio.length > 0 ? 1 : 0 };
  },
};
const limits = { maxSeconds: 60, timeoutMs: 60_000, maxInFlight: 1 };
const audio = Buffer.from('RIFF....WAVE');

const rejectsWith = (code: number, status: number, message?: RegExp) => (err: unknown) => {
  assert.ok(err instanceof ServiceError, String(err));
  assert.equal(err.entry.code, code);
  assert.equal(err.entry.status, status);
  if (message) assert.match(err.message, message);
  return true;
};

describe('AsrService', () => {
  test('answers status 0 with one hypothesis and the request id', async () => {
    const engine = new GatedEngine();
    const service = new AsrService(async () => decoder, engine, limits);
    const result = service.recognize(audio, 'req-1');
    await engine.whenEntered();
    engine.release();
    assert.deepEqual(await result, { status: 0, hypotheses: [{ utterance: 'xin chào' }], id: 'req-1' });
  });

  test('when every slot is taken the next request is "system busy" (9) at once', async () => {
    const engine = new GatedEngine();
    const service = new AsrService(async () => decoder, engine, limits);
    const first = service.recognize(audio, 'a');
    await engine.whenEntered();
    await assert.rejects(service.recognize(audio, 'b'), rejectsWith(9, 429, /busy/i));
    assert.equal(service.counters.busy, 1);
    engine.release();
    assert.equal((await first).status, 0);
    // The slot is free again.
    const again = service.recognize(audio, 'c');
    await engine.whenEntered();
    engine.release();
    assert.equal((await again).status, 0);
  });

  test('a full worker pool is "system busy" (9)', async () => {
    const engine = new GatedEngine(undefined, new PlatformError('busy', 'The speech recognition engine is busy'));
    const service = new AsrService(async () => decoder, engine, { ...limits, maxInFlight: 5 });
    await assert.rejects(service.recognize(audio, 'a'), rejectsWith(9, 429));
  });

  test('a client that goes away cancels the request (status 2) and frees its slot', async () => {
    const engine = new GatedEngine();
    const service = new AsrService(async () => decoder, engine, limits);
    const controller = new AbortController();
    const pending = service.recognize(audio, 'a', controller.signal);
    await engine.whenEntered();
    controller.abort();
    await assert.rejects(pending, rejectsWith(2, 200, /canceled/i));
    assert.equal(service.counters.canceled, 1);
    assert.equal(service.counters.inFlight, 0);
    engine.release();
  });

  test('the time limit cancels the request (status 2)', async () => {
    const engine = new GatedEngine();
    const service = new AsrService(async () => decoder, engine, { ...limits, timeoutMs: 20 });
    await assert.rejects(service.recognize(audio, 'a'), rejectsWith(2, 200, /longer than 20 ms/));
    assert.equal(service.counters.timedOut, 1);
    engine.release();
  });

  test('no model, or a model that failed to load, is status 9 before any work', async () => {
    const none = new AsrService(async () => decoder, new GatedEngine({ state: 'none' }), limits);
    await assert.rejects(none.recognize(audio, 'a'), rejectsWith(9, 503, /no speech recognition model is installed/i));
    const failed = new AsrService(async () => decoder, new GatedEngine({ state: 'failed', dir: '/m', error: 'bad joiner' }), limits);
    await assert.rejects(failed.recognize(audio, 'a'), rejectsWith(9, 503, /bad joiner/));
  });

  test('an empty body is status 1', async () => {
    const service = new AsrService(async () => decoder, new GatedEngine(), limits);
    await assert.rejects(service.recognize(Buffer.alloc(0), 'a'), rejectsWith(1, 400, /empty/));
    await assert.rejects(service.recognize(undefined, 'a'), rejectsWith(1, 400, /empty/));
  });
});

describe('the route over HTTP with a controlled engine', () => {
  let app: FastifyInstance;
  let engine: GatedEngine;
  let service: AsrService;
  let port: number;

  before(async () => {
    engine = new GatedEngine();
    service = new AsrService(async () => decoder, engine, limits);
    app = Fastify({ logger: false });
    installLenientParsers(app);
    const credentials = { authenticateSoon: (key: string) => (key === 'k' ? 'app' : null) } as unknown as Credentials;
    await app.register(asrRoutes, { prefix: '/hmi/asr', service, credentials, maxBytes: 1 << 20 });
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as { port: number }).port;
  });
  after(() => app.close());

  const post = () => fetch(`http://127.0.0.1:${port}/hmi/asr/general`, { method: 'POST', headers: { api_key: 'k' }, body: new Uint8Array(audio) });

  test('a second request while the only slot is busy gets HTTP 429 with status 9', async () => {
    const first = post();
    await engine.whenEntered();
    try {
      const second = await post();
      assert.equal(second.status, 429);
      const body = (await second.json()) as { status: number; message: string; id: string };
      assert.equal(body.status, 9);
      assert.match(body.message, /busy/i);
      assert.ok(body.id);
    } finally {
      engine.release();
    }
    const ok = await first;
    assert.equal(((await ok.json()) as { status: number }).status, 0);
  });

  test('a client that disconnects mid-recognition cancels its request', async () => {
    const before = service.counters.canceled;
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/hmi/asr/general', headers: { api_key: 'k' } });
    req.on('error', () => undefined);
    req.end(audio);
    await engine.whenEntered();
    req.destroy();
    await eventually(() => service.counters.canceled !== before, { intervalMs: 10, what: 'the request counted as canceled' });
    assert.equal(service.counters.canceled, before + 1);
    assert.equal(service.counters.inFlight, 0);
    engine.release();
  });
});

describe('helpers', () => {
  test('joinSegments pads, merges close stretches and keeps each under the limit', () => {
    const sr = 16_000;
    const joined = joinSegments(
      [
        { start: 1 * sr, end: 2 * sr },
        { start: 2.2 * sr, end: 3 * sr },
        { start: 10 * sr, end: 18 * sr },
      ],
      20 * sr,
      5 * sr,
    );
    assert.equal(joined.length, 2);
    assert.ok(joined[0].start < 1 * sr && joined[0].end > 3 * sr, 'the first two are one padded segment');
    assert.ok(joined.every((s) => s.end - s.start <= 8.5 * sr));
    const capped = joinSegments(
      [
        { start: 0, end: 4 * sr },
        { start: 4.1 * sr, end: 8 * sr },
      ],
      8 * sr,
      5 * sr,
    );
    assert.equal(capped.length, 2, 'not joined past the limit');
    assert.ok(capped[1].start >= capped[0].end, 'no overlap');
  });

  test('audioFromBody unwraps a one-file multipart form and passes raw bodies through', () => {
    const raw = Buffer.from([1, 2, 3, 13, 10, 4]);
    assert.equal(audioFromBody(raw, 'audio/wav'), raw);
    assert.equal(audioFromBody(undefined, undefined), undefined);
    const form = Buffer.concat([
      Buffer.from('--XyZ\r\nContent-Disposition: form-data; name="lang"\r\n\r\nvi\r\n'),
      Buffer.from('--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\n'),
      raw,
      Buffer.from('\r\n--XyZ--\r\n'),
    ]);
    assert.deepEqual(audioFromBody(form, 'multipart/form-data; boundary=XyZ'), raw);
  });
});

describe('long stretches and scoring', () => {
  test('splitLong cuts a stretch longer than the limit at its quietest frame', async () => {
    const { splitLong } = await import('../../../../src/speech/asr/engine/vad.js');
    const sr = 16_000;
    const samples = new Float32Array(25 * sr).map((_, i) => Math.sin(i / 5) * 0.5);
    // A pause at 8.5-8.7 s: the cut should land in it.
    samples.fill(0, 8.5 * sr, 8.7 * sr);
    const pieces = splitLong(samples, { start: 0, end: samples.length }, 10 * sr);
    assert.ok(pieces.length >= 3);
    assert.ok(pieces[0].end >= 8.5 * sr && pieces[0].end <= 8.7 * sr, `cut at ${pieces[0].end / sr} s`);
    assert.ok(pieces.every((p) => p.end - p.start <= 10 * sr));
    assert.equal(pieces[pieces.length - 1].end, samples.length);
    for (let i = 1; i < pieces.length; i++) assert.equal(pieces[i].start, pieces[i - 1].end);
  });

  test('the evaluation scores words and characters after normalising', async () => {
    const { editDistance, normalise, loadDataset } = await import('../../../../eval/speech/asr.js');
    assert.equal(normalise('  Xin CHÀO, các bạn!  '), 'xin chào các bạn');
    assert.equal(editDistance('xin chào các bạn'.split(' '), 'xin chào bạn nhé'.split(' ')), 2);
    assert.equal(editDistance([], ['a']), 1);
    const fs = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-asr-data-'));
    try {
      fs.mkdirSync(path.join(dir, 'waves', 'SPK01'), { recursive: true });
      fs.writeFileSync(path.join(dir, 'prompts.txt'), 'SPK01_001 XIN CHÀO\nSPK01_002 TẠM BIỆT\n');
      fs.writeFileSync(path.join(dir, 'waves', 'SPK01', 'SPK01_001.wav'), 'x');
      const items = loadDataset(dir);
      assert.deepEqual(
        items.map((i) => [i.id, i.reference]),
        [['SPK01_001', 'XIN CHÀO']],
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
