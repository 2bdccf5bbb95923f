/**
 * The place stage (pipeline/place-line.ts) with a fake recogniser: which places it reads again, the boxes it reads,
 * and when the recogniser's reading replaces Tesseract's. The places are public administrative units; the rest is
 * made up.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LAYOUTS, type Box } from '../../../src/reader/layouts.js';
import type { AnchoredValue } from '../../../src/reader/pipeline/anchors.js';
import { normaliseFields, splitLeader } from '../../../src/reader/pipeline/fields.js';
import { readPlaceStarts, readPlacesAgain, startWords, unplacedPlaces } from '../../../src/reader/pipeline/place-line.js';

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

describe("a place's start on its label's row", () => {
  const word = (text: string, left: number, conf = 90, top = 452) => ({ text, conf, left, top, width: 10 * text.length, height: 26 });
  const label = { label: 'Nơi thường trú', box: { x: 150, y: 450, w: 140, h: 30 } };
  const labelWords = [word('Nơi', 150), word('thường', 190), word('trú', 260)];
  const rowLine = { x: 140, y: 448, w: 600, h: 34 };
  const nextLine = { x: 140, y: 490, w: 400, h: 34 };
  /** An address whose first line Tesseract read from `first` on, with `gap` words before it that it dropped. */
  function card(gap: ReturnType<typeof word>[]) {
    const first = [...gap, word('Hàng', 400), word('Bạc,', 450)];
    const second = [word('Hoàn', 150, 90, 494), word('Kiếm,', 200, 90, 494), word('Hà', 260, 90, 494), word('Nội', 290, 90, 494)];
    const address = { words: [...first, ...second], lines: [first, second], lineBoxes: [], box: rowLine, label } as unknown as AnchoredValue;
    return { lines: { gray, width: 1000, height: 630, lines: [rowLine, nextLine], anchored: { address } }, words: [...labelWords, ...first, ...second] };
  }
  const raw = { address: { text: 'Hàng Bạc, Hoàn Kiếm, Hà Nội', conf: 85 } };

  it("takes the recogniser's words before Tesseract's first kept word when Tesseract saw as many words there; unsure", async () => {
    const seen: Box[] = [];
    const c = card([word('T6', 310, 10), word('5', 350, 15)]);
    const out = await readPlaceStarts(fake(['Tổ 5 Hàng Bạc,'], seen), c.lines, c.words, layout, raw, ['address']);
    assert.deepEqual(out.extended, ['address']);
    assert.equal(out.raw.address?.text, 'Tổ 5 Hàng Bạc, Hoàn Kiếm, Hà Nội');
    assert.equal(out.raw.address?.unsure, true);
    assert.equal(seen.length, 1);
    assert.equal(seen[0].x, 290, 'from the label’s end');
    assert.equal(seen[0].x + seen[0].w, 740, 'to the line’s end');
  });

  it('starts after a word with a colon (the English half of the label read too badly to match)', async () => {
    const seen: Box[] = [];
    const c = card([word('ofres:', 295, 30), word('T6', 360, 10)]);
    const out = await readPlaceStarts(fake(['Tổ Hàng Bạc'], seen), c.lines, c.words, layout, raw, ['address']);
    assert.equal(seen[0].x, 295 + 60);
    assert.equal(out.raw.address?.text, 'Tổ Hàng Bạc, Hoàn Kiếm, Hà Nội');
  });

  it('keeps Tesseract’s reading when the rest of the row disagrees, nothing was seen in the gap, or a word is no place word', async () => {
    const twoSeen = card([word('T6', 310, 10), word('5', 350, 15)]);
    for (const text of ['Tổ 5 Hàng Đào,', 'Qxz 5 Hàng Bạc']) {
      assert.deepEqual((await readPlaceStarts(fake([text]), twoSeen.lines, twoSeen.words, layout, raw, ['address'])).extended, [], text);
    }
    const blank = card([]);
    assert.deepEqual((await readPlaceStarts(fake(['Tổ 5 Hàng Bạc,']), blank.lines, blank.words, layout, raw, ['address'])).extended, []);
  });

  it('does not read a row whose value starts right after its label', async () => {
    const seen: Box[] = [];
    const c = card([]);
    const close = { ...c.lines.anchored.address, lines: [[word('Hàng', 300), word('Bạc,', 350)], c.lines.anchored.address.lines[1]] } as unknown as AnchoredValue;
    await readPlaceStarts(fake(['x'], seen), { ...c.lines, anchored: { address: close } }, c.words, layout, raw, ['address']);
    assert.equal(seen.length, 0);
  });

  it('with no kept word on the row, takes a reading only when the gazetteer places one unit more with it', async () => {
    const second = [word('Hoàn', 150, 90, 494), word('Kiếm,', 200, 90, 494), word('Hà', 260, 90, 494), word('Nội', 290, 90, 494)];
    const home = { words: second, lines: [second], lineBoxes: [], box: nextLine, label: { label: 'Quê quán', box: label.box } } as unknown as AnchoredValue;
    const cl = { gray, width: 1000, height: 630, lines: [rowLine, nextLine], anchored: { home } };
    const homeRaw = { home: { text: 'Hoàn Kiếm, Hà Nội', conf: 85 } };
    const ward = await readPlaceStarts(fake(['Hàng Bạc']), cl, [...labelWords, ...second], layout, homeRaw, ['home']);
    assert.deepEqual(ward.extended, ['home']);
    assert.equal(ward.raw.home?.text, 'Hàng Bạc Hoàn Kiếm, Hà Nội');
    const noUnit = await readPlaceStarts(fake(['Thôn Bắc']), cl, [...labelWords, ...second], layout, homeRaw, ['home']);
    assert.deepEqual(noUnit.extended, []);
  });

  it('drops what is left of the label from the recogniser’s reading', () => {
    assert.deepEqual(startWords('Place of residence: Tổ 5 Hàng Bạc', 'Nơi thường trú'), ['Tổ', '5', 'Hàng', 'Bạc']);
    assert.deepEqual(startWords('trú Place of Tổ 5', 'Nơi thường trú'), ['Tổ', '5']);
  });
});

describe('a dotted leader between words', () => {
  it('splits words the 9-digit card’s dotted line glued together, and nothing else', () => {
    assert.deepEqual(
      splitLeader({ text: '.Xóm.Bến.Đá.', conf: 50 }).map((w) => w.text),
      ['Xóm', 'Bến', 'Đá'],
    );
    for (const text of ['Tp.HCM', 'P.5', 'Hàng']) assert.deepEqual(splitLeader({ text, conf: 50 }), [{ text, conf: 50 }]);
  });
});
