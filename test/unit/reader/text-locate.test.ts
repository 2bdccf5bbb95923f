/**
 * Finding the card by its text (text-locate.ts) on drawn detector maps, and the rules that decide when the
 * pipeline looks for it and which reading it keeps (run.ts), and when text found that way runs off the frame.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seededRandom } from '../../../src/platform/random.js';
import { flatToImage, wordsOnFrame } from '../../../src/reader/pipeline/locate.js';
import { better, doubtful, sameCard, type ReadCard, type ReadResult } from '../../../src/reader/pipeline/run.js';
import { cardFromBlock, dominantAngle, textBlock, turnedLines } from '../../../src/reader/pipeline/text-locate.js';

const W = 640;
const H = 480;

/** Draws a filled turned rectangle (a detector's text kernel) of `length` x `thickness` at (cx, cy) into the map. */
function draw(map: Float32Array, cx: number, cy: number, length: number, thickness: number, degrees: number, p = 0.9) {
  const a = (degrees * Math.PI) / 180;
  const [c, s] = [Math.cos(a), Math.sin(a)];
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const u = (x - cx) * c + (y - cy) * s;
      const v = -(x - cx) * s + (y - cy) * c;
      if (Math.abs(u) <= length / 2 && Math.abs(v) <= thickness / 2) map[y * W + x] = p;
    }
}

/** A card's text as a detector sees it: `rows` lines down a block turned by `degrees`, centred at (cx, cy). */
function cardText(map: Float32Array, cx: number, cy: number, degrees: number, rows = 8) {
  const a = (degrees * Math.PI) / 180;
  const [c, s] = [Math.cos(a), Math.sin(a)];
  for (let r = 0; r < rows; r++) {
    // Rows 14 px apart, labels and values of different lengths, starting at the block's left.
    const length = r % 2 ? 120 : 170;
    const u = -90 + length / 2;
    const v = -((rows - 1) * 14) / 2 + r * 14;
    draw(map, cx + u * c - v * s, cy + u * s + v * c, length, 5, degrees);
  }
}

const gap = (a: number, b: number) => Math.min(Math.abs(a - b) % 180, 180 - (Math.abs(a - b) % 180));
const deg = (r: number) => (r * 180) / Math.PI;

describe('text lines as turned rectangles', () => {
  it('measures a line turned by 30 degrees: its angle, a length and thickness grown by the unclip margin', () => {
    const map = new Float32Array(W * H);
    draw(map, 300, 200, 160, 6, 30);
    const [line] = turnedLines(map, W, H);
    assert.ok(gap(deg(line.angle), 30) < 1.5, `angle ${deg(line.angle)}`);
    assert.ok(Math.abs(line.cx - 300) < 1.5 && Math.abs(line.cy - 200) < 1.5);
    assert.ok(line.length > 160 && line.length < 180, `length ${line.length}`);
    assert.ok(line.thickness > 6 && line.thickness < 18, `thickness ${line.thickness}`);
  });

  it('drops regions the detector is unsure of', () => {
    const map = new Float32Array(W * H);
    draw(map, 300, 200, 160, 6, 0, 0.4);
    assert.equal(turnedLines(map, W, H).length, 0);
  });
});

describe("the card's text block", () => {
  it('is the stack of lines at the dominant angle, not the specks and a stray line around it', () => {
    const map = new Float32Array(W * H);
    cardText(map, 320, 240, -35);
    const rng = seededRandom(7);
    for (let i = 0; i < 25; i++) draw(map, 20 + rng() * 600, 20 + rng() * 60, 4, 4, 0);
    // A lone line far from the card (writing on the table), at another angle.
    draw(map, 560, 440, 120, 5, 10);
    const lines = turnedLines(map, W, H);
    assert.ok(gap(deg(dominantAngle(lines)!), -35) <= 1);
    const block = textBlock(lines)!;
    assert.equal(block.lines.filter((l) => l.length > 3 * l.thickness).length, 8);
    assert.ok(gap(deg(block.angle), -35) <= 1);
  });

  it('is not found among scattered specks and short strokes', () => {
    const map = new Float32Array(W * H);
    const rng = seededRandom(8);
    for (let i = 0; i < 60; i++) draw(map, rng() * W, rng() * H, 8 + rng() * 10, 5, rng() * 180);
    assert.equal(textBlock(turnedLines(map, W, H)), undefined);
  });
});

describe("the card's corners from its text block", () => {
  const width = (c: { x: number; y: number }[]) => Math.hypot(c[1].x - c[0].x, c[1].y - c[0].y);
  const height = (c: { x: number; y: number }[]) => Math.hypot(c[3].x - c[0].x, c[3].y - c[0].y);

  it('spans the block with the margins of a card, an ID card wide, the block on the right when narrow', () => {
    const geometry = { top: 0.05, bottom: 0.05, right: 0.04, narrow: 0.8 };
    // A block 90 high: the card is 100 high, 158.6 wide; the block is 60 wide (a portrait on its left).
    const c = cardFromBlock({ u0: 200, u1: 260, v0: 105, v1: 195 }, 0, geometry);
    assert.ok(Math.abs(height(c) - 100) < 1e-6);
    assert.ok(Math.abs(width(c) / height(c) - 85.6 / 53.98) < 1e-6);
    assert.ok(Math.abs(c[0].y - 100) < 1e-6, 'top 5% above the block');
    assert.ok(Math.abs(c[1].x - (260 + 0.04 * width(c))) < 1e-6, "the block's right plus the margin");
    // A block nearly as wide as the card is centred in it.
    const wide = cardFromBlock({ u0: 100, u1: 240, v0: 105, v1: 195 }, 0, geometry);
    assert.ok(Math.abs((wide[0].x + wide[1].x) / 2 - 170) < 1e-6);
  });

  it('turns with the reading direction: a card read along 90 degrees has its top-left on the right of the image', () => {
    const c = cardFromBlock({ u0: 200, u1: 350, v0: -300, v1: -200 }, Math.PI / 2);
    // Image x = -v, y = u: the card's top (small v) is at large x.
    assert.ok(c[0].x > c[3].x, 'the top edge is right of the bottom edge');
    assert.ok(c[1].y > c[0].y, 'reading down the image');
  });
});

