import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { migrations } from '../../../../src/services.js';
import { loadConfig } from '../../../../src/platform/config.js';
import { modelsListCommand, modelsRemoveCommand } from '../../../../src/speech/cli.js';
import { parseWav } from '../../../../src/speech/tts/engine/encode.js';
import { parseVoiceList, ttsModelsAddCommand } from '../../../../src/speech/tts/cli.js';
import { ModelError } from '../../../../src/speech/models.js';
import { TTS_MANIFEST, detectVitsModel, readVoiceMap, sherpaSpeed, ttsModelsDir } from '../../../../src/speech/tts/models.js';
import { wordsPerMinute } from '../../../../src/speech/tts/voices.js';
import { startTestApp, type TestApp } from '../../../../fixtures/servers/app.js';
import { execFileSync } from 'node:child_process';
import { loadTtsConfig } from '../../../../src/speech/tts/config.js';
import { openTtsEngines } from '../../../../src/speech/tts/index.js';
import { VOICE_INFO } from '../../../../src/speech/tts/voices.js';
import { needsPrograms } from '../../../support/programs.js';
import { pollUntilReady, postTts, rawRequest, waitForStatus } from '../../../support/speech/tts/helpers.js';
import { TINY_VITS_HOP, TINY_VITS_SAMPLE_RATE, buildTinyVits } from '../../../../fixtures/speech/tiny-vits.js';

/**
 * Operator-installed VITS voices with generated tiny models in the exact form
 * sherpa-onnx loads (MMS-style character tokens): install, map, synthesise,
 * speed, several speakers, broken models refused, and the pool under load.
 */
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-tts-neural-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

let counter = 0;
const fresh = (opts: Parameters<typeof buildTinyVits>[1] = {}) => buildTinyVits(path.join(scratch, `source-${++counter}`), opts);

async function cli(command: typeof ttsModelsAddCommand, dataDir: string, args: string[]) {
  let out = '';
  let err = '';
  const code = await command({ config: loadConfig({ SAOLA_DATA_DIR: dataDir }), migrations, args, stdout: (t) => (out += t), stderr: (t) => (err += t) });
  return { code, out, err };
}

describe('voice model folders', () => {
  test('a Piper-style folder: the voice-named .onnx, its .onnx.json pace, espeak-ng-data', () => {
    const dir = path.join(scratch, 'piper');
    fs.mkdirSync(path.join(dir, 'espeak-ng-data'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'vi_VN-vais1000-medium.onnx'), 'x');
    fs.writeFileSync(path.join(dir, 'vi_VN-vais1000-medium.onnx.json'), JSON.stringify({ inference: { noise_scale: 0.667, length_scale: 1.1, noise_w: 0.8 } }));
    fs.writeFileSync(path.join(dir, 'tokens.txt'), '_ 0\na 1\n');
    const spec = detectVitsModel(dir);
    assert.equal(spec.files.model, path.join(dir, 'vi_VN-vais1000-medium.onnx'));
    assert.equal(spec.files.dataDir, path.join(dir, 'espeak-ng-data'));
    assert.equal(spec.lengthScale, 1.1);
    assert.equal(spec.noiseScaleW, 0.8);
  });

  test('missing pieces are named', () => {
    const dir = path.join(scratch, 'incomplete');
    fs.mkdirSync(dir, { recursive: true });
    assert.throws(() => detectVitsModel(dir), /No .onnx file/);
    fs.writeFileSync(path.join(dir, 'a.onnx'), 'x');
    assert.throws(
      () => detectVitsModel(dir),
      (err: Error) => err instanceof ModelError && /No tokens.txt/.test(err.message),
    );
    fs.writeFileSync(path.join(dir, 'tokens.txt'), 'a 1\nb 2\n');
    fs.writeFileSync(path.join(dir, 'b.onnx'), 'x');
    assert.throws(() => detectVitsModel(dir), /several .onnx files/);
    assert.throws(() => detectVitsModel(path.join(scratch, 'nowhere')), /does not exist/);
  });

  test('--voice: names (aliases and Ace variants too) with optional speaker ids', () => {
    assert.deepEqual(parseVoiceList('banmai, LANNHI:3,minhquangace'), [
      { voice: 'banmai', speaker: 0 },
      { voice: 'lannhi', speaker: 3 },
      { voice: 'minhquangace', speaker: 0 },
    ]);
    assert.deepEqual(parseVoiceList('female'), [{ voice: 'banmai', speaker: 0 }]);
    assert.match(parseVoiceList('alice') as string, /not a voice/);
    assert.match(parseVoiceList('banmai,banmai:1') as string, /twice/);
    assert.match(parseVoiceList('banmai:-1') as string, /not a voice/);
    assert.match(parseVoiceList('') as string, /at least one/);
  });

  test('speed: length scale = model pace x 175 / words per minute, so -3 is slower and +3 faster', () => {
    assert.equal(sherpaSpeed(wordsPerMinute(0), 1), 1);
    assert.ok(Math.abs(1 / sherpaSpeed(wordsPerMinute(-3), 1) - 175 / 115) < 1e-9);
    assert.ok(Math.abs(1 / sherpaSpeed(wordsPerMinute(0), 1.2) - 1.2) < 1e-9, "the model's own pace is kept at speed 0");
  });
});

