/**
 * The reader's own line recogniser (models/line-recogniser, onnxruntime-node): its input preparation, the committed
 * network reading back lines drawn with a font, its refusal of an altered file, and how its reading of a name is
 * combined with Tesseract's.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { checkLineModel, LINE_MODEL, lineInput, lineModelDir, OnnxLineRecogniser } from '../../../src/reader/pipeline/line-recogniser.js';
import { combineName, marksOnAlike, readNameAgain } from '../../../src/reader/pipeline/name-line.js';
import type { AnchoredValue } from '../../../src/reader/pipeline/anchors.js';
import type { Box } from '../../../src/reader/layouts.js';
import type { LineReading } from '../../../src/reader/pipeline/recognise.js';
import { levenshtein } from '../../../src/reader/pipeline/text.js';

/** A gray image (`width` x `height`) with `lines` of text drawn at the given baselines. */
async function drawn(width: number, height: number, lines: { text: string; x: number; y: number; size: number; bold?: boolean }[]): Promise<Buffer> {
  const texts = lines
    .map((l) => `<text x="${l.x}" y="${l.y}" font-family="DejaVu Sans" font-size="${l.size}"${l.bold ? ' font-weight="bold"' : ''} fill="#1a1a1a">${l.text}</text>`)
    .join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#e8e4da"/>${texts}</svg>`;
  return sharp(Buffer.from(svg)).grayscale().raw().toBuffer();
}

const reading = (text: string, conf = 90): LineReading => ({ text, conf, chars: [...text].map((ch) => ({ ch, p: conf / 100 })) });

describe('line recogniser input', () => {
  it('scales a line to 32 px tall with its aspect, ink 1 and paper 0', () => {
    // 64 x 16: paper 200 with a dark bar across the middle rows.
    const w = 64;
    const h = 16;
    const crop = new Uint8Array(w * h).fill(200);
    for (let y = 6; y < 10; y++) for (let x = 8; x < 56; x++) crop[y * w + x] = 30;
    const { pixels, width } = lineInput(crop, w, h);
    assert.equal(width, 128);
    assert.equal(pixels.length, 128 * 32);
    assert.equal(pixels[0], 0, 'paper is 0');
    assert.equal(pixels[16 * 128 + 64], 1, 'ink is 1');
    assert.ok(pixels.every((p) => p >= 0 && p <= 1));
  });

  it('does not stretch a blank line into ink', () => {
    const crop = new Uint8Array(40 * 20).map((_, i) => 180 + (i % 7));
    const { pixels } = lineInput(crop, 40, 20);
    assert.ok(Math.max(...pixels) < 0.25, `a faint texture stays faint (${Math.max(...pixels)})`);
  });
});

