/**
 * A card found by its text where its outline is not: generated cards turned on patterned backgrounds
 * (fixtures/cards/scenes.ts) are found, and their ids read; a card the outline finds costs no text search.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { makeSample } from '../../../fixtures/cards/synth.js';
import { placedOn } from '../../../fixtures/cards/scenes.js';
import { seededRandom } from '../../../src/platform/random.js';
import { chooseOcrEngine } from '../../../src/reader/pipeline/ocr.js';
import { readCard } from '../../../src/reader/pipeline/run.js';

describe('finding the card by its text', () => {
  const ocr = chooseOcrEngine('auto');
  after(() => ocr.close());
  const read = (image: Buffer) => readCard({ image, face: false, maxPixels: 4e7, minCardArea: 0.12 }, ocr);

  it('reads a chip front turned by 35 degrees, a sixth of the photo, on stripes', async () => {
    const s = await makeSample(390_102, 'cccd_chip_front');
    const photo = await placedOn(seededRandom(390_102), s.flat, 600, 35, 'stripes', 1 / 6);
    const r = await read(photo);
    assert.ok(r.ok, !r.ok ? r.message : '');
    assert.ok('textLocate' in r.timings, 'the outline did not find it: the text did');
    assert.equal(r.kind, 'cccd_chip_front');
    assert.equal(r.fields.id?.value, s.truth.fields.id);
  });

  it('reads a 12-digit citizen card turned by 90 degrees on stripes', async () => {
    const s = await makeSample(390_104, 'cccd_12_front');
    const photo = await placedOn(seededRandom(390_104), s.flat, 800, 92, 'stripes', 1 / 4);
    const r = await read(photo);
    assert.ok(r.ok, !r.ok ? r.message : '');
    assert.ok('textLocate' in r.timings);
    assert.equal(r.kind, 'cccd_12_front');
    assert.equal(r.fields.id?.value, s.truth.fields.id);
  });

  it('does not look for the text of a card its outline finds', async () => {
    const s = await makeSample(390_103, 'cccd_chip_front', { rotation: 3, glare: false, blurSigma: 0, width: 1300 });
    const r = await read(s.photo.jpeg);
    assert.ok(r.ok, !r.ok ? r.message : '');
    assert.equal(r.fields.id?.value, s.truth.fields.id);
    assert.equal('textLocate' in r.timings, false);
  });
});
