import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadTtsConfig } from '../../../../src/speech/tts/config.js';
import { parseWav, pcmToWav } from '../../../../src/speech/tts/engine/encode.js';
import { doublingBackoff } from '../../../../src/speech/tts/jobs.js';
import { LINK_LENGTH, newLink } from '../../../../src/speech/tts/service.js';
import {
  ACE_VOICES,
  ALL_VOICES,
  EXTRA_VOICES,
  SPEAKERS,
  VOICES,
  VOICE_INFO,
  parseFormat,
  parseSpeed,
  parseVoice,
  voiceInfo,
  wordsPerMinute,
} from '../../../../src/speech/tts/voices.js';

describe('parameters', () => {
  test('voices: the seven names, case-insensitive, empty is banmai, v4 aliases', () => {
    for (const v of VOICES) assert.equal(parseVoice(v.toUpperCase()), v);
    assert.equal(parseVoice(''), 'banmai');
    assert.equal(parseVoice('female'), 'banmai');
    assert.equal(parseVoice('male'), 'leminh');
    assert.equal(parseVoice('alice'), undefined);
    for (const inherited of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) assert.equal(parseVoice(inherited), undefined, inherited);
  });
  test("the original's other voices: ngoclam, minhquang and the Ace variants are accepted as sent", () => {
    for (const v of [...EXTRA_VOICES, 'banmaiace', 'thuminhace', 'ngoclamace', 'linhsanace', 'minhquangace']) {
      assert.equal(parseVoice(v), v);
      assert.equal(parseVoice(` ${v.toUpperCase()} `), v);
    }
    assert.equal(parseVoice('linhsansace'), undefined, 'a misspelt variant is still unknown');
    assert.equal(ALL_VOICES.length, 14);
  });
  test("each speaker has its own engine voice, of the original's gender and region", () => {
    assert.equal(new Set(SPEAKERS.map((v) => VOICE_INFO[v].espeak)).size, SPEAKERS.length, 'distinct engine voices');
    // The original's published list: Ngọc Lam is a central woman, Minh Quang a southern man.
    assert.deepEqual([VOICE_INFO.ngoclam.gender, VOICE_INFO.ngoclam.region], ['female', 'central']);
    assert.deepEqual([VOICE_INFO.minhquang.gender, VOICE_INFO.minhquang.region], ['male', 'southern']);
    for (const info of Object.values(VOICE_INFO)) {
      const dialect = info.espeak.split('+')[0];
      assert.equal(dialect, { northern: 'vi', central: 'vi-vn-x-central', southern: 'vi-vn-x-south' }[info.region], info.name);
      const variant = info.espeak.split('+')[1] ?? 'm1';
      assert.equal(variant.startsWith('f') ? 'female' : 'male', info.gender, info.name);
    }
  });
  test('an Ace variant speaks as its speaker', () => {
    for (const [ace, speaker] of Object.entries(ACE_VOICES)) {
      const info = voiceInfo(ace);
      assert.ok(info, ace);
      assert.equal(info.speaker, speaker);
      assert.equal(info.espeak, VOICE_INFO[speaker].espeak);
      assert.equal(info.gender, VOICE_INFO[speaker].gender);
      assert.equal(info.region, VOICE_INFO[speaker].region);
    }
    assert.equal(voiceInfo('banmai')?.speaker, 'banmai');
    assert.equal(voiceInfo('constructor'), undefined);
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
