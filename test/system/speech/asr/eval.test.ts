import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { loadTruth } from '../../../../eval/speech/asr.js';
import { convert, speech } from '../../../support/speech/asr/audio.js';
import { buildTinyTransducer } from '../../../../fixtures/speech/tiny-transducer.js';
import { nodeScript } from '../../../support/node-script.js';

const run = promisify(execFile);

/**
 * `npm run eval:asr -- --real DIR`: an operator's folder of recordings with
 * truth.jsonl, recognised through the service's path with the tiny model
 * (its transcripts are meaningless; what is checked is that every file is
 * decoded, recognised and scored, and the totals add up).
 */
let dir: string;

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-asr-real-'));
  buildTinyTransducer(path.join(dir, 'model'));
  const rec = path.join(dir, 'recordings');
  fs.mkdirSync(path.join(rec, 'day1'), { recursive: true });
  const wav = speech('xin chào các bạn hôm nay trời đẹp');
  fs.writeFileSync(path.join(rec, 'a.wav'), wav);
  fs.writeFileSync(path.join(rec, 'day1', 'b.mp3'), convert(speech('một hai ba bốn năm', 'vi+f3'), 'mp3'));
  fs.writeFileSync(path.join(rec, 'c.m4a'), convert(wav, 'm4a'));
  fs.writeFileSync(
    path.join(rec, 'truth.jsonl'),
    [
      { file: 'a.wav', text: 'Xin chào các bạn, hôm nay trời đẹp.' },
      { file: 'day1/b.mp3', text: '1 2 3 4 5' },
      { file: 'c.m4a', text: 'xin chào các bạn hôm nay trời đẹp' },
    ]
      .map((l) => JSON.stringify(l))
      .join('\n') + '\n',
  );
});

after(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('eval:asr --real', () => {
  test('truth.jsonl: a missing file or a bad line is reported with its line number', () => {
    const bad = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-asr-truth-'));
    try {
      fs.writeFileSync(path.join(bad, 'truth.jsonl'), '{"file":"nope.wav","text":"x"}\nnot json\n{"file":"x.wav"}\n');
      assert.throws(
        () => loadTruth(bad),
        (err: Error) => /line 1: nope.wav does not exist/.test(err.message) && /line 2: not JSON/.test(err.message) && /line 3/.test(err.message),
      );
      fs.rmSync(path.join(bad, 'truth.jsonl'));
      assert.throws(() => loadTruth(bad), /truth.jsonl does not exist/);
    } finally {
      fs.rmSync(bad, { recursive: true, force: true });
    }
  });

  test('every recording (wav, mp3, m4a) is recognised and scored; totals weigh files by their length', async () => {
    const { stdout } = await run(
      process.execPath,
      [...nodeScript('eval/speech/asr.ts'), '--real', path.join(dir, 'recordings'), '--model', path.join(dir, 'model'), '--json'],
      { env: { ...process.env, SAOLA_DATA_DIR: path.join(dir, 'data') }, timeout: 240_000, maxBuffer: 16 << 20 },
    );
    const { summary, rows } = JSON.parse(stdout) as {
      summary: { files: number; audioSeconds: number; wer: number; cer: number; rtf: number; cpuPerAudioSecond: number; kind: string };
      rows: { id: string; status: number; seconds: number; words: number; wordErrors: number; reference: string; rtf: number; cpuPerSecond: number }[];
    };
    assert.deepEqual(
      rows.map((r) => r.id),
      ['a.wav', 'day1/b.mp3', 'c.m4a'],
    );
    assert.equal(summary.kind, 'transducer');
    assert.equal(summary.files, 3);
    // The references are normalised: digits read out, punctuation and case gone.
    assert.equal(rows[1].reference, 'một hai ba bốn năm');
    assert.equal(rows[0].reference, rows[2].reference);
    assert.equal(rows[0].words, 8);
    for (const r of rows) {
      assert.equal(r.status, 0, `${r.id} was recognised`);
      assert.ok(r.seconds > 0.5, `${r.id}: ${r.seconds} s`);
      assert.ok(r.rtf > 0 && r.cpuPerSecond > 0, `${r.id}: timing measured`);
    }
    const seconds = rows.reduce((n, r) => n + r.seconds, 0);
    assert.ok(Math.abs(summary.audioSeconds - seconds) < 0.1);
    const wer = rows.reduce((n, r) => n + r.wordErrors, 0) / rows.reduce((n, r) => n + r.words, 0);
    assert.ok(Math.abs(summary.wer - wer) < 1e-3, `${summary.wer} vs ${wer}`);
    assert.ok(summary.cpuPerAudioSecond > 0 && summary.rtf > 0);
  });
});
