/**
 * "Find the card, or do without": a card whose outline is cut off by the frame or not found is read from the
 * image itself; code 2 only when printed words run off the frame, 3 only when no card text is found.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import sharp from 'sharp';
import { makeSample } from '../../../fixtures/cards/synth.js';
import { FILLS_FRAME_ON_WOOD } from '../../support/reader/helpers.js';
import { cardShapedImage, frameRectangle, locateCard, textCutOff } from '../../../src/reader/pipeline/locate.js';
import { chooseOcrEngine } from '../../../src/reader/pipeline/ocr.js';
import { readCard } from '../../../src/reader/pipeline/run.js';
import { ReaderFailure } from '../../../src/reader/pipeline/failure.js';

const word = (left: number, top: number, text = 'HỌ', conf = 90) => ({ text, conf, left, top, width: 60, height: 24 });

describe('reading without an outline: geometry', () => {
  it('takes the rectangle an outline covers inside the frame, long side horizontal', () => {
    const landscape = frameRectangle(
      [
        { x: -30, y: 10 },
        { x: 700, y: 20 },
        { x: 690, y: 480 },
        { x: -20, y: 470 },
      ],
      800,
      600,
    );
    assert.deepEqual(landscape[0], { x: 0, y: 10 });
    assert.deepEqual(landscape[2], { x: 700, y: 480 });
    // A portrait rectangle starts at its bottom-left corner: the card turned by 90 degrees, read upright.
    const portrait = frameRectangle(
      [
        { x: 0, y: 0 },
        { x: 399, y: 699 },
      ],
      400,
      700,
    );
    assert.deepEqual(portrait, [
      { x: 0, y: 699 },
      { x: 0, y: 0 },
      { x: 399, y: 0 },
      { x: 399, y: 699 },
    ]);
  });

  it('knows an image of a card shape (a card cropped to itself) from a photo', () => {
    assert.equal(cardShapedImage(1000, 630), true);
    assert.equal(cardShapedImage(630, 1000), true);
    assert.equal(cardShapedImage(1280, 960), false);
  });

  it('calls text cut off only for a sure word touching a side of the flat card', () => {
    assert.equal(textCutOff([word(300, 200), word(500, 300)], 1000, 630), false);
    assert.equal(textCutOff([word(300, 200), word(945, 300)], 1000, 630), true, 'a word running off the right side');
    assert.equal(textCutOff([word(400, 2)], 1000, 630), true, 'off the top');
    assert.equal(textCutOff([word(945, 300, 'HỌ', 30)], 1000, 630), false, 'an unsure smudge is no word');
    assert.equal(textCutOff([word(945, 300, '|')], 1000, 630), false, 'nor a single mark');
  });

  it('reads a plain image as the card when asked, and refuses it (3) otherwise', async () => {
    const width = 900;
    const height = 700;
    const gray = Buffer.alloc(width * height, 200);
    const located = await locateCard(gray, width, height, 0.12, { readWithoutOutline: true });
    assert.equal(located.whole, true);
    assert.equal(located.withoutOutline, true);
    assert.deepEqual(located.corners[2], { x: width - 1, y: height - 1 });
    await assert.rejects(locateCard(gray, width, height, 0.12), (err: unknown) => err instanceof ReaderFailure && err.code === 3);
  });
});

describe('reading without an outline: generated cards', () => {
  const ocr = chooseOcrEngine('auto');
  after(() => ocr.close());
  const read = (image: Buffer) => readCard({ image, face: false, maxPixels: 4e7, minCardArea: 0.12 }, ocr);

  it('reads a card that fills the frame, its edges leaving it, on wood', async () => {
    const s = await makeSample(730_001, 'cccd_chip_front', FILLS_FRAME_ON_WOOD);
    const r = await read(s.photo.jpeg);
    assert.ok(r.ok, !r.ok ? r.message : '');
    assert.equal(r.kind, 'cccd_chip_front');
    assert.equal(r.fields.id?.value, s.truth.fields.id);
  });

  it('reads a card turned by 90 degrees, cropped close on a textured background', async () => {
    const s = await makeSample(730_002, 'cccd_12_front', { rotation: 90, tightCrop: 0.03, texture: 'wood', glare: false, blurSigma: 0, width: 1400, cardFraction: 0.7 });
    assert.ok(s.photo.height > s.photo.width, 'the photo is portrait');
    const r = await read(s.photo.jpeg);
    assert.ok(r.ok, !r.ok ? r.message : '');
    assert.equal(r.kind, 'cccd_12_front');
    assert.equal(r.fields.id?.value, s.truth.fields.id);
  });

  it('reads a card the frame cuts through its margin, not its text (its outline runs off the frame)', async () => {
    const s = await makeSample(730_004, 'cccd_chip_front', { rotation: 0, tightCrop: 0.06, texture: 'wood', glare: false, blurSigma: 0, width: 1300, cardFraction: 0.7 });
    const cardTop = Math.min(...s.photo.corners.map((p) => p.y));
    const cardHeight = Math.max(...s.photo.corners.map((p) => p.y)) - cardTop;
    // The photo starts 1.5% of the card's height below its top edge: above the first printed line.
    const top = Math.round(cardTop + 0.015 * cardHeight);
    const cut = await sharp(s.photo.jpeg)
      .extract({ left: 0, top, width: s.photo.width, height: s.photo.height - top })
      .jpeg({ quality: 90 })
      .toBuffer();
    const r = await read(cut);
    assert.ok(r.ok, !r.ok ? r.message : '');
    assert.equal(r.fields.id?.value, s.truth.fields.id);
    assert.equal(r.fields.dob?.value, s.truth.fields.dob);
  });

  it('answers 2 when the frame cuts through the printed text', async () => {
    const s = await makeSample(730_003, 'cccd_chip_front', { rotation: 0, tightCrop: 0.02, texture: 'wood', glare: false, blurSigma: 0, width: 1300, cardFraction: 0.7 });
    // The right 35% of the card is cut away: the labels' values run off the frame.
    const keep = Math.round(s.photo.width * 0.62);
    const cut = await sharp(s.photo.jpeg).extract({ left: 0, top: 0, width: keep, height: s.photo.height }).jpeg({ quality: 90 }).toBuffer();
    const r = await read(cut);
    assert.equal(r.ok, false);
    assert.equal(!r.ok && r.code, 2, !r.ok ? r.message : '');
  });
});
