/**
 * The learned detector's stages that need no model: boxes from a probability map, the line bands read and their
 * words brought back to the card, the turn of boxes with the card, and the confidence rules added with them
 * (a place read from words its answer dropped, an id whose province code names none of the card's places, a
 * date of birth too long ago). The detector and classifier themselves run in test/system/reader/detector.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { boxesFromMap } from '../../../src/reader/pipeline/detect.js';
import { lineBands, stackScale, turnBoxes, wordsOnCard } from '../../../src/reader/pipeline/lines.js';
import { anchorValues, droppedWords, fillMissing } from '../../../src/reader/pipeline/run.js';
import { normaliseFields } from '../../../src/reader/pipeline/fields.js';
import { segmentLines, findLabels, assignValues, type CardWord } from '../../../src/reader/pipeline/anchors.js';
import { DOCUMENTS } from '../../../src/reader/documents/id-card/model.js';
import { LAYOUTS, CARD_HEIGHT, CARD_WIDTH } from '../../../src/reader/layouts.js';
import { fieldProbability } from '../../../src/reader/pipeline/confidence.js';
import type { OcrWord } from '../../../src/reader/pipeline/ocr.js';

/** A probability map with filled rectangles of text probability `p` on 0. */
function drawnMap(w: number, h: number, rects: { x: number; y: number; w: number; h: number; p?: number }[]): Float32Array {
  const map = new Float32Array(w * h);
  for (const r of rects) for (let y = r.y; y < r.y + r.h; y++) for (let x = r.x; x < r.x + r.w; x++) map[y * w + x] = r.p ?? 0.9;
  return map;
}

describe('text lines from the probability map', () => {
  it('finds each drawn line as one box, grown by the unclip margin and scaled back to the card', () => {
    const map = drawnMap(200, 100, [
      { x: 20, y: 10, w: 120, h: 8 },
      { x: 20, y: 40, w: 60, h: 8 },
      { x: 100, y: 40, w: 50, h: 8 },
    ]);
    const boxes = boxesFromMap(map, 200, 100, 2);
    assert.equal(boxes.length, 3);
    const [first, left, right] = boxes;
    // Sorted top to bottom, left to right; in card pixels (x2) and larger than the kernel on every side.
    assert.ok(first.y < left.y && left.x < right.x);
    assert.ok(first.x < 40 && first.x > 20, `x ${first.x}`);
    assert.ok(first.x + first.w > 280 && first.x + first.w < 300, `right ${first.x + first.w}`);
    assert.ok(first.y < 20 && first.y + first.h > 36, `rows ${first.y}..${first.y + first.h}`);
    assert.ok(first.score > 0.85);
  });

  it('drops specks and regions the network is unsure of', () => {
    const map = drawnMap(100, 50, [
      { x: 10, y: 10, w: 2, h: 2 },
      { x: 30, y: 10, w: 40, h: 8, p: 0.35 },
      { x: 30, y: 30, w: 40, h: 8, p: 0.8 },
    ]);
    const boxes = boxesFromMap(map, 100, 50, 1);
    assert.equal(boxes.length, 1);
    assert.ok(boxes[0].y > 20);
  });

  it('turns boxes with the card: twice is the identity', () => {
    const boxes = [{ x: 10, y: 20, w: 300, h: 30, score: 0.9 }];
    const turned = turnBoxes(boxes);
    assert.deepEqual(turned[0], { x: CARD_WIDTH - 310, y: CARD_HEIGHT - 50, w: 300, h: 30, score: 0.9 });
    assert.deepEqual(turnBoxes(turned), boxes);
  });
});

