import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { migrations } from '../../../../src/services.js';
import { loadConfig } from '../../../../src/platform/config.js';
import { ttsModelsAddCommand } from '../../../../src/speech/tts/cli.js';
import { SPEAKERS } from '../../../../src/speech/tts/voices.js';
import { buildTinyTransducer } from '../../../../fixtures/speech/tiny-transducer.js';
import { buildTinyVits } from '../../../../fixtures/speech/tiny-vits.js';
import { nodeScript } from '../../../support/node-script.js';

const run = promisify(execFile);

/**
 * `npm run eval:tts -- --asr`: every voice is synthesised with the engine the
 * server would use and recognised. With the tiny models the error rates mean
 * nothing; what is checked is who speaks and that every voice is scored.
 */
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-tts-eval-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

const evalTts = (args: string[], dataDir: string) =>
  run(process.execPath, [...nodeScript('eval/speech/tts.ts'), '--asr', ...args], {
    env: { ...process.env, SAOLA_DATA_DIR: dataDir, SAOLA_ASR_MODEL: '' },
    timeout: 240_000,
    maxBuffer: 16 << 20,
  });

describe('eval:tts --asr', () => {
  test('without a recognition model it says what to install and exits 2', async () => {
    await assert.rejects(evalTts([], path.join(scratch, 'empty')), (err: { code?: number; stderr?: string }) => {
      assert.equal(err.code, 2);
      assert.match(err.stderr ?? '', /needs a recognition model: install one/);
      return true;
    });
  });

  test('each voice is read by its engine (an installed model where mapped) and scored', async () => {
    const dataDir = path.join(scratch, 'data');
    const installed = await ttsModelsAddCommand({
      config: loadConfig({ SAOLA_DATA_DIR: dataDir }),
      migrations,
      args: [buildTinyVits(path.join(scratch, 'vits')), '--name', 'tiny', '--voice', 'banmai,minhquangace'],
      stdout: () => undefined,
      stderr: (t) => assert.fail(t),
    });
    assert.equal(installed, 0);
    const asr = path.join(scratch, 'asr');
    buildTinyTransducer(asr);
    const { stdout } = await evalTts(['--model', asr, '--sentences', '1', '--json'], dataDir);
    const report = JSON.parse(stdout) as { voices: Record<string, { wer: number; cer: number; engine: string }>; totals: { files: number } };
    // Every speaker, plus the Ace variant that has a model of its own.
    assert.deepEqual(Object.keys(report.voices).sort(), [...SPEAKERS, 'minhquangace'].sort());
    assert.equal(report.totals.files, SPEAKERS.length + 1);
    assert.equal(report.voices.banmai.engine, 'sherpa-onnx VITS tiny speaker 0');
    assert.equal(report.voices.minhquangace.engine, 'sherpa-onnx VITS tiny speaker 0');
    assert.match(report.voices.minhquang.engine, /espeak-ng/);
    for (const [voice, r] of Object.entries(report.voices)) assert.ok(Number.isFinite(r.wer) && r.wer >= 0, voice);
  });
});
