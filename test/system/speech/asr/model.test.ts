import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { loadConfig } from '../../../../src/platform/config.js';
import { asrModelsCommand } from '../../../../src/speech/asr/cli.js';
import { loadAsrSettings } from '../../../../src/speech/asr/config.js';
import { FfmpegDecoder, SAMPLE_RATE } from '../../../../src/speech/asr/engine/decode.js';
import { SherpaEngine } from '../../../../src/speech/asr/engine/index.js';
import { ACTIVE, MANIFEST, ModelError, detectModel, probeModel, resolveConfiguredModel } from '../../../../src/speech/asr/model.js';
import { speech, withPauses } from '../../../support/speech/asr/audio.js';
import { tinyModelDir } from '../../../support/speech/asr/server.js';
import { migrations } from '../../../../src/services.js';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-asr-models-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));
const options = { numThreads: 1, decodingMethod: 'greedy_search' as const, language: 'vi' };

function folder(name: string, files: Record<string, string>): string {
  const dir = path.join(scratch, name);
  fs.mkdirSync(dir, { recursive: true });
  for (const [f, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, f), content);
  return dir;
}

describe('model folders', () => {
  test('a transducer folder (encoder, decoder, joiner, tokens) is recognised', () => {
    const dir = tinyModelDir();
    const spec = detectModel(dir);
    assert.equal(spec.kind, 'transducer');
    assert.equal(spec.files.joiner, path.join(dir, 'joiner.onnx'));
    assert.equal(spec.files.tokens, path.join(dir, 'tokens.txt'));
  });

  test('int8 weights are preferred; a Whisper folder is told from a transducer', () => {
    const tokens = 'a 0\nb 1\n';
    const zipformer = folder('zipformer-vi', {
      'encoder-epoch-12-avg-8.onnx': 'x',
      'encoder-epoch-12-avg-8.int8.onnx': 'x',
      'decoder-epoch-12-avg-8.onnx': 'x',
      'joiner-epoch-12-avg-8.int8.onnx': 'x',
      'tokens.txt': tokens,
    });
    const t = detectModel(zipformer);
    assert.equal(t.kind, 'transducer');
    assert.match(t.files.encoder!, /int8/);
    const whisper = folder('whisper-small', { 'small-encoder.int8.onnx': 'x', 'small-decoder.int8.onnx': 'x', 'small-tokens.txt': tokens });
    const w = detectModel(whisper);
    assert.equal(w.kind, 'whisper');
    assert.equal(w.files.tokens, path.join(whisper, 'small-tokens.txt'));
  });

  test('a single-file CTC model needs --kind; missing pieces are named', () => {
    const ctc = folder('ctc', { 'model.int8.onnx': 'x', 'tokens.txt': 'a 0\nb 1\n' });
    assert.throws(() => detectModel(ctc), /--kind zipformer-ctc/);
    assert.equal(detectModel(ctc, 'zipformer-ctc').kind, 'zipformer-ctc');
    assert.throws(() => detectModel(folder('no-tokens', { 'model.onnx': 'x' })), /No tokens.txt/);
    assert.throws(() => detectModel(folder('empty', {})), /No .onnx files/);
    assert.throws(() => detectModel(path.join(scratch, 'nowhere')), /does not exist/);
    assert.throws(() => detectModel(ctc, 'whisper'), ModelError);
  });

  test('a manifest names the kind and files', () => {
    const dir = folder('manifest', {
      'am.onnx': 'x',
      'units.txt': 'a 0\nb 1\n',
      [MANIFEST]: JSON.stringify({ kind: 'nemo-ctc', files: { model: 'am.onnx', tokens: 'units.txt' } }),
    });
    const spec = detectModel(dir);
    assert.equal(spec.kind, 'nemo-ctc');
    assert.equal(spec.files.model, path.join(dir, 'am.onnx'));
  });

  test('probing a broken model fails in the child process, not in ours', async () => {
    const dir = tinyModelDir();
    fs.writeFileSync(path.join(dir, 'decoder.onnx'), Buffer.from('definitely not protobuf'));
    await assert.rejects(probeModel(detectModel(dir), options), (err: unknown) => err instanceof ModelError && /does not load/.test(err.message));
    const good = await probeModel(detectModel(tinyModelDir()), options);
    assert.ok(good.loadMs >= 0);
  });
});

