/**
 * End to end on cards printed with layout variation (fixtures/cards/variation.ts: shifted text blocks,
 * other fonts, other label wordings, wrapping), one of each kind and side, the 2024 card included;
 * and the `--real DIR` evaluation on a folder made by hand from generated photos with their truth.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { evaluateFolder, labelPieces, readTruthFile } from '../../../eval/reader/score.js';
import { makeSample, VARIED_KINDS } from '../../../fixtures/cards/synth.js';
import { chooseOcrEngine, type OcrEngine } from '../../../src/reader/pipeline/ocr.js';
import { readCard } from '../../../src/reader/pipeline/run.js';
import { TEST_FONTS } from '../../support/reader/helpers.js';

const PHOTO = { rotation: 3, glare: false, blurSigma: 0, jpegQuality: 88, width: 1300 };

describe('layout-free reading of varied cards', () => {
  let ocr: OcrEngine;
  before(() => {
    ocr = chooseOcrEngine('auto');
  });
  after(async () => ocr.close());

  for (const [i, kind] of VARIED_KINDS.entries()) {
    it(`reads a ${kind} whose fields are shifted, in another font and wording`, async () => {
      // Seeds of this test only (never looked at while building the reader).
      const s = await makeSample(880_100 + i, kind, PHOTO, { jitter: 0.04, fonts: TEST_FONTS });
      const r = await readCard({ image: s.photo.jpeg, face: false, maxPixels: 4e7, minCardArea: 0.12 }, ocr);
      assert.ok(r.ok, 'card found');
      assert.equal(r.kind.replace('cmnd_12_back', 'cccd_12_back'), kind.replace('cmnd_12_back', 'cccd_12_back'));
      let right = 0;
      const total = Object.keys(s.truth.fields).length;
      for (const [f, want] of Object.entries(s.truth.fields)) {
        const got = r.fields[f as keyof typeof r.fields];
        if (got?.value === want.replace(/\s+/g, ' ')) right++;
        // A wrong answer is never a confident one, and no printed label comes back as a value.
        else if (got) assert.ok(got.prob < 80, `${f}: "${got.value}" wrong at ${got.prob}`);
        if (got) assert.doesNotMatch(got.value, /(Họ và tên|Full name|Date of birth|Quê quán|Nơi thường trú|Place of)/i, f);
      }
      // Free-text marks may lose a letter; everything else is expected right.
      assert.ok(right >= total - 1, `${right} of ${total} fields right`);
    });
  }
});

describe('evaluation of a folder of photos with truth.jsonl (--real DIR)', () => {
  let ocr: OcrEngine;
  let dir: string;
  before(async () => {
    ocr = chooseOcrEngine('auto');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-real-'));
    const lines: string[] = ['# made by hand from generated photos'];
    for (const [i, kind] of (['cccd_chip_front', 'cccd_2024_back', 'cmnd_12_front'] as const).entries()) {
      const s = await makeSample(880_200 + i, kind, PHOTO, {});
      fs.writeFileSync(path.join(dir, `card${i}.jpg`), s.photo.jpeg);
      // The fields at the top level, as an operator would write them.
      lines.push(JSON.stringify({ file: `card${i}.jpg`, kind, ...s.truth.fields }));
    }
    // A truth line that is wrong on purpose: the scoring must count it as a miss.
    const s = await makeSample(880_203, 'cccd_12_back', PHOTO, {});
    fs.writeFileSync(path.join(dir, 'wrong.jpg'), s.photo.jpeg);
    lines.push(JSON.stringify({ file: 'wrong.jpg', kind: 'cccd_12_back', fields: { issue_date: '01/01/1901' } }));
    fs.writeFileSync(path.join(dir, 'truth.jsonl'), lines.join('\n') + '\n');
  });
  after(async () => {
    await ocr.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('finds label words a value holds that the card does not', () => {
    assert.deepEqual(labelPieces('Số 19 Ngõ 1 ký khai sinh Place of Trừng Xá', 'Số 19 Ngõ 13, Long Cang, Cần Đước, Long An'), ['ky', 'khai', 'sinh', 'place', 'of']);
    // Label words the value itself holds ("Nam", "Tỉnh") are no leak; accents aside.
    assert.deepEqual(labelPieces('Tỉnh Hà Nam', 'Tinh Ha Nam'), []);
    assert.deepEqual(labelPieces('Xã Tân Phú', 'Xã Tân Phú'), []);
  });
  it('reads truth.jsonl (fields at the top level or under "fields") and refuses a bad line', () => {
    const entries = readTruthFile(dir);
    assert.equal(entries.length, 4);
    assert.equal(entries[0].fields.nationality, 'Việt Nam');
    assert.deepEqual(entries[3].fields, { issue_date: '01/01/1901' });
    const bad = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-real-bad-'));
    fs.writeFileSync(path.join(bad, 'truth.jsonl'), '{"file": "a.jpg"}\n');
    assert.throws(() => readTruthFile(bad), /"file" and "kind" are required/);
    fs.rmSync(bad, { recursive: true, force: true });
  });

  it('scores every photo field by field', async () => {
    const scores = await evaluateFolder(dir, ocr);
    assert.equal(scores.cards, 4);
    assert.equal(scores.found, 4);
    assert.equal(scores.sideRight, 4);
    assert.deepEqual(scores.perField.get('id'), { right: 2, total: 2 });
    assert.equal(scores.perField.get('pob')?.total, 1);
    // The wrong truth is a miss, reported with the file's name.
    assert.deepEqual(scores.perField.get('issue_date'), { right: 1, total: 2 });
    assert.ok(scores.misses.some((m) => m.includes('wrong.jpg issue_date')));
    assert.ok(scores.report().some((l) => l.startsWith('card found: 100.0% (4/4)')));
  });
});
