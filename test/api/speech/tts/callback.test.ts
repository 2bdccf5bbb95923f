import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../../../../fixtures/servers/app.js';
import { synthesisHandler } from '../../../../src/speech/tts/jobs.js';
import { loadTtsConfig } from '../../../../src/speech/tts/config.js';
import { FfmpegMp3Encoder } from '../../../../src/speech/tts/engine/encode.js';
import { newLink } from '../../../../src/speech/tts/service.js';
import { TtsStore } from '../../../../src/speech/tts/store.js';
import type { SpeechEngine } from '../../../../src/speech/tts/engine/synthesise.js';
import type { Job, JobContext } from '../../../../src/platform/jobs/queue.js';
import { postTts, withEnv } from '../../../support/speech/tts/helpers.js';
import { sleep } from '../../../support/wait.js';

interface Received {
  contentType: string | undefined;
  body: string;
  path: string;
}

/** A callback receiver on 127.0.0.1 that fails the first `failures` tries of each path with 503. */
function callbackServer(failures: number) {
  const received: Received[] = [];
  const tries = new Map<string, number>();
  const waiters: Array<() => void> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const n = (tries.get(path) ?? 0) + 1;
      tries.set(path, n);
      if (n <= failures) {
        res.writeHead(503).end('try later');
        return;
      }
      received.push({ contentType: req.headers['content-type'], body: Buffer.concat(chunks).toString('utf8'), path });
      res.writeHead(200).end('ok');
      for (const w of waiters.splice(0)) w();
    });
  });
  return {
    received,
    tries,
    async start(): Promise<string> {
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const address = server.address();
      return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    },
    async waitFor(path: string, deadlineMs = 60_000): Promise<Received> {
      const until = Date.now() + deadlineMs;
      for (;;) {
        const hit = received.find((r) => r.path === path);
        if (hit) return hit;
        if (Date.now() > until) assert.fail(`no callback on ${path}; tries: ${tries.get(path) ?? 0}`);
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 500);
        });
      }
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

let t: TestApp;
let restoreEnv: () => void;
const receiver = callbackServer(2);
let receiverUrl: string;

before(async () => {
  restoreEnv = withEnv({
    SAOLA_TTS_CALLBACK_ALLOW_PRIVATE: 'true',
    SAOLA_TTS_CALLBACK_BACKOFF_MS: '50',
    SAOLA_TTS_CALLBACK_ATTEMPTS: '5',
  });
  receiverUrl = await receiver.start();
  t = await startTestApp();
});

after(async () => {
  await t.close();
  await receiver.close();
  restoreEnv();
});

describe('callbacks', () => {
  test('delivered as application/json {"message": link, "success": "true"} after two failed tries', async () => {
    const res = await postTts(t.url, 'Tệp âm thanh đã sẵn sàng.', { api_key: t.apiKey, callback_url: `${receiverUrl}/ok` });
    assert.equal(res.body.error, 0, res.raw);
    const hit = await receiver.waitFor('/ok');
    assert.match(String(hit.contentType), /^application\/json/);
    assert.deepEqual(JSON.parse(hit.body), { message: res.body.async, success: 'true' });
    assert.equal(receiver.tries.get('/ok'), 3, 'two 503s, then delivered');
    // When the callback comes, the link works.
    const audio = await fetch(res.body.async);
    assert.equal(audio.status, 200);
  });

  test('a failed synthesis posts {"message": error, "success": "false"}', async () => {
    // A real request whose synthesis is run by an engine that breaks, on its last attempt.
    const tts = loadTtsConfig();
    const store = new TtsStore(t.deps.store);
    const broken: SpeechEngine = {
      name: 'broken',
      kind: 'native',
      synthesise: async () => {
        throw new Error('engine exploded');
      },
      phonemes: async () => '',
    };
    // Recorded without a queued job, so the real workers leave it to this handler.
    const { token, url } = newLink(t.url, 'mp3');
    const requestId = `manual-${token.slice(0, 8)}`;
    await store.insert({
      id: requestId,
      app_code: t.appCode,
      link_token: token,
      async_url: url,
      voice: 'banmai',
      speed: 0,
      format: 'mp3',
      text_length: 9,
      callback_url: `${receiverUrl}/fail`,
      job_id: null,
      blob_key: `tts/test/${requestId}.mp3`,
      audio_bytes: null,
      audio_ms: null,
      error: null,
      created_time: new Date().toISOString(),
      ready_time: null,
      failed_time: null,
    });
    const handler = synthesisHandler({
      store,
      jobs: t.deps.jobs,
      blobs: t.deps.blobs,
      engine: broken,
      encoder: new FfmpegMp3Encoder(),
      config: tts,
      log: t.app.log,
    });
    const job = {
      id: 'manual',
      payload: { requestId, text: 'Xin chào.' },
      attempts: tts.synthesisAttempts,
      maxAttempts: tts.synthesisAttempts,
    } as unknown as Job<{ requestId: string; text: string }>;
    const ctx: JobContext = { signal: new AbortController().signal, progress: async () => undefined };
    await assert.rejects(handler(job, ctx), /engine exploded/);
    const hit = await receiver.waitFor('/fail');
    const body = JSON.parse(hit.body);
    assert.equal(body.success, 'false');
    assert.match(body.message, /engine exploded/);
    const row = await store.getForWorker(requestId);
    assert.ok(row?.failed_time);
    const link = await fetch(url);
    assert.equal(link.status, 404);
    assert.match(((await link.json()) as { message: string }).message, /engine exploded/);
  });

  test('a refused target is not retried: the job fails at once', async () => {
    // allowPrivate is on here, so use a scheme the guard never fetches, queued directly.
    const job = await t.deps.jobs.enqueue(
      'tts.callback',
      { requestId: 'x', url: 'file:///etc/passwd', body: { message: 'm', success: 'true' } },
      { appCode: t.appCode, maxAttempts: 5 },
    );
    let seen;
    for (let i = 0; i < 100; i++) {
      seen = await t.deps.jobs.get(job.id);
      if (seen?.status === 'failed') break;
      await sleep(100);
    }
    assert.equal(seen?.status, 'failed');
    assert.equal(seen?.attempts, 1);
  });
});
