/**
 * The place stage (pipeline/place-line.ts) with a fake recogniser: which places it reads again, the boxes it reads,
 * and when the recogniser's reading replaces Tesseract's. The places are public administrative units; the rest is
 * made up.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LAYOUTS, type Box } from '../../../src/reader/layouts.js';
import type { AnchoredValue } from '../../../src/reader/pipeline/anchors.js';
import { normaliseFields } from '../../../src/reader/pipeline/fields.js';
import { readPlacesAgain, unplacedPlaces } from '../../../src/reader/pipeline/place-line.js';

const layout = LAYOUTS.cccd_12_front;
const value = (...lineBoxes: Box[]) => ({ lineBoxes }) as unknown as AnchoredValue;
const anchored = {
  home: value({ x: 300, y: 400, w: 400, h: 30 }),
  address: value({ x: 300, y: 450, w: 400, h: 30 }, { x: 300, y: 490, w: 300, h: 30 }),
};
const lines = [
  { x: 290, y: 398, w: 420, h: 34 },
  { x: 290, y: 448, w: 420, h: 34 },
  { x: 290, y: 488, w: 320, h: 34 },
];
const gray = Buffer.alloc(1000 * 630);
/** A recogniser that answers the given texts, one per box, and records the boxes. */
function fake(texts: string[], seen: Box[] = []) {
  return {
    readLines: async (_g: Buffer | Uint8Array, _w: number, _h: number, boxes: readonly Box[]) => {
      seen.push(...boxes);
      return boxes.map((_, i) => ({ text: texts[i] ?? '', conf: 90, chars: [] }));
    },
  };
}

describe('place stage', () => {
  const placed = { home: { text: 'Hàng Bạc, Hoàn Kiếm, Hà Nội', conf: 80 } };
  const garbled = { home: { text: 'Hàng Bạc, Hoàn Kiếm, Hà Nội', conf: 80 }, address: { text: 'xq ll7 mnb', conf: 40 } };

  it('reads again only the places the gazetteer could not place', () => {
    assert.deepEqual(unplacedPlaces(layout, normaliseFields(layout, garbled), anchored), ['address']);
    assert.deepEqual(unplacedPlaces(layout, normaliseFields(layout, placed), { home: anchored.home }), []);
  });

  it("replaces a place with the recogniser's reading, its lines joined, when the gazetteer places it; unsure", async () => {
    const seen: Box[] = [];
    const out = await readPlacesAgain(fake(['Số 12, Hàng Bạc,', 'Hoàn Kiếm, Hà Nội'], seen), { gray, width: 1000, height: 630, lines, anchored }, layout, garbled, [
      'address',
    ]);
    assert.equal(seen.length, 2, 'each value line');
    assert.deepEqual(out.replaced, ['address']);
    assert.equal(out.raw.address?.text, 'Số 12, Hàng Bạc, Hoàn Kiếm, Hà Nội');
    assert.equal(out.raw.address?.unsure, true);
    const normal = normaliseFields(layout, out.raw).fields.address;
    assert.equal(normal?.valid, true);
  });

  it("keeps Tesseract's reading when the recogniser's is not placed either, or the recogniser cannot run", async () => {
    const same = await readPlacesAgain(fake(['zz qq', 'yy']), { gray, width: 1000, height: 630, lines, anchored }, layout, garbled, ['address']);
    assert.deepEqual(same, { raw: garbled, replaced: [] });
    const broken = { readLines: async () => Promise.reject(new Error('model missing')) };
    assert.deepEqual(await readPlacesAgain(broken, { gray, width: 1000, height: 630, lines, anchored }, layout, garbled, ['address']), { raw: garbled, replaced: [] });
  });
});
