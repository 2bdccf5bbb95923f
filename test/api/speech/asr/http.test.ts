import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestApp } from '../../../../fixtures/servers/app.js';
import { hasProgram } from '../../../support/programs.js';
import { FORMATS, convert, generated, speech } from '../../../support/speech/asr/audio.js';
import { postAudio, startAsrApp, tinyModelDir } from '../../../support/speech/asr/server.js';

/** POST /hmi/asr/general end to end: real server, ffmpeg, Silero VAD and a real (tiny, untrained) sherpa-onnx model. */
describe('POST /hmi/asr/general with a model installed', () => {
  let app: TestApp;
  let clip: Buffer;

  before(async () => {
    app = await startAsrApp({ SAOLA_ASR_MODEL: tinyModelDir() });
    clip = speech('Xin chào, hôm nay trời đẹp quá. Tôi muốn đặt một vé máy bay đi Hà Nội.');
  });
  after(() => app.close());

  for (const format of Object.keys(FORMATS)) {
    test(`a ${format} upload decodes and is recognised (status 0)`, async () => {
      const reply = await postAudio(app, convert(clip, format));
      assert.equal(reply.http, 200);
      assert.equal(reply.body.status, 0, JSON.stringify(reply.body));
      assert.equal(reply.body.hypotheses?.length, 1);
      assert.ok(reply.body.hypotheses![0].utterance.trim().length > 0, 'a non-empty utterance');
      assert.equal(reply.body.id, reply.requestId);
      assert.equal(reply.body.message, undefined);
    });
  }

  const quiet: Record<string, string> = {
    silence: 'anullsrc=r=16000:cl=mono',
    'white noise': 'anoisesrc=r=16000:a=0.3:c=white',
    'pink noise': 'anoisesrc=r=16000:a=0.5:c=pink',
    'a 440 Hz tone': 'sine=f=440:r=16000',
    'a 1 kHz tone': 'sine=f=1000:r=16000',
  };
  for (const [name, source] of Object.entries(quiet)) {
    test(`${name} gives status 1 (no voice)`, async () => {
      const reply = await postAudio(app, convert(generated(source, 3), 'mp3'));
      assert.equal(reply.http, 200);
      assert.equal(reply.body.status, 1, JSON.stringify(reply.body));
      assert.match(reply.body.message ?? '', /no voice/i);
      // The key stays, empty: clients read hypotheses[0] without looking at status first.
      assert.deepEqual(reply.body.hypotheses, []);
      assert.deepEqual(Object.keys(reply.body).sort(), ['hypotheses', 'id', 'message', 'status']);
      assert.equal(reply.body.id, reply.requestId);
    });
  }

  test('speech-like audio from other voices is not "no voice"', async () => {
    for (const [text, voice] of [
      ['Một hai ba bốn năm sáu bảy tám chín mười', 'vi+f3'],
      ['Cảm ơn bạn rất nhiều, hẹn gặp lại ngày mai', 'vi-vn-x-south'],
    ]) {
      const reply = await postAudio(app, speech(text, voice));
      assert.equal(reply.body.status, 0, `${voice}: ${JSON.stringify(reply.body)}`);
    }
  });

  test('any Content-Type or none is accepted, and a one-file multipart form too', async () => {
    const types = [undefined, 'application/octet-stream', 'application/x-www-form-urlencoded', 'application/json', 'text/plain', 'audio/wav'];
    for (const type of types) {
      const reply = await postAudio(app, clip, type ? { 'content-type': type } : {});
      assert.equal(reply.body.status, 0, `${type}: ${JSON.stringify(reply.body)}`);
    }
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(convert(clip, 'mp3'))]), 'clip.mp3');
    const res = await fetch(`${app.url}/hmi/asr/general`, { method: 'POST', headers: { api_key: app.apiKey }, body: form });
    assert.equal(((await res.json()) as { status: number }).status, 0);
  });

  test('the same upload gives the same transcript (the model is deterministic)', async () => {
    const a = await postAudio(app, clip);
    const b = await postAudio(app, clip);
    assert.equal(a.body.hypotheses![0].utterance, b.body.hypotheses![0].utterance);
    assert.notEqual(a.body.id, b.body.id);
  });

  test('every api_key spelling works; a missing or wrong key is 401 in the ASR shape', async () => {
    for (const header of ['api_key', 'api-key', 'apikey']) {
      const res = await fetch(`${app.url}/hmi/asr/general`, { method: 'POST', headers: { [header]: app.apiKey }, body: new Uint8Array(clip) });
      assert.equal(((await res.json()) as { status: number }).status, 0, header);
    }
    const viaQuery = await postAudio({ url: app.url, apiKey: '' }, clip, {}, `?api_key=${app.apiKey}`);
    assert.equal(viaQuery.body.status, 0);
    for (const key of ['', 'not-a-key']) {
      const reply = await postAudio({ url: app.url, apiKey: key }, clip);
      assert.equal(reply.http, 401);
      assert.equal(reply.body.status, 9);
      assert.match(reply.body.message ?? '', /api_key/);
      assert.equal(reply.body.id, reply.requestId);
    }
  });

  test('bad uploads get status 1 with a reason, never a 500', async () => {
    const mp3 = convert(clip, 'mp3');
    const wav = clip;
    const cases: [string, Buffer | string, number[]][] = [
      ['empty body', Buffer.alloc(0), [400]],
      ['plain text', 'Xin chào, đây không phải là âm thanh', [400]],
      ['random bytes', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 251)), [400]],
      ['a JSON body', JSON.stringify({ audio: 'abc' }), [400]],
      ['a wav header alone', wav.subarray(0, 44), [400]],
      ['a playlist pointing at a local file', '#EXTM3U\n#EXTINF:1,\n/etc/passwd\n', [400]],
      ['an image', Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex'), [400]],
      // Truncated audio still holds some voice: it may be recognised or refused, but never crash.
      ['a truncated mp3', mp3.subarray(0, Math.floor(mp3.length / 3)), [200, 400]],
      ['a truncated wav', wav.subarray(0, Math.floor(wav.length / 2)), [200, 400]],
    ];
    for (const [name, body, statuses] of cases) {
      const reply = await postAudio(app, body);
      assert.ok(statuses.includes(reply.http), `${name}: HTTP ${reply.http} ${JSON.stringify(reply.body)}`);
      if (reply.http === 400) {
        assert.equal(reply.body.status, 1, name);
        assert.ok(reply.body.message, name);
      } else {
        assert.ok([0, 1].includes(reply.body.status), name);
      }
      assert.equal(reply.body.id, reply.requestId, name);
    }
  });

  test('unknown paths and methods under /hmi/asr answer in the ASR shape', async () => {
    const res = await fetch(`${app.url}/hmi/asr/general`, { method: 'GET', headers: { api_key: app.apiKey } });
    assert.equal(res.status, 405);
    assert.equal(((await res.json()) as { status: number }).status, 9);
    const missing = await fetch(`${app.url}/hmi/asr/other`, { method: 'POST', headers: { api_key: app.apiKey } });
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as { status: number }).status, 9);
  });

  test('/readyz names the engine, the decoder and the model', async () => {
    const res = await fetch(`${app.url}/readyz`);
    const body = (await res.json()) as { checks: { asr: Record<string, any> } };
    const asr = body.checks.asr;
    assert.equal(asr.ok, true);
    // The Debian program where it is installed, else the npm-shipped binary.
    assert.equal(asr.ffmpeg, hasProgram('ffmpeg') ? 'native' : 'npm');
    assert.equal(asr.sileroVad, true);
    assert.equal(asr.runtime, 'sherpa-onnx-node');
    assert.equal(asr.model.state, 'ready');
    assert.equal(asr.model.kind, 'transducer');
    assert.ok(asr.requests.recognized > 0 && asr.requests.noVoice > 0);
  });
});