describe('line recogniser network', () => {
  it('reads back a date and an id drawn at card scale exactly, and a name in capitals with its tone marks nearly', async () => {
    // Made up for the test (no real person's).
    const lines = [
      { text: 'TRẦN THỊ NGỌC HUYỀN', x: 20, y: 46, size: 28, bold: true },
      { text: '07/11/1989', x: 24, y: 110, size: 26 },
      { text: '079302004815', x: 20, y: 176, size: 30, bold: true },
    ];
    const gray = await drawn(560, 200, lines);
    const boxes = [
      { x: 12, y: 14, w: 400, h: 42 },
      { x: 16, y: 82, w: 170, h: 38 },
      { x: 12, y: 144, w: 260, h: 42 },
    ];
    const [name, date, id] = await new OnnxLineRecogniser().readLines(gray, 560, 200, boxes);
    assert.equal(date.text, '07/11/1989');
    assert.equal(id.text, '079302004815');
    // The committed network still slips on a name's letters (docs/reader.md, "Current numbers"): its family
    // name and middle name with their marks, and at most a few slips in all.
    assert.ok(name.text.startsWith('TRẦN THỊ '), name.text);
    assert.ok(levenshtein(name.text, lines[0].text) <= 3, name.text);
    for (const r of [date, id]) assert.ok(r.conf > 80, `confidence ${r.conf} for ${r.text}`);
    assert.deepEqual(await new OnnxLineRecogniser().readLines(gray, 560, 200, []), []);
  });

  it('refuses a model file whose sha256 is not the committed one', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'line-model-'));
    try {
      for (const f of [LINE_MODEL.file, LINE_MODEL.charset]) fs.copyFileSync(path.join(lineModelDir(), f), path.join(dir, f));
      fs.appendFileSync(path.join(dir, LINE_MODEL.file), Buffer.from([0]));
      const gray = Buffer.alloc(100 * 40, 255);
      await assert.rejects(new OnnxLineRecogniser(dir).readLines(gray, 100, 40, [{ x: 0, y: 0, w: 100, h: 40 }]), /altered/);
      // The start-up check says the same, and names a missing file.
      assert.deepEqual(checkLineModel(), { ok: true });
      const altered = checkLineModel(dir);
      assert.ok(!altered.ok && /expected/.test(altered.why), JSON.stringify(altered));
      fs.rmSync(path.join(dir, LINE_MODEL.file));
      const missing = checkLineModel(dir);
      assert.ok(!missing.ok && /missing/.test(missing.why), JSON.stringify(missing));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('name from two readers', () => {
  const tesseract = (text: string, conf = 85) => ({ text, conf });

  it('two readers spelling the same name make it sure, with the surer confidence', () => {
    const r = combineName(tesseract('LÊ VĂN KHÁNH', 70), reading('LÊ VĂN KHÁNH', 95));
    assert.equal(r.agreed, true);
    assert.equal(r.name?.unsure, false);
    assert.equal(r.name?.conf, 95);
  });

  it('a difference in tone marks only: the network marks, or Tesseract marks, as asked; unsure either way', () => {
    const net = combineName(tesseract('PHẠM THỊ HÀNG'), reading('PHẠM THỊ HẰNG'), 'network');
    assert.equal(net.name?.text, 'PHẠM THỊ HẰNG');
    assert.equal(net.name?.unsure, true);
    const tess = combineName(tesseract('PHẠM THỊ HÀNG'), reading('PHẠM THỊ HẰNG'), 'tesseract');
    assert.equal(tess.name?.text, 'PHẠM THỊ HÀNG');
    assert.equal(tess.name?.unsure, true);
  });

  it('a plausible name wins over a reading that is not one; otherwise Tesseract is kept, unsure', () => {
    assert.equal(combineName(tesseract('THỊ HẰNG'), reading('PHẠM THỊ HẰNG')).name?.text, 'PHẠM THỊ HẰNG');
    const kept = combineName(tesseract('PHẠM THỊ HẰNG'), reading('PHẠM THX'));
    assert.equal(kept.name?.text, 'PHẠM THỊ HẰNG');
    assert.equal(kept.name?.unsure, true);
  });

  it("two plausible names spelt differently: the network's letters, Tesseract's marks on the words spelt alike; unsure", () => {
    // Tesseract lost a letter of the given name and read the middle name's mark otherwise.
    const r = combineName(tesseract('NGUYỄN THỊ HOA'), reading('NGUYỄN THI HOAN'));
    assert.equal(r.name?.text, 'NGUYỄN THỊ HOAN');
    assert.equal(r.name?.unsure, true);
    assert.equal(r.agreed, false);
    assert.equal(combineName(tesseract('NGUYỄN THỊ HOA'), reading('NGUYỄN THI HOAN'), 'network').name?.text, 'NGUYỄN THI HOAN');
  });

  it('pairs the words from the end when one reading lost a word at the start', () => {
    assert.equal(marksOnAlike('TRAN VAN AN', 'VĂN ÁN'), 'TRAN VĂN ÁN');
    assert.equal(marksOnAlike('TRAN VAN AN', 'TRẦN VĂN'), 'TRẦN VĂN AN');
    assert.equal(marksOnAlike('LÊ MINH', 'LÊ MINH'), 'LÊ MINH');
  });

  it('nothing read by the network leaves Tesseract as it was; only the network read: its name, unsure', () => {
    const t = tesseract('ĐỖ MINH TÂM');
    assert.equal(combineName(t, reading('')).name, t);
    assert.equal(combineName(t, undefined).name, t);
    const only = combineName(undefined, reading('ĐỖ MINH TÂM'));
    assert.equal(only.name?.text, 'ĐỖ MINH TÂM');
    assert.equal(only.name?.unsure, true);
  });
});

describe('name stage', () => {
  const name = { lineBoxes: [{ x: 300, y: 200, w: 320, h: 30 }] } as unknown as AnchoredValue;
  const lines = [{ x: 290, y: 198, w: 360, h: 34 }];

  it("reads the name line on its detected line and combines the reading with Tesseract's", async () => {
    const seen: Box[] = [];
    const fake = {
      readLines: async (_gray: Buffer | Uint8Array, _w: number, _h: number, boxes: readonly Box[]) => {
        seen.push(...boxes);
        return [reading('VŨ HOÀNG ANH', 96)];
      },
    };
    const out = await readNameAgain(fake, { gray: Buffer.alloc(1000 * 630), width: 1000, height: 630, lines, anchored: { name } }, { name: { text: 'VŨ HOÀNG ANH', conf: 71 } });
    assert.equal(seen.length, 1);
    // From just left of the value to the detected line's end, on the value's row.
    assert.ok(seen[0].x < 300 && seen[0].x >= 290 && seen[0].x + seen[0].w === 650, JSON.stringify(seen[0]));
    assert.equal(out.agreed, true);
    assert.deepEqual(out.raw.name, { text: 'VŨ HOÀNG ANH', conf: 96, unsure: false });
  });

  it("keeps Tesseract's reading when the network cannot run, and does nothing without a placed name", async () => {
    const broken = { readLines: async () => Promise.reject(new Error('model missing')) };
    const raw = { name: { text: 'VŨ HOÀNG ANH', conf: 71 } };
    assert.deepEqual(await readNameAgain(broken, { gray: Buffer.alloc(1000 * 630), width: 1000, height: 630, lines, anchored: { name } }, raw), { raw, agreed: false });
    assert.deepEqual(await readNameAgain(broken, { gray: Buffer.alloc(1000 * 630), width: 1000, height: 630, lines, anchored: {} }, raw), { raw, agreed: false });
  });
});