describe('saola models add asr', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-asr-cli-'));
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const config = loadConfig({ SAOLA_DATA_DIR: dataDir });
  const run = async (args: string[]) => {
    let out = '';
    let err = '';
    const code = await asrModelsCommand({ config, migrations, args, stdout: (t) => (out += t), stderr: (t) => (err += t) });
    return { code, out, err };
  };

  test('installs a model, checks it decodes, and makes it active', async () => {
    const source = tinyModelDir();
    const result = await run([source, '--name', 'tiny']);
    assert.equal(result.code, 0, result.err);
    assert.match(result.out, /loads and decodes/);
    const modelsDir = path.join(dataDir, 'models', 'asr');
    assert.deepEqual(fs.readdirSync(path.join(modelsDir, 'tiny')).sort(), ['decoder.onnx', 'encoder.onnx', 'joiner.onnx', MANIFEST, 'tokens.txt'].sort());
    assert.equal(JSON.parse(fs.readFileSync(path.join(modelsDir, ACTIVE), 'utf8')).dir, 'tiny');
    assert.equal(resolveConfiguredModel(undefined, modelsDir), path.join(modelsDir, 'tiny'));
    // SAOLA_ASR_MODEL wins over the installed one.
    assert.equal(resolveConfiguredModel('/elsewhere', modelsDir), '/elsewhere');
    assert.equal(detectModel(path.join(modelsDir, 'tiny')).kind, 'transducer');
  });

  test('refuses to overwrite without --force, bad usage, and broken models', async () => {
    const source = tinyModelDir();
    assert.equal((await run([source, '--name', 'tiny'])).code, 2);
    assert.equal((await run([source, '--name', 'tiny', '--force'])).code, 0);
    assert.equal((await run([])).code, 2);
    assert.equal((await run([source, '--kind', 'martian'])).code, 2);
    assert.equal((await run([path.join(scratch, 'nowhere')])).code, 2);
    const broken = tinyModelDir();
    fs.writeFileSync(path.join(broken, 'encoder.onnx'), 'junk');
    const result = await run([broken, '--name', 'broken']);
    assert.equal(result.code, 1);
    assert.match(result.err, /not installed/);
    assert.equal(fs.existsSync(path.join(dataDir, 'models', 'asr', 'broken')), false);
    assert.equal(JSON.parse(fs.readFileSync(path.join(dataDir, 'models', 'asr', ACTIVE), 'utf8')).dir, 'tiny');
  });

  test('the engine serves the installed model: VAD splits long audio, each piece is recognised', async () => {
    const settings = { ...loadAsrSettings(config, {}), threads: 1, maxSegmentSeconds: 8 };
    const engine = new SherpaEngine(settings);
    try {
      const state = await engine.model();
      assert.equal(state.state, 'ready');
      const decoder = await FfmpegDecoder.locate('auto');
      const sentence = speech('Hôm nay trời đẹp quá, chúng ta đi chơi công viên nhé.');
      const pcm = await decoder.decode(withPauses([sentence, sentence, sentence], 2.5), { maxSeconds: 60 });
      const segments = await engine.detectSpeech(pcm);
      assert.equal(segments.length, 3, JSON.stringify(segments));
      for (const s of segments) assert.ok(s.end - s.start <= 8 * SAMPLE_RATE);
      const texts = await Promise.all(segments.map((s) => engine.transcribe(pcm, s)));
      assert.ok(texts.every((t) => t.trim().length > 0));

      // Continuous speech longer than the segment limit is cut into pieces under it.
      const long = speech(Array(6).fill('một hai ba bốn năm sáu bảy tám chín mười').join(' '));
      const longPcm = await decoder.decode(long, { maxSeconds: 120 });
      assert.ok(longPcm.seconds > 10);
      const pieces = await engine.detectSpeech(longPcm);
      assert.ok(pieces.length >= 2, JSON.stringify(pieces));
      for (const s of pieces) assert.ok(s.end - s.start <= 8 * SAMPLE_RATE, `${(s.end - s.start) / SAMPLE_RATE} s`);
      assert.equal(engine.describe().runtime, 'sherpa-onnx-node');
    } finally {
      await engine.close();
    }
  });
});