describe('saola models add tts', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-tts-cli-'));
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const modelsDir = ttsModelsDir(dataDir);

  test('installs a model, checks it speaks, and maps the voices', async () => {
    const result = await cli(ttsModelsAddCommand, dataDir, [fresh(), '--name', 'tiny', '--voice', 'banmai,lannhi']);
    assert.equal(result.code, 0, result.err);
    assert.match(result.out, /loads and speaks .*16000 Hz/);
    assert.deepEqual(fs.readdirSync(path.join(modelsDir, 'tiny')).sort(), ['model.onnx', TTS_MANIFEST, 'tokens.txt'].sort());
    assert.deepEqual(readVoiceMap(modelsDir), { banmai: { model: 'tiny', speaker: 0 }, lannhi: { model: 'tiny', speaker: 0 } });
    const list = await cli(modelsListCommand, dataDir, ['--json']);
    const listed = JSON.parse(list.out);
    assert.deepEqual(listed.tts.models, [{ name: 'tiny', voices: ['banmai:0', 'lannhi:0', 'banmaiace:0 (as banmai)'] }]);
    assert.ok(listed.tts.unmappedVoices.includes('leminh') && !listed.tts.unmappedVoices.includes('banmai') && !listed.tts.unmappedVoices.includes('banmaiace'));
  });

  test('a multi-speaker model maps a speaker id per voice; an id it lacks is refused', async () => {
    const source = fresh({ speakers: 3, seed: 7 });
    const result = await cli(ttsModelsAddCommand, dataDir, [source, '--name', 'trio', '--voice', 'leminh:1,giahuy:2']);
    assert.equal(result.code, 0, result.err);
    assert.match(result.out, /3 speaker\(s\)/);
    const map = readVoiceMap(modelsDir);
    assert.deepEqual(
      [map.leminh, map.giahuy],
      [
        { model: 'trio', speaker: 1 },
        { model: 'trio', speaker: 2 },
      ],
    );
    const tooFar = await cli(ttsModelsAddCommand, dataDir, [source, '--name', 'trio2', '--voice', 'myan:5']);
    assert.equal(tooFar.code, 1);
    assert.match(tooFar.err, /has 3 speaker\(s\).*speaker 5 does not exist/);
    assert.equal(fs.existsSync(path.join(modelsDir, 'trio2')), false);
    assert.equal(readVoiceMap(modelsDir).myan, undefined);
  });

  test('broken models are refused with the reason and not installed', async () => {
    // sherpa-onnx requires sample_rate in the metadata; without it the load fails (in the probe's process).
    const noRate = await cli(ttsModelsAddCommand, dataDir, [fresh({ metadata: { sample_rate: undefined } }), '--name', 'norate', '--voice', 'myan']);
    assert.equal(noRate.code, 1);
    assert.match(noRate.err, /does not load in sherpa-onnx: .*sample_rate/);
    assert.match(noRate.err, /not installed/);
    // Not an ONNX file at all.
    const junk = fresh();
    fs.writeFileSync(path.join(junk, 'model.onnx'), 'definitely not protobuf');
    const notOnnx = await cli(ttsModelsAddCommand, dataDir, [junk, '--name', 'junk', '--voice', 'myan']);
    assert.equal(notOnnx.code, 1);
    assert.match(notOnnx.err, /does not load in sherpa-onnx/);
    // Tokens that are not the model's: it loads but reads nothing of the sentence.
    const wrongTokens = fresh();
    fs.writeFileSync(path.join(wrongTokens, 'tokens.txt'), '_ 0\n# 1\n@ 2\n');
    const silent = await cli(ttsModelsAddCommand, dataDir, [wrongTokens, '--name', 'silent', '--voice', 'myan']);
    assert.equal(silent.code, 1);
    assert.match(silent.err, /no usable audio/);
    for (const name of ['norate', 'junk', 'silent']) assert.equal(fs.existsSync(path.join(modelsDir, name)), false, name);
    assert.equal(readVoiceMap(modelsDir).myan, undefined);
  });

  test('bad usage: no --voice, an unknown voice, an existing name without --force', async () => {
    assert.equal((await cli(ttsModelsAddCommand, dataDir, [fresh()])).code, 2);
    assert.equal((await cli(ttsModelsAddCommand, dataDir, [fresh(), '--voice', 'alice'])).code, 2);
    assert.equal((await cli(ttsModelsAddCommand, dataDir, [fresh(), '--name', 'tiny', '--voice', 'myan'])).code, 2);
    assert.equal((await cli(ttsModelsAddCommand, dataDir, [path.join(scratch, 'nowhere'), '--voice', 'myan'])).code, 2);
  });

  test('remove: a voice goes back to eSpeak NG; removing a model unmaps its voices', async () => {
    const unmap = await cli(modelsRemoveCommand, dataDir, ['tts', '--voice', 'lannhi']);
    assert.equal(unmap.code, 0, unmap.err);
    assert.equal(readVoiceMap(modelsDir).lannhi, undefined);
    assert.ok(fs.existsSync(path.join(modelsDir, 'tiny')));
    const removed = await cli(modelsRemoveCommand, dataDir, ['tts', 'trio']);
    assert.equal(removed.code, 0, removed.err);
    assert.match(removed.out, /Unmapped: (leminh, giahuy|giahuy, leminh)/);
    assert.equal(fs.existsSync(path.join(modelsDir, 'trio')), false);
    assert.deepEqual(Object.keys(readVoiceMap(modelsDir)), ['banmai']);
    assert.equal((await cli(modelsRemoveCommand, dataDir, ['tts', 'trio'])).code, 1);
    assert.equal((await cli(modelsRemoveCommand, dataDir, ['tts'])).code, 2);
    assert.equal((await cli(modelsRemoveCommand, dataDir, ['asr', 'none'])).code, 1);
  });
});

