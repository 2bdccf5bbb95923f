import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../../../../fixtures/servers/app.js';
import { looksLikeMp3, pollUntilReady, postTts, rawRequest, withEnv } from '../../../support/speech/tts/helpers.js';

/** The npm-only path: eSpeak NG compiled to WASM and lamejs, both in worker threads. */
let t: TestApp;
let restoreEnv: () => void;

before(async () => {
  restoreEnv = withEnv({ SAOLA_TTS_ENGINE: 'wasm', SAOLA_TTS_ENCODER: 'lame' });
  t = await startTestApp();
});

after(async () => {
  await t.close();
  restoreEnv();
});

describe('WASM engine and lamejs encoder', () => {
  test('/readyz says which engine runs', async () => {
    const tts = JSON.parse((await rawRequest(`${t.url}/readyz`)).body.toString()).checks.tts;
    assert.equal(tts.engineKind, 'wasm');
    assert.match(tts.encoder, /lamejs/);
  });

  test('mp3 and wav are synthesised and served', async () => {
    const mp3 = await postTts(t.url, 'Xin chào, đây là giọng đọc dự phòng lúc 10:30.', { api_key: t.apiKey, voice: 'thuminh' });
    assert.equal(mp3.body.error, 0, mp3.raw);
    const wav = await postTts(t.url, 'Xin chào, đây là giọng đọc dự phòng.', { api_key: t.apiKey, voice: 'myan', format: 'wav', speed: '-1' });
    assert.equal(wav.body.error, 0, wav.raw);
    const a = await pollUntilReady(mp3.body.async);
    assert.equal(a.final.headers['content-type'], 'audio/mpeg');
    assert.ok(looksLikeMp3(a.final.body));
    const b = await pollUntilReady(wav.body.async);
    assert.equal(b.final.headers['content-type'], 'audio/wav');
    assert.equal(b.final.body.subarray(0, 4).toString(), 'RIFF');
    assert.ok(b.final.body.length > 22050, 'at least half a second of 22 kHz audio');
  });

  test("the original's extra speakers have WASM voices too (ngoclam, minhquangace)", async () => {
    for (const voice of ['ngoclam', 'minhquangace']) {
      const res = await postTts(t.url, 'Chào buổi sáng.', { api_key: t.apiKey, voice, format: 'wav' });
      assert.equal(res.body.error, 0, res.raw);
      const { final } = await pollUntilReady(res.body.async);
      assert.ok(final.body.length > 22050 * 0.6, `${voice}: at least 0.3 s of 22 kHz audio`);
    }
  });
});