describe('POST /hmi/asr/general limits', () => {
  let app: TestApp;
  before(async () => {
    app = await startAsrApp({ SAOLA_ASR_MODEL: tinyModelDir(), SAOLA_ASR_MAX_SECONDS: '3', SAOLA_ASR_MAX_BYTES: '65536' });
  });
  after(() => app.close());

  test('audio longer than SAOLA_ASR_MAX_SECONDS is refused with 413 and status 1', async () => {
    const long = convert(generated('sine=f=300:r=16000', 6), 'mp3');
    assert.ok(long.length < 65536);
    const reply = await postAudio(app, long);
    assert.equal(reply.http, 413);
    assert.equal(reply.body.status, 1);
    assert.match(reply.body.message ?? '', /longer than 3 s/);
  });

  test('a body over SAOLA_ASR_MAX_BYTES is refused with 413 and status 1', async () => {
    const reply = await postAudio(app, Buffer.alloc(70_000, 1));
    assert.equal(reply.http, 413);
    assert.equal(reply.body.status, 1);
    assert.equal(reply.body.id, reply.requestId);
  });
});

describe('POST /hmi/asr/general time limit', () => {
  let app: TestApp;
  before(async () => {
    app = await startAsrApp({ SAOLA_ASR_MODEL: tinyModelDir(), SAOLA_ASR_TIMEOUT_MS: '1' });
  });
  after(() => app.close());

  test('a request past SAOLA_ASR_TIMEOUT_MS is canceled (status 2)', async () => {
    // Spawning ffmpeg alone takes far longer than 1 ms.
    const reply = await postAudio(app, speech('Xin chào'));
    assert.equal(reply.http, 200);
    assert.equal(reply.body.status, 2);
    assert.match(reply.body.message ?? '', /canceled/i);
    const ready = (await (await fetch(`${app.url}/readyz`)).json()) as { checks: { asr: { requests: { timedOut: number } } } };
    assert.equal(ready.checks.asr.requests.timedOut, 1);
  });
});

describe('POST /hmi/asr/general without a usable model', () => {
  test('no model configured: status 9 saying no recognition model is installed, never a transcript', async () => {
    const app = await startAsrApp({ SAOLA_ASR_MODEL: undefined });
    try {
      const reply = await postAudio(app, speech('Xin chào'));
      assert.equal(reply.http, 503);
      assert.equal(reply.body.status, 9);
      assert.match(reply.body.message ?? '', /no speech recognition model is installed/i);
      assert.deepEqual(reply.body.hypotheses, [], 'never a transcript, but the key a client reads');
      const ready = (await (await fetch(`${app.url}/readyz`)).json()) as { checks: { asr: { ok: boolean; model: { state: string } } } };
      assert.equal(ready.checks.asr.ok, false);
      assert.equal(ready.checks.asr.model.state, 'none');
    } finally {
      await app.close();
    }
  });

  test('a broken model: status 9 with the reason, and the server keeps running', async () => {
    const fs = await import('node:fs');
    const path = await import('node:path');
    const dir = tinyModelDir();
    fs.writeFileSync(path.join(dir, 'joiner.onnx'), 'not an onnx model');
    const app = await startAsrApp({ SAOLA_ASR_MODEL: dir });
    try {
      for (let i = 0; i < 2; i++) {
        const reply = await postAudio(app, speech('Xin chào'));
        assert.equal(reply.http, 503);
        assert.equal(reply.body.status, 9);
        assert.match(reply.body.message ?? '', /could not be loaded/);
      }
      assert.equal((await fetch(`${app.url}/healthz`)).status, 200);
    } finally {
      await app.close();
    }
  });
});
