/**
 * The digit stage's geometry and decisions (pipeline/digits.ts), without the network: which box the recogniser
 * reads for a value, which lines may hold an id or expiry the anchoring missed, and how Tesseract's and the
 * network's readings are made one. Every number here is made up.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { LAYOUTS, type Box, type IdCardField } from '../../../src/reader/layouts.js';
import type { AnchoredValue } from '../../../src/reader/pipeline/anchors.js';
import { birthYearFits, candidateOrder, combineDigits, digitLineBox, findUnplaced, unplacedLines } from '../../../src/reader/pipeline/digits.js';

/** An anchored one-line value at `box`, its label at `label`. */
function anchoredAt(box: Box, label: Box): AnchoredValue {
  const word = { text: 'x', conf: 90, left: box.x, top: box.y, width: box.w, height: box.h };
  return { words: [word], lines: [[word]], lineBoxes: [box], box, label: { label: 'L', segment: 0, start: 0, end: 1, distance: 0, box: label } };
}

describe('the box the recogniser reads', () => {
  it('starts just left of the value on its label row and runs to the detected line end (digits Tesseract lost)', () => {
    const value = anchoredAt({ x: 400, y: 300, w: 120, h: 30 }, { x: 250, y: 300, w: 140, h: 30 });
    // One detected line holds the label and the whole number; another line lies below.
    const lines = [
      { x: 240, y: 292, w: 420, h: 46 },
      { x: 240, y: 360, w: 400, h: 44 },
    ];
    const b = digitLineBox(value, lines);
    assert.ok(b.x >= 380 && b.x < 400, `left ${b.x}`);
    // The line's end and a third of a letter height after it.
    assert.ok(b.x + b.w >= 660 && b.x + b.w <= 670, `right ${b.x + b.w}`);
    assert.ok(b.y >= 285 && b.y + b.h <= 345, `rows ${b.y}..${b.y + b.h}`);
  });

  it("leaves out a line that starts just after the number (the chip front's expiry beside the address)", () => {
    // The expiry under the portrait: its detected line ends 8 px before the address's line on the same row.
    const value = anchoredAt({ x: 167, y: 561, w: 100, h: 20 }, { x: 40, y: 561, w: 120, h: 20 });
    const lines = [
      { x: 34, y: 547, w: 235, h: 40 },
      { x: 277, y: 557, w: 520, h: 55 },
    ];
    const b = digitLineBox(value, lines);
    assert.ok(b.x + b.w < 277 + 10, `right ${b.x + b.w}`);
    assert.ok(b.x + b.w >= 269, "the number's own line is whole");
    // Read as a whole line, it starts where the detected line does (Tesseract may have placed the value's words
    // inside the date), and still leaves the address's line out.
    const line = digitLineBox(value, lines, 'line');
    assert.equal(Math.round(line.x), 34);
    assert.ok(line.x + line.w < 277 + 10);
    // A name's box still takes a line just after it (a word the detector put apart).
    assert.equal(Math.round(digitLineBox(value, lines, 'near').x + digitLineBox(value, lines, 'near').w), 797);
  });

  it('is the value padded when no detected line is on its row', () => {
    const value = anchoredAt({ x: 400, y: 300, w: 120, h: 30 }, { x: 250, y: 300, w: 140, h: 30 });
    const b = digitLineBox(value, [{ x: 100, y: 500, w: 300, h: 40 }]);
    assert.ok(b.x < 400 && b.x + b.w > 520 && b.y < 300 && b.y + b.h > 330);
  });
});

describe('lines that may hold an unplaced id or expiry', () => {
  it('keeps long lines in the band that hold no placed value or label', () => {
    const anchored: Partial<Record<IdCardField, AnchoredValue>> = {
      name: anchoredAt({ x: 300, y: 320, w: 300, h: 36 }, { x: 300, y: 280, w: 200, h: 26 }),
    };
    const lines = [
      { x: 300, y: 150, w: 400, h: 40 }, // a free long line above the name: kept
      { x: 300, y: 210, w: 60, h: 40 }, // too short for a number
      { x: 300, y: 278, w: 210, h: 30 }, // the name's label
      { x: 300, y: 318, w: 310, h: 40 }, // the name
      { x: 300, y: 420, w: 400, h: 40 }, // below the name: outside the band
    ];
    assert.deepEqual(unplacedLines(lines, anchored, { above: 280 }), [lines[0]]);
    assert.deepEqual(unplacedLines(lines, anchored, { below: 360 }), [lines[4]]);
  });
});

