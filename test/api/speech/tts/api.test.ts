import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../../../../fixtures/servers/app.js';
import { ALL_VOICES, VOICES } from '../../../../src/speech/tts/voices.js';
import { parseWav } from '../../../../src/speech/tts/engine/encode.js';
import { looksLikeMp3, medianPitch, pollUntilReady, postTts, rawRequest, waitForStatus, withEnv } from '../../../support/speech/tts/helpers.js';

let t: TestApp;
let restoreEnv: () => void;

before(async () => {
  // Private callback targets stay refused here (the default), so the guard is tested.
  restoreEnv = withEnv({ SAOLA_TTS_CALLBACK_ALLOW_PRIVATE: 'false' });
  t = await startTestApp();
});

after(async () => {
  await t.close();
  restoreEnv();
});

const TEXT = 'Xin chào các bạn, hôm nay là ngày 15/8/2024.';

describe('POST /hmi/tts/v5: the answer', () => {
  test('compact JSON, async first, link exactly at body[10:100], 404 then 200 audio/mpeg with Range', async () => {
    const res = await postTts(t.url, TEXT, { api_key: t.apiKey });
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.ok(res.raw.startsWith('{"async":"'), res.raw);
    assert.ok(!/\s/.test(res.raw.replace(/"message":"[^"]*"/, '')), 'compact JSON');
    assert.deepEqual(Object.keys(res.body), ['async', 'error', 'message', 'request_id']);
    assert.equal(res.body.error, 0);
    assert.equal(res.body.message, 'The content will be returned after a few seconds under the async link.');
    const sliced = res.raw.slice(10, 100);
    assert.equal(sliced, res.body.async, 'a client slicing body[10:100] gets the whole link');
    assert.equal(res.body.async.length, 90);
    assert.ok(res.body.async.startsWith(`${t.url}/hmi/tts/v5/audio/`));
    assert.ok(res.body.async.endsWith('.mp3'));

    // The client that slices polls the sliced text.
    const { statuses, final } = await pollUntilReady(sliced);
    assert.equal(statuses.at(-1), 200);
    assert.equal(final.headers['content-type'], 'audio/mpeg');
    assert.ok(looksLikeMp3(final.body), 'an MP3 file');
    assert.ok(final.body.length > 2000);

    const part = await rawRequest(sliced, { headers: { range: 'bytes=0-99' } });
    assert.equal(part.status, 206);
    assert.equal(part.body.length, 100);
    assert.equal(part.headers['content-range'], `bytes 0-99/${final.body.length}`);
    assert.deepEqual(part.body, final.body.subarray(0, 100));

    const head = await rawRequest(sliced, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers['content-length'], String(final.body.length));
  });

  test('the link answers 404 in the service shape before the file exists', async () => {
    // Stop nothing: just ask for a link with a token that was never issued, and an unknown extension.
    const missing = await rawRequest(`${t.url}/hmi/tts/v5/audio/${'A'.repeat(46)}.mp3`);
    assert.equal(missing.status, 404);
    const body = JSON.parse(missing.body.toString());
    assert.equal(body.error, 11);
    assert.equal(Object.keys(body)[0], 'async');
    const hostile = await rawRequest(`${t.url}/hmi/tts/v5/audio/..%2F..%2Fetc%2Fpasswd`);
    assert.equal(hostile.status, 404);
  });

  test('a poller that starts at 0.2 s and doubles sees 404 (maybe) and then 200', async () => {
    const res = await postTts(t.url, 'Một hai ba bốn năm sáu bảy tám chín mười. '.repeat(20), { api_key: t.apiKey });
    assert.equal(res.body.error, 0);
    const { statuses, final } = await pollUntilReady(res.body.async);
    assert.ok(
      statuses.slice(0, -1).every((s) => s === 404),
      statuses.join(','),
    );
    assert.equal(final.status, 200);
  });

  test('Python-style: bytes body, no Content-Type, header api-key', async () => {
    const res = await postTts(t.url, Buffer.from('Bạn thấy dịch vụ này có tốt không?', 'utf8'), { 'api-key': t.apiKey, voice: 'lannhi' });
    assert.equal(res.status, 200, res.raw);
    assert.equal(res.body.error, 0);
    const status = await waitForStatus(t.url, t.apiKey, res.body.request_id);
    assert.equal(status.status, 'done');
    assert.equal(status.voice, 'lannhi');
    assert.equal(status.characters, 34);
  });

  test('axios-style: the raw text sent as application/x-www-form-urlencoded', async () => {
    const text = 'Giá vé là 50.000 đồng & miễn phí cho trẻ em = tốt.';
    const res = await postTts(t.url, text, { apikey: t.apiKey, 'content-type': 'application/x-www-form-urlencoded' });
    assert.equal(res.status, 200, res.raw);
    const status = await waitForStatus(t.url, t.apiKey, res.body.request_id);
    assert.equal(status.status, 'done');
    assert.equal(status.characters, [...text].length, 'the body is the text itself, not form fields');
  });

  test('a fully encoded form field named text is decoded', async () => {
    const res = await postTts(t.url, 'text=Xin+ch%C3%A0o+b%E1%BA%A1n', { api_key: t.apiKey, 'content-type': 'application/x-www-form-urlencoded' });
    assert.equal(res.status, 200, res.raw);
    const status = await waitForStatus(t.url, t.apiKey, res.body.request_id);
    assert.equal(status.characters, [...'Xin chào bạn'].length);
  });

  test('parameters as query parameters, speed "" is 0, format wav gives audio/wav', async () => {
    const res = await postTts(t.url, TEXT, {}, `?api_key=${encodeURIComponent(t.apiKey)}&voice=giahuy&speed=&format=wav`);
    assert.equal(res.status, 200, res.raw);
    assert.ok(res.body.async.endsWith('.wav'));
    assert.equal(res.body.async.length, 90);
    const { final } = await pollUntilReady(res.body.async);
    assert.equal(final.headers['content-type'], 'audio/wav');
    assert.equal(final.body.subarray(0, 4).toString('latin1'), 'RIFF');
    assert.equal(final.body.subarray(8, 12).toString('latin1'), 'WAVE');
    const status = await waitForStatus(t.url, t.apiKey, res.body.request_id);
    assert.equal(status.voice, 'giahuy');
    assert.equal(status.speed, 0);
    assert.equal(status.format, 'wav');
  });

  test('every voice synthesises', async () => {
    const ids: string[] = [];
    for (const voice of VOICES) {
      const res = await postTts(t.url, 'Chào buổi sáng.', { api_key: t.apiKey, voice });
      assert.equal(res.body.error, 0, `${voice}: ${res.raw}`);
      ids.push(res.body.request_id);
    }
    for (const [i, id] of ids.entries()) {
      const status = await waitForStatus(t.url, t.apiKey, id);
      assert.equal(status.status, 'done', JSON.stringify(status));
      assert.equal(status.voice, VOICES[i]);
      assert.ok(status.audio_seconds > 0.3);
    }
  });

  test("the original's other voices (ngoclam, minhquang, the Ace variants) get audio, and the status names them as sent", async () => {
    const others = ALL_VOICES.filter((v) => !(VOICES as readonly string[]).includes(v));
    assert.ok(others.includes('minhquangace') && others.includes('ngoclam'));
    const ids: string[] = [];
    for (const voice of others) {
      const res = await postTts(t.url, 'Chào buổi sáng.', { api_key: t.apiKey, voice: voice.toUpperCase() });
      assert.equal(res.status, 200, `${voice}: ${res.raw}`);
      assert.equal(res.body.error, 0, `${voice}: ${res.raw}`);
      ids.push(res.body.request_id);
    }
    for (const [i, id] of ids.entries()) {
      const status = await waitForStatus(t.url, t.apiKey, id);
      assert.equal(status.status, 'done', JSON.stringify(status));
      assert.equal(status.voice, others[i]);
      assert.ok(status.audio_seconds > 0.3);
    }
  });

  test("an Ace variant speaks with its speaker's voice; ngoclam and myan (both central women) differ", async () => {
    const audio = async (voice: string) => {
      const res = await postTts(t.url, 'Một hai ba bốn năm.', { api_key: t.apiKey, voice, format: 'wav' });
      assert.equal(res.body.error, 0, res.raw);
      return (await pollUntilReady(res.body.async)).final.body;
    };
    const [banmai, banmaiace, ngoclam, myan] = [await audio('banmai'), await audio('banmaiace'), await audio('ngoclam'), await audio('myan')].map(
      (wav) => medianPitch(parseWav(wav)),
    );
    // Compared by pitch, not by samples: the WASM eSpeak (the npm fallback) adds noise that differs from one
    // synthesis to the next even in one voice; the Debian program gives the same samples each time.
    assert.ok(Math.abs(banmai / banmaiace - 1) < 0.015, `same engine voice, same pitch: ${banmai} and ${banmaiace} Hz`);
    assert.ok(Math.abs(ngoclam / myan - 1) > 0.02, `ngoclam has its own variant: ${ngoclam} and ${myan} Hz`);
  });

  test('speed -3 gives longer audio than 0, and 0 longer than +3', async () => {
    const text = 'Hôm nay trời đẹp, chúng ta cùng đi dạo trong công viên và ngắm hoa nở.';
    const seconds: number[] = [];
    for (const speed of ['-3', '0', '+3']) {
      const res = await postTts(t.url, text, { api_key: t.apiKey, speed, format: 'wav' });
      assert.equal(res.body.error, 0, res.raw);
      seconds.push((await waitForStatus(t.url, t.apiKey, res.body.request_id)).audio_seconds);
    }
    assert.ok(seconds[0] > seconds[1] && seconds[1] > seconds[2], seconds.join(' > '));
  });

  test('exactly 3 and exactly 5000 characters are accepted', async () => {
    const three = await postTts(t.url, 'abc', { api_key: t.apiKey });
    assert.equal(three.body.error, 0, three.raw);
    const long = await postTts(t.url, 'Một. '.repeat(1000).trim().padEnd(5000, 'a'), { api_key: t.apiKey });
    assert.equal(long.body.error, 0, long.raw);
  });

  test('the public URL is read at request time', async () => {
    const saved = t.deps.config.publicUrl;
    t.deps.config.publicUrl = 'https://tts.example.com';
    try {
      const res = await postTts(t.url, TEXT, { api_key: t.apiKey });
      assert.ok(res.body.async.startsWith('https://tts.example.com/hmi/tts/v5/audio/'));
      assert.equal(res.body.async.length, 90);
      assert.equal(res.raw.slice(10, 100), res.body.async);
    } finally {
      t.deps.config.publicUrl = saved;
    }
  });
});

describe('POST /hmi/tts/v5: errors', () => {
  async function expectError(text: string | Buffer, headers: Record<string, string>, error: number, status: number, message?: RegExp): Promise<void> {
    const res = await postTts(t.url, text, headers);
    assert.equal(res.status, status, res.raw);
    assert.equal(res.body.error, error, res.raw);
    assert.equal(res.body.async, '');
    assert.equal(Object.keys(res.body)[0], 'async');
    assert.ok(res.body.message.length > 0);
    if (message) assert.match(res.body.message, message);
  }

  test('missing and invalid api_key: 401, error 1', async () => {
    await expectError(TEXT, {}, 1, 401);
    await expectError(TEXT, { api_key: 'not-a-key' }, 1, 401);
  });
  test('text too short or empty: error 2', async () => {
    await expectError('ab', { api_key: t.apiKey }, 2, 400, /at least 3/);
    await expectError('', { api_key: t.apiKey }, 2, 400);
    await expectError('   \n  ', { api_key: t.apiKey }, 2, 400);
  });
  test('text over 5000 characters: error 3', async () => {
    await expectError('a'.repeat(5001), { api_key: t.apiKey }, 3, 400, /at most 5000/);
  });
  test('unknown voice: error 4', async () => {
    await expectError(TEXT, { api_key: t.apiKey, voice: 'alice' }, 4, 400, /banmai/);
  });
  test('speed out of range or not an integer: error 5', async () => {
    for (const speed of ['4', '-4', '1.5', 'fast']) await expectError(TEXT, { api_key: t.apiKey, speed }, 5, 400);
  });
  test('unknown format: error 6', async () => {
    await expectError(TEXT, { api_key: t.apiKey, format: 'ogg' }, 6, 400, /mp3 or wav/);
  });
  test('callback_url not http(s), malformed, or private without permission: error 7', async () => {
    await expectError(TEXT, { api_key: t.apiKey, callback_url: 'ftp://example.com/x' }, 7, 400);
    await expectError(TEXT, { api_key: t.apiKey, callback_url: 'not a url' }, 7, 400);
    await expectError(TEXT, { api_key: t.apiKey, callback_url: 'http://127.0.0.1:9/cb' }, 7, 400, /not public/);
    await expectError(TEXT, { api_key: t.apiKey, callback_url: 'http://169.254.169.254/latest' }, 7, 400);
    await expectError(TEXT, { api_key: t.apiKey, callback_url: 'http://[::1]/cb' }, 7, 400);
  });
  test('a body that is not UTF-8, or has nothing to read: error 8', async () => {
    await expectError(Buffer.from([0xff, 0xfe, 0xfd, 0x80, 0x81]), { api_key: t.apiKey }, 8, 400, /UTF-8/);
    await expectError('!!! ??? ***', { api_key: t.apiKey }, 8, 400);
  });
  test('a body over 64 KiB: 413, error 13', async () => {
    await expectError('a'.repeat(70 * 1024), { api_key: t.apiKey }, 13, 413);
  });
  test('wrong method: 405, error 16, in the same shape', async () => {
    const res = await rawRequest(`${t.url}/hmi/tts/v5`, { method: 'PUT', headers: { api_key: t.apiKey } });
    assert.equal(res.status, 405);
    assert.equal(JSON.parse(res.body.toString()).error, 16);
  });
});

describe('GET /hmi/tts/v5/status/:request_id', () => {
  test('reports done with progress 100, and another app cannot see it', async () => {
    const res = await postTts(t.url, TEXT, { api_key: t.apiKey });
    const status = await waitForStatus(t.url, t.apiKey, res.body.request_id);
    assert.equal(status.status, 'done');
    assert.equal(status.progress, 100);
    assert.equal(status.error, 0);
    assert.equal(status.async, res.body.async);

    const other = await t.newTenant('other-app');
    const foreign = await rawRequest(`${t.url}/hmi/tts/v5/status/${res.body.request_id}`, { headers: { api_key: other.apiKey } });
    assert.equal(foreign.status, 404);
    assert.equal(JSON.parse(foreign.body.toString()).error, 10);
  });
  test('unknown request: 404, error 10; no key: 401', async () => {
    const res = await rawRequest(`${t.url}/hmi/tts/v5/status/nope`, { headers: { api_key: t.apiKey } });
    assert.equal(res.status, 404);
    assert.equal(JSON.parse(res.body.toString()).error, 10);
    const anon = await rawRequest(`${t.url}/hmi/tts/v5/status/nope`);
    assert.equal(anon.status, 401);
  });
  test('/readyz names the engine and the encoder', async () => {
    const res = await rawRequest(`${t.url}/readyz`);
    const tts = JSON.parse(res.body.toString()).checks.tts;
    assert.equal(tts.ok, true);
    assert.match(tts.engine, /espeak-ng/);
    assert.match(tts.encoder, /ffmpeg|lamejs/);
  });
});