describe('a Piper-form voice (eSpeak NG phonemes)', { skip: needsPrograms('espeak-ng') }, () => {
  test('installs from a folder with espeak-ng-data, speaks, and keeps the pace of its .onnx.json', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-tts-piper-'));
    const source = fresh({ form: 'piper', speakers: 2 });
    // The Debian program's phoneme data, as sherpa-onnx's Piper packages ship their own.
    const debianData = /Data at:\s*(\S+)/.exec(execFileSync('espeak-ng', ['--version'], { encoding: 'utf8' }))![1];
    fs.symlinkSync(debianData, path.join(source, 'espeak-ng-data'));
    fs.writeFileSync(path.join(source, 'vi_VN-tiny-x_low.onnx.json'), JSON.stringify({ inference: { noise_scale: 0.667, length_scale: 1.25, noise_w: 0.8 } }));
    try {
      const added = await cli(ttsModelsAddCommand, dataDir, [source, '--name', 'piper-tiny', '--voice', 'lannhi:1']);
      assert.equal(added.code, 0, added.err);
      const spec = detectVitsModel(path.join(ttsModelsDir(dataDir), 'piper-tiny'));
      assert.equal(spec.lengthScale, 1.25);
      assert.ok(spec.files.dataDir);
      // The engines the server opens read the voice map just written.
      const served = await openTtsEngines(loadTtsConfig({}), { threads: 1, maxQueue: 8 }, { dir: ttsModelsDir(dataDir) });
      try {
        const engine = await served.voices.engineFor(VOICE_INFO.lannhi);
        assert.equal(engine.name, 'sherpa-onnx VITS piper-tiny speaker 1');
        const normal = await engine.synthesise('xin chào các bạn', VOICE_INFO.lannhi, wordsPerMinute(0));
        const slow = await engine.synthesise('xin chào các bạn', VOICE_INFO.lannhi, wordsPerMinute(-3));
        assert.equal(normal.sampleRate, TINY_VITS_SAMPLE_RATE);
        // Each phoneme token lasts ceil(HOP x pace x 175 / wpm) samples: 320 at speed 0 with pace 1.25.
        const perToken = (speed: number) => Math.ceil(TINY_VITS_HOP * 1.25 * (175 / wordsPerMinute(speed)));
        assert.equal(normal.samples.length % perToken(0), 0);
        const tokens = normal.samples.length / perToken(0);
        assert.ok(tokens > 10, `${tokens} phoneme tokens`);
        assert.equal(slow.samples.length, tokens * perToken(-3));
      } finally {
        await served.close();
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('neural voices in the server', () => {
  let t: TestApp;
  let dataDir: string;
  let apiKey: string;

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-tts-neural-app-'));
    const single = await cli(ttsModelsAddCommand, dataDir, [fresh(), '--name', 'mms-tiny', '--voice', 'banmai,minhquang']);
    assert.equal(single.code, 0, single.err);
    const trio = await cli(ttsModelsAddCommand, dataDir, [fresh({ speakers: 3, seed: 11 }), '--name', 'trio', '--voice', 'leminh:1,giahuy:2']);
    assert.equal(trio.code, 0, trio.err);
    // A model spoilt after it was installed: its voice must fall back to eSpeak NG, and /readyz say why.
    const spoilt = await cli(ttsModelsAddCommand, dataDir, [fresh(), '--name', 'spoilt', '--voice', 'thuminh']);
    assert.equal(spoilt.code, 0, spoilt.err);
    fs.writeFileSync(path.join(ttsModelsDir(dataDir), 'spoilt', 'model.onnx'), 'overwritten by mistake');
    // A data folder of its own (the models are installed first), so the test makes its application.
    t = await startTestApp({ dataDir });
    apiKey = (await t.newTenant('neural')).apiKey;
  });

  after(async () => {
    await t?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  async function wav(voice: string, text: string, speed = '0') {
    const res = await postTts(t.url, text, { api_key: apiKey, voice, speed, format: 'wav' });
    assert.equal(res.body.error, 0, res.raw);
    const { final } = await pollUntilReady(res.body.async, 12);
    return parseWav(final.body);
  }

  test("/readyz names each voice's engine; an Ace variant follows its speaker; a spoilt model is reported", async () => {
    let tts: { voices: Record<string, string>; neural: Record<string, { state: string; error?: string }> } | undefined;
    for (let i = 0; i < 100; i++) {
      tts = JSON.parse((await rawRequest(`${t.url}/readyz`)).body.toString()).checks.tts;
      if (Object.values(tts!.neural).every((s) => s.state !== 'loading')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(tts!.voices.banmai, 'sherpa-onnx VITS mms-tiny speaker 0');
    assert.equal(tts!.voices.banmaiace, 'sherpa-onnx VITS mms-tiny speaker 0');
    assert.equal(tts!.voices.minhquangace, 'sherpa-onnx VITS mms-tiny speaker 0');
    assert.equal(tts!.voices.giahuy, 'sherpa-onnx VITS trio speaker 2');
    assert.match(tts!.voices.myan, /espeak-ng/);
    assert.match(tts!.voices.thuminh, /espeak-ng/);
    assert.equal(tts!.neural.thuminh.state, 'failed');
    assert.match(tts!.neural.thuminh.error!, /does not load/);
  });

  test('a mapped voice speaks with its model (16 kHz, one hop per character and blank); the others keep eSpeak NG (22 kHz)', async () => {
    const neural = await wav('banmai', 'xin chào');
    assert.equal(neural.sampleRate, TINY_VITS_SAMPLE_RATE);
    // "xin chào" read by the normaliser is unchanged: 8 characters, a blank around each: 17 tokens.
    assert.equal(neural.samples.length, 17 * TINY_VITS_HOP);
    const ace = await wav('banmaiace', 'xin chào');
    assert.deepEqual([...ace.samples], [...neural.samples], "banmaiace speaks with banmai's model");
    const espeak = await wav('myan', 'xin chào');
    assert.equal(espeak.sampleRate, 22050);
    const fallback = await wav('thuminh', 'xin chào');
    assert.equal(fallback.sampleRate, 22050, "the spoilt model's voice falls back to eSpeak NG");
  });

  test('speed -3..+3 sets the length scale', async () => {
    const text = 'hôm nay trời đẹp';
    const lengths: Record<string, number> = {};
    for (const speed of ['-3', '0', '3']) lengths[speed] = (await wav('minhquang', text, speed)).samples.length;
    const tokens = lengths['0'] / TINY_VITS_HOP;
    assert.equal(tokens, 2 * [...text].length + 1);
    assert.equal(lengths['-3'], tokens * Math.ceil(TINY_VITS_HOP * (175 / wordsPerMinute(-3))));
    assert.equal(lengths['3'], tokens * Math.ceil(TINY_VITS_HOP * (175 / wordsPerMinute(3))));
    assert.ok(lengths['-3'] > lengths['0'] && lengths['0'] > lengths['3']);
  });

  test('speakers of one multi-speaker model sound different', async () => {
    const a = await wav('leminh', 'một hai ba');
    const b = await wav('giahuy', 'một hai ba');
    assert.equal(a.samples.length, b.samples.length);
    let differing = 0;
    for (let i = 0; i < a.samples.length; i++) if (a.samples[i] !== b.samples[i]) differing++;
    assert.ok(differing > a.samples.length / 2, `${differing} of ${a.samples.length} samples differ`);
  });

  test('mp3 and long texts go the same way; the pool takes a burst', async () => {
    const long = Array(12).fill('Chúng tôi đã đến Hà Nội vào năm 2024 và ở lại 15 ngày.').join(' ');
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await postTts(t.url, long, { api_key: apiKey, voice: i % 2 ? 'banmai' : 'giahuy', format: i % 3 ? 'mp3' : 'wav' });
      assert.equal(res.body.error, 0, res.raw);
      ids.push(res.body.request_id);
    }
    for (const id of ids) {
      const status = await waitForStatus(t.url, apiKey, id, 120_000);
      assert.equal(status.status, 'done', JSON.stringify(status));
      // Numbers are read out before the model sees the text: far more than the raw characters' worth of audio.
      assert.ok(status.audio_seconds > (long.length * 2 * TINY_VITS_HOP) / TINY_VITS_SAMPLE_RATE, JSON.stringify(status));
    }
  });
});