describe('Tesseract and the network made one', () => {
  const layout = LAYOUTS.cccd_chip_front;
  // A made-up holder: born 1990, a man, province code 001; the id's 4th digit (0) and 5th-6th (90) fit.
  const dob = { text: '15/03/1990', conf: 95 };
  const sex = { text: 'Nam', conf: 95 };
  const id = '001090123456';

  it('agreeing readers list the field as agreed and keep the value', () => {
    const raw = { id: { text: id, conf: 60, unsure: true }, dob, sex };
    const r = combineDigits(layout, raw, { id: { text: id, conf: 99 } });
    assert.deepEqual(r.agreed, ['id']);
    assert.equal(r.raw.id?.text, id);
  });

  it('takes the network reading a validator confirms over a Tesseract one none does, unsure', () => {
    const raw = { id: { text: '0010901Z3A56', conf: 50 }, dob, sex };
    const r = combineDigits(layout, raw, { id: { text: id, conf: 97 } });
    assert.deepEqual(r.agreed, []);
    assert.equal(r.raw.id?.text, id);
    assert.equal(r.raw.id?.unsure, true);
  });

  it('keeps a confirmed Tesseract date when the network reads no date, or another real date (then unsure)', () => {
    const raw = { id: { text: id, conf: 90 }, dob: { text: '15/03/1990', conf: 40 }, sex };
    // The network lost a digit: no date.
    const r = combineDigits(layout, raw, { dob: { text: '15/03/990', conf: 90 } });
    assert.equal(r.raw.dob?.text, '15/03/1990');
    assert.notEqual(r.raw.dob?.unsure, true, 'no date from the network: nothing to disagree with');
    // Both confirmed (real dates), and they differ: Tesseract's stands, unsure.
    const r2 = combineDigits(layout, raw, { dob: { text: '16/03/1990', conf: 90 } });
    assert.equal(r2.raw.dob?.text, '15/03/1990');
    assert.equal(r2.raw.dob?.unsure, true);
  });

  it('lets the line recogniser fill in only where neither reader has a confirmed value, unsure', () => {
    const raw = { id: { text: id, conf: 90 }, dob: { text: '15/O3/199', conf: 40 }, sex };
    // Tesseract's date is no date and the network read nothing: the recogniser's real date, unsure.
    const r = combineDigits(layout, raw, {}, { dob: { text: '15/03/1990', conf: 80 } });
    assert.equal(r.raw.dob?.text, '15/03/1990');
    assert.equal(r.raw.dob?.unsure, true);
    assert.deepEqual(r.agreed, []);
    // Tesseract's confirmed date stands against it, and it does not side with either reader.
    const sure = { ...raw, dob };
    const r2 = combineDigits(layout, sure, { dob: { text: '16/03/1990', conf: 90 } }, { dob: { text: '16/03/1990', conf: 90 } });
    assert.equal(r2.raw.dob?.text, '15/03/1990');
    assert.deepEqual(r2.agreed, []);
    const r3 = combineDigits(layout, sure, {}, { dob: { text: '16/03/1990', conf: 90 } });
    assert.equal(r3.raw.dob?.text, '15/03/1990');
    assert.notEqual(r3.raw.dob?.unsure, true);
  });

  it('fills a value only the network read, unsure', () => {
    const r = combineDigits(layout, { dob, sex }, { id: { text: `No: ${id}`, conf: 95 } });
    assert.equal(r.raw.id?.unsure, true);
    assert.match(r.raw.id!.text, new RegExp(id));
  });
});

describe('the order unplaced lines are read in', () => {
  it('reads first the lines on which Tesseract saw a few digits, then the lowest', () => {
    const lines = [
      { x: 30, y: 540, w: 200, h: 30 },
      { x: 300, y: 580, w: 400, h: 30 },
      { x: 300, y: 500, w: 400, h: 30 },
    ];
    const lowest = (a: { y: number }, b: { y: number }) => b.y - a.y;
    const word = (text: string, left: number, top: number) => ({ text, conf: 40, left, top, width: 80, height: 24 });
    assert.deepEqual(candidateOrder(lines, lowest, []), [lines[1], lines[0], lines[2]]);
    // A garbled date under the portrait: its digits put its line first.
    assert.deepEqual(candidateOrder(lines, lowest, [word('cë4', 40, 543), word("'19)05/2037", 120, 543), word('Thôn', 310, 583)]), [lines[0], lines[1], lines[2]]);
    // Three digits are not enough.
    assert.deepEqual(candidateOrder(lines, lowest, [word('Tổ 12', 40, 543), word('3', 310, 503)]), [lines[1], lines[0], lines[2]]);
  });
});