describe('reading the detected lines', () => {
  it('pads boxes sideways only, leaves out specks and stays on the card', () => {
    const bands = lineBands([
      { x: 100, y: 300, w: 400, h: 30 },
      { x: 0, y: 0, w: 200, h: 20 },
      { x: 500, y: 100, w: 4, h: 4 },
      { x: 900, y: 600, w: 200, h: 40 },
    ]);
    assert.equal(bands.length, 3, 'the 4 px speck is no line');
    assert.deepEqual(bands[0], { x: 0, y: 0, w: 204, h: 20 });
    assert.deepEqual(bands[1], { x: 94, y: 300, w: 412, h: 30 });
    assert.ok(bands[2].x + bands[2].w <= CARD_WIDTH && bands[2].y + bands[2].h <= CARD_HEIGHT);
  });

  it('enlarges small print more than large, within bounds', () => {
    assert.equal(stackScale([{ x: 0, y: 0, w: 10, h: 10 }]), 2);
    assert.equal(stackScale([{ x: 0, y: 0, w: 10, h: 80 }]), 1);
    assert.ok(Math.abs(stackScale([{ x: 0, y: 0, w: 10, h: 25.6 }]) - 1.25) < 1e-9);
  });

  it('brings each word back to its line on the card, a label glued to its value split', () => {
    const bands = [
      { x: 300, y: 400, w: 500, h: 30 },
      { x: 40, y: 560, w: 250, h: 25 },
    ];
    const scale = 1.5;
    // The stack: band 0 at y 21..66, band 1 at 87..124.5 (scaled), both at the left margin (x 21).
    const spans = [
      { y0: 21, y1: 66, x0: 21 },
      { y0: 87, y1: 124.5, x0: 21 },
    ];
    const w = (text: string, left: number, top: number, width: number): OcrWord => ({ text, conf: 90, left, top, width, height: 30, line: '1.1.1' });
    const words = wordsOnCard([w('NGUYỄN', 36, 27, 90), w('|', 10, 30, 3), w('đến:01/02/2030', 21, 90, 210)], { spans }, bands, scale);
    assert.equal(words.length, 3, 'the mark is dropped, the glued word split in two');
    assert.equal(words[0].text, 'NGUYỄN');
    assert.equal(words[0].left, 310);
    assert.equal(words[0].top, 404);
    assert.equal(words[0].width, 60);
    assert.deepEqual(
      words.slice(1).map((x) => x.text),
      ['đến:', '01/02/2030'],
    );
    assert.ok(words[2].left > 40 && words[2].top === 562);
  });

  it('anchors values on detected lines: a label and its value split into two boxes on one row still pair', () => {
    // Two detected boxes on one row (a wide gap after the bilingual label) and the address's second line below.
    const bands = [
      { x: 290, y: 380, w: 260, h: 28 },
      { x: 590, y: 378, w: 180, h: 32 },
      { x: 290, y: 530, w: 380, h: 30 },
      { x: 292, y: 566, w: 420, h: 32 },
    ];
    const spans = bands.map((b, i) => ({ y0: 20 + 60 * i, y1: 20 + 60 * i + b.h, x0: 20 }));
    const at = (i: number, text: string, dx: number, width: number): OcrWord => ({
      text,
      conf: 93,
      left: 20 + dx,
      top: spans[i].y0 + 3,
      width,
      height: 22,
      line: `${i}`,
    });
    const words = wordsOnCard(
      [
        at(0, 'Ngày', 0, 45),
        at(0, 'sinh', 50, 40),
        at(0, '/', 95, 6),
        at(0, 'Date', 105, 40),
        at(0, 'of', 150, 18),
        at(0, 'birth:', 172, 55),
        at(1, '17/03/1992', 0, 170),
        at(2, 'Nơi', 0, 35),
        at(2, 'thường', 40, 60),
        at(2, 'trú', 105, 30),
        at(2, '/', 140, 6),
        at(2, 'Place', 150, 50),
        at(2, 'of', 205, 18),
        at(2, 'residence:', 228, 95),
        at(3, 'Phường', 0, 70),
        at(3, '2,', 75, 20),
        at(3, 'Sóc', 100, 35),
        at(3, 'Trăng', 140, 55),
      ],
      { spans },
      bands,
      1,
    );
    const segments = segmentLines(words);
    const model = DOCUMENTS.cccd_chip_front;
    const values = assignValues(segments, findLabels(segments, model), model);
    assert.equal(values.dob?.words.map((x) => x.text).join(' '), '17/03/1992');
    assert.equal(values.address?.words.map((x) => x.text).join(' '), 'Phường 2, Sóc Trăng');
  });
});

