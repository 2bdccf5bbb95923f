import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadTtsConfig } from '../../../../src/speech/tts/config.js';
import { parseWav, pcmToWav } from '../../../../src/speech/tts/encode.js';
import { doublingBackoff } from '../../../../src/speech/tts/jobs.js';
import { LINK_LENGTH, newLink } from '../../../../src/speech/tts/service.js';
import { VOICES, VOICE_INFO, parseFormat, parseSpeed, parseVoice, wordsPerMinute } from '../../../../src/speech/tts/voices.js';

describe('parameters', () => {
  test('voices: the seven names, case-insensitive, empty is banmai, v4 aliases', () => {
    for (const v of VOICES) assert.equal(parseVoice(v.toUpperCase()), v);
    assert.equal(parseVoice(''), 'banmai');
    assert.equal(parseVoice('female'), 'banmai');
    assert.equal(parseVoice('male'), 'leminh');
    assert.equal(parseVoice('alice'), undefined);
    assert.equal(new Set(Object.values(VOICE_INFO).map((v) => v.espeak)).size, 7, 'seven distinct engine voices');
  });
  test('speed: -3..3, "" is 0', () => {
    assert.equal(parseSpeed(''), 0);
    assert.equal(parseSpeed(' +2 '), 2);
    assert.equal(parseSpeed('-3'), -3);
    assert.equal(parseSpeed('1.0'), 1);
    for (const bad of ['4', '-4', '1.5', 'fast', '0x1']) assert.equal(parseSpeed(bad), undefined, bad);
  });
  test('speed maps to strictly increasing words per minute', () => {
    const wpm = [-3, -2, -1, 0, 1, 2, 3].map(wordsPerMinute);
    assert.equal(wpm[3], 175);
    for (let i = 1; i < wpm.length; i++) assert.ok(wpm[i] > wpm[i - 1]);
  });
  test('format: mp3 default, wav', () => {
    assert.equal(parseFormat(''), 'mp3');
    assert.equal(parseFormat('WAV'), 'wav');
    assert.equal(parseFormat('ogg'), undefined);
  });
});

describe('the 90-character link', () => {
  test('fits body[10:100] for the default public URL and for test ports', () => {
    for (const base of ['http://127.0.0.1:8000', 'http://127.0.0.1:45678', 'https://tts.example.com', 'http://a']) {
      for (const format of ['mp3', 'wav'] as const) {
        const { url, token } = newLink(base, format);
        assert.equal(url.length, LINK_LENGTH, url);
        assert.ok(url.startsWith(`${base}/hmi/tts/v5/audio/`));
        assert.ok(token.length >= 22);
        const raw = JSON.stringify({ async: url, error: 0 });
        assert.equal(raw.slice(10, 100), url);
      }
    }
  });
  test('a very long base URL keeps a 22-character token', () => {
    const { token, url } = newLink(`https://${'x'.repeat(60)}.example.com`, 'mp3');
    assert.equal(token.length, 22);
    assert.ok(url.length > LINK_LENGTH);
  });
});

describe('wav', () => {
  test('round trip', () => {
    const samples = Int16Array.from([0, 1, -1, 32767, -32768]);
    const back = parseWav(pcmToWav({ samples, sampleRate: 22050 }));
    assert.equal(back.sampleRate, 22050);
    assert.deepEqual([...back.samples], [...samples]);
  });
  test('refuses what is not a WAV', () => {
    assert.throws(() => parseWav(Buffer.from('hello world, not audio')), /not a WAV/);
  });
});

describe('configuration', () => {
  test('defaults', () => {
    const c = loadTtsConfig({});
    assert.equal(c.engine, 'auto');
    assert.equal(c.callbackAllowPrivate, false);
    assert.ok(c.retentionSeconds > 0);
  });
  test('validation', () => {
    assert.throws(() => loadTtsConfig({ SAOLA_TTS_ENGINE: 'festival' }), /SAOLA_TTS_ENGINE/);
    assert.throws(() => loadTtsConfig({ SAOLA_TTS_RETENTION_SECONDS: '0' }), /SAOLA_TTS_RETENTION_SECONDS/);
    assert.throws(() => loadTtsConfig({ SAOLA_TTS_CALLBACK_ALLOW_PRIVATE: 'maybe' }), /SAOLA_TTS_CALLBACK_ALLOW_PRIVATE/);
  });
  test('callback backoff doubles up to the cap', () => {
    const b = doublingBackoff(1000, 5000);
    assert.deepEqual([1, 2, 3, 4, 5].map(b), [1000, 2000, 4000, 5000, 5000]);
  });
});