describe('an id the anchoring did not place', () => {
  it("is found by the network on a free line above the name when the card's other fields confirm it, unsure", async () => {
    const layout = LAYOUTS.cccd_chip_front;
    // A flat card (1000 x 630) with a headline, the made-up id and a name line drawn; the name's label anchored.
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="630"><rect width="100%" height="100%" fill="#e6e2d6"/>
      <text x="320" y="80" font-family="DejaVu Sans" font-size="30" fill="#222">CARD TITLE LINE</text>
      <text x="380" y="190" font-family="DejaVu Sans" font-size="34" fill="#222">001090123456</text>
      <text x="320" y="260" font-family="DejaVu Sans" font-size="20" fill="#222">Name</text>
      <text x="320" y="300" font-family="DejaVu Sans" font-size="30" fill="#222">A NAME</text></svg>`;
    const gray = await sharp(Buffer.from(svg)).grayscale().raw().toBuffer();
    const lines = [
      { x: 310, y: 50, w: 300, h: 42 },
      { x: 370, y: 155, w: 260, h: 46 },
      { x: 310, y: 240, w: 70, h: 28 },
      { x: 310, y: 272, w: 150, h: 38 },
    ];
    const anchored = { name: anchoredAt({ x: 320, y: 276, w: 130, h: 30 }, { x: 320, y: 244, w: 55, h: 22 }) };
    const raw = { dob: { text: '15/03/1990', conf: 95 }, sex: { text: 'Nam', conf: 95 } };
    const found = await findUnplaced({ gray, width: 1000, height: 630, lines, anchored }, layout, raw);
    assert.match(found.id?.text ?? '', /001090123456/);
    assert.equal(found.id?.unsure, true);
    // Born in another year, the same digits do not pass the id's cross-checks: nothing is taken.
    const other = await findUnplaced({ gray, width: 1000, height: 630, lines, anchored }, layout, { ...raw, dob: { text: '15/03/1991', conf: 95 } });
    assert.equal(other.id, undefined);
    // The name not placed: the date of birth's label, below it, bounds where the id is looked for; the name line
    // above it reads as no id.
    const byDob = { dob: anchoredAt({ x: 320, y: 356, w: 150, h: 30 }, { x: 320, y: 324, w: 90, h: 22 }) };
    const found2 = await findUnplaced({ gray, width: 1000, height: 630, lines, anchored: byDob }, layout, raw);
    assert.match(found2.id?.text ?? '', /001090123456/);
  });
});

describe('a date of birth found by its shape', () => {
  it("fits the 12-digit id's century and birth year, and any date on a card without one", () => {
    assert.equal(birthYearFits('15/03/1990', '001090123456'), true);
    assert.equal(birthYearFits('15/03/1991', '001090123456'), false);
    // 4th digit 2 or 3: born in the 2000s.
    assert.equal(birthYearFits('15/03/2005', '001205123456'), true);
    assert.equal(birthYearFits('15/03/1905', '001205123456'), false);
    assert.equal(birthYearFits('15/03/1960', '123456789'), true);
    assert.equal(birthYearFits('15/03/1960', undefined), true);
  });

  it('is looked for on the free lines between the name and the next label found, unsure', async () => {
    const layout = LAYOUTS.cmnd_09_front;
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="630"><rect width="100%" height="100%" fill="#e6e2d6"/>
      <text x="320" y="260" font-family="DejaVu Sans" font-size="30" fill="#222">A NAME</text>
      <text x="600" y="370" font-family="DejaVu Sans" font-size="32" fill="#222">15-03-1990</text>
      <text x="320" y="440" font-family="DejaVu Sans" font-size="22" fill="#222">Home</text></svg>`;
    const gray = await sharp(Buffer.from(svg)).grayscale().raw().toBuffer();
    const lines = [
      { x: 310, y: 228, w: 150, h: 42 },
      { x: 590, y: 336, w: 200, h: 46 },
      { x: 310, y: 418, w: 80, h: 30 },
    ];
    const anchored = {
      name: anchoredAt({ x: 320, y: 232, w: 130, h: 34 }, { x: 320, y: 196, w: 55, h: 22 }),
      home: anchoredAt({ x: 400, y: 420, w: 200, h: 26 }, { x: 320, y: 420, w: 70, h: 26 }),
    };
    const found = await findUnplaced({ gray, width: 1000, height: 630, lines, anchored }, layout, {});
    assert.match(found.dob?.text ?? '', /15.03.1990/);
    assert.equal(found.dob?.unsure, true);
    // No label found below the name: nothing bounds the date's place, so it is not looked for.
    const open = await findUnplaced({ gray, width: 1000, height: 630, lines, anchored: { name: anchored.name } }, layout, {});
    assert.equal(open.dob, undefined);
  });
});