describe('fields the detected lines left without a value', () => {
  /** Words of one printed row in flat-card pixels, 20 px letters, 12 px apart. */
  const row = (top: number, texts: string[], left = 400, conf = 93): CardWord[] => {
    let x = left;
    return texts.map((text) => {
      const w = { text, conf, left: x, top, width: text.length * 11, height: 20 };
      x += w.width + 12;
      return w;
    });
  };
  // A back's features and issue date. On the detected line a stroke of artwork left of the label was read glued
  // onto its first word ("[Ngày,"), and the word took the stroke's height: a mark, set apart from its line.
  const features = [...row(54, ['Đặc', 'điểm', 'nhận', 'dạng:']), ...row(88, ['Sẹo', 'chấm', 'C:', '3cm', 'dưới', 'trước', 'dái', 'tai', 'phải'])];
  const glued = { text: '[Ngày,', conf: 41, left: 392, top: 133, width: 62, height: 34 };
  const detected = [...features, glued, ...row(141, ['tháng,', 'năm:', '14/02/2022'], 466)];
  const whole = [...row(56, ['Đặc', 'điểm', 'nhận', 'dạng:']), ...row(142, ['Ngày,', 'tháng,', 'năm:', '14/02/2022'], 404)];

  it('takes a field the detected lines lost from the whole card reading, keeping the fields they read', () => {
    const first = anchorValues(detected, 'cccd_12_back');
    assert.equal(first.issue_date, undefined, 'the glued mark hides the label on the detected line');
    assert.ok(
      first.features?.words
        .map((w) => w.text)
        .join(' ')
        .startsWith('Sẹo chấm C: 3cm dưới trước dái tai phải'),
    );
    const other = anchorValues(whole, 'cccd_12_back');
    assert.equal(other.features, undefined, 'the whole card reading lost the features line');
    const filled = fillMissing(first, other, ['features', 'issue_date']);
    assert.equal(filled.issue_date?.words.map((w) => w.text).join(' '), '14/02/2022');
    assert.equal(filled.features, first.features);
    // Only the fields named missing are taken.
    assert.equal(fillMissing(first, other, ['features']).issue_date, undefined);
  });
});

describe('confidence of values read on detected lines', () => {
  it('names the words of a reading its answer does not hold', () => {
    const words = ['t<h', '9', 'Đồng', 'Tâm,', 'Vĩnh', 'Phúc'].map((text) => ({ text }));
    assert.deepEqual(droppedWords(words, 'Đồng Tâm, Vĩnh Phúc'), ['t<h', '9']);
    assert.deepEqual(droppedWords([{ text: 'Thuỷ,' }, { text: 'THANH' }], 'Thủy, Thanh'), [], 'accents, case and commas aside');
    assert.deepEqual(droppedWords([{ text: '-' }, { text: 'a' }], 'Phú Thọ'), [], 'a mark or a lone letter is no word');
  });

  it('keeps a 12-digit id sure only when its province code names a province of the card, when places were read', () => {
    const layout = LAYOUTS.cccd_chip_front;
    // 001 is Hà Nội; born 1990, a man (century digit 0).
    const base = { id: { text: '001090012345', conf: 95 }, dob: { text: '01/01/1990', conf: 95 }, sex: { text: 'Nam', conf: 95 } };
    const noPlaces = normaliseFields(layout, base).fields.id!;
    assert.equal(noPlaces.valid, true);
    assert.ok(fieldProbability(noPlaces) >= 80, 'no place read: the code cannot be compared');
    const same = normaliseFields(layout, { ...base, address: { text: 'Phường Phúc Xá, Quận Ba Đình, Hà Nội', conf: 95 } }).fields.id!;
    assert.ok(fieldProbability(same) >= 80, 'the address is in the code\u2019s province');
    const other = normaliseFields(layout, {
      ...base,
      address: { text: 'Phường 2, Thành phố Sóc Trăng, Sóc Trăng', conf: 95 },
      home: { text: 'Phường 2, Thành phố Sóc Trăng, Sóc Trăng', conf: 95 },
    }).fields.id!;
    assert.equal(other.valid, true, 'still a real code');
    assert.ok(fieldProbability(other) < 80, 'but a code naming neither place is unsure');
  });

  it('keeps a value two readings disagreed on under 80 (the raw reading marked unsure)', () => {
    const layout = LAYOUTS.cccd_chip_front;
    const f = normaliseFields(layout, { dob: { text: '01/01/1990', conf: 96, unsure: true }, id: { text: '001090012345', conf: 96, unsure: true } }).fields;
    assert.ok(fieldProbability(f.dob!) < 80);
    assert.ok(fieldProbability(f.id!) < 80);
  });

  it('calls a birth year over 110 years ago invalid', () => {
    const layout = LAYOUTS.cccd_chip_front;
    const old = normaliseFields(layout, { dob: { text: `24/09/${new Date().getFullYear() - 120}`, conf: 95 } }).fields.dob!;
    assert.equal(old.invalid, true);
    assert.ok(fieldProbability(old) < 80);
    const fine = normaliseFields(layout, { dob: { text: '24/09/1950', conf: 95 } }).fields.dob!;
    assert.equal(fine.valid, true);
  });
});