describe('when the card is looked for by its text', () => {
  const card = (sure: number, overall = 90): ReadCard => ({
    ok: true,
    kind: 'cccd_chip_front',
    fields: Object.fromEntries(['id', 'name', 'dob', 'sex', 'nationality'].map((f, i) => [f, { value: 'x', prob: i < sure ? 95 : 60 }])),
    overall,
    corners: [],
    timings: {},
  });

  it('after a refusal 2 or 3 or a reading with few sure fields; never after a sure reading', () => {
    assert.equal(doubtful({ ok: false, code: 3, message: '' }), true);
    assert.equal(doubtful({ ok: false, code: 2, message: '' }), true);
    assert.equal(doubtful({ ok: false, code: 8, message: '' }), false);
    assert.equal(doubtful(card(5)), false);
    assert.equal(doubtful(card(2)), true);
  });

  it('on a back, by the fields it can have sure: the issue date of a 12-digit back; none once its MRZ passes every check', () => {
    const back = (kind: ReadCard['kind'], issueProb: number, mrzValid?: boolean): ReadCard => ({
      ok: true,
      kind,
      fields: { issue_date: { value: '01/02/2021', prob: issueProb }, features: { value: 'Nốt ruồi', prob: 70 } },
      overall: 80,
      corners: [],
      timings: {},
      ...(mrzValid === undefined ? {} : { mrz: { valid: mrzValid, lines: [] } }),
    });
    assert.equal(doubtful(back('cccd_12_back', 95)), false);
    assert.equal(doubtful(back('cccd_12_back', 60)), true);
    assert.equal(doubtful(back('cccd_chip_back', 40, true)), false);
    assert.equal(doubtful(back('cccd_chip_back', 40, false)), true);
    // The 9-digit back prints five fields: two sure are too few.
    assert.equal(doubtful(back('cmnd_09_back', 95)), true);
  });

  it('keeps the reading with more sure fields, then the higher score; any reading beats a refusal', () => {
    const refusal: ReadResult = { ok: false, code: 3, message: '' };
    assert.equal(better(card(1), refusal), true);
    assert.equal(better(refusal, card(1)), false);
    assert.equal(better(card(4), card(2)), true);
    assert.equal(better(card(2), card(4)), false);
    assert.equal(better(card(3, 80), card(3, 70)), true);
    assert.equal(better(card(3, 70), card(3, 70)), false, 'a tie keeps the first');
  });

  it('of two refusals, answers the one that found the card cut off (2) over the one that found no card (3)', () => {
    const none: ReadResult = { ok: false, code: 3, message: 'no card' };
    const cut: ReadResult = { ok: false, code: 2, message: 'cut off' };
    assert.equal(better(cut, none), true);
    assert.equal(better(none, cut), false);
    assert.equal(better(cut, cut), false);
    assert.equal(better(none, none), false);
  });

  it('takes two placements within 1.5% of the width, in the same order, for the same card; turned, for another', () => {
    const a = [
      { x: 100, y: 100 },
      { x: 600, y: 100 },
      { x: 600, y: 415 },
      { x: 100, y: 415 },
    ];
    const turned = [a[2], a[3], a[0], a[1]];
    assert.equal(
      sameCard(
        a,
        a.map((p) => ({ x: p.x + 5, y: p.y - 4 })),
      ),
      true,
    );
    assert.equal(sameCard(a, turned), false, 'the other way up');
    assert.equal(
      sameCard(
        a,
        a.map((p) => ({ x: p.x + 12, y: p.y })),
      ),
      false,
    );
  });
});

describe('text running off the frame on a card found by its text', () => {
  const word = (left: number, top: number, text = 'HỌ', conf = 90) => ({ text, conf, left, top, width: 80, height: 30 });
  // A card 1000 x 630 placed 1:1, its left 50 px cut off by the frame of a 960 x 700 image.
  const corners = [
    { x: -50, y: 30 },
    { x: 950, y: 30 },
    { x: 950, y: 660 },
    { x: -50, y: 660 },
  ];

  it('maps flat-card points into the image, upright or turned', () => {
    assert.deepEqual(flatToImage(corners, false)(500, 315), { x: 450, y: 345 });
    assert.deepEqual(flatToImage(corners, true)(0, 0), { x: 950, y: 660 });
  });

  it('finds a sure word cut by the frame, and none for words inside it or unsure marks', () => {
    const toImage = flatToImage(corners, false);
    assert.equal(wordsOnFrame([word(300, 200), word(800, 400)], toImage, 960, 700), false);
    assert.equal(wordsOnFrame([word(300, 200), word(40, 400)], toImage, 960, 700), true, 'a word at the cut edge');
    assert.equal(wordsOnFrame([word(40, 400, 'HỌ', 20)], toImage, 960, 700), false);
    assert.equal(wordsOnFrame([word(40, 400, '|')], toImage, 960, 700), false);
  });
});
