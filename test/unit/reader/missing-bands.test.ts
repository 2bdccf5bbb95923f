/**
 * The second reading of fields the detected lines missed, limited to their rows (pipeline/missing-bands.ts):
 * where a field can be printed, the rows read, the prepared card kept only there, and the reading spliced into
 * the detected lines' words so that anchoring finds the field with its neighbours around it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldSpan, onlyRows, spanRows, spliceRows } from '../../../src/reader/pipeline/missing-bands.js';
import { anchorValues, fillMissing } from '../../../src/reader/pipeline/run.js';
import type { AnchoredValue, CardWord } from '../../../src/reader/pipeline/anchors.js';
import { CARD_HEIGHT, CARD_WIDTH, type IdCardField } from '../../../src/reader/layouts.js';

/** An anchored value whose label lies at `y` (`h` tall); only the label's box matters to the spans. */
function labelAt(y: number, h = 20): AnchoredValue {
  const box = { x: 300, y, w: 200, h };
  return { words: [], lines: [], lineBoxes: [], box, label: { label: 'x', segment: 0, start: 0, end: 1, distance: 0, box } };
}

const ORDER: IdCardField[] = ['id', 'name', 'dob', 'sex', 'nationality', 'home', 'address', 'doe'];

describe('where a missing field can be printed', () => {
  it('runs from the label of the field found before it to the bottom of the label of the one found after', () => {
    const anchored = { sex: labelAt(340), nationality: labelAt(342), address: labelAt(460, 24) };
    assert.deepEqual(fieldSpan(ORDER, anchored, 'home'), { y0: 342, y1: 484 });
  });

  it('reaches the card edge where no field is found before or after (the expiry beside the address, the id at the top)', () => {
    const anchored = { name: labelAt(220), address: labelAt(460) };
    assert.deepEqual(fieldSpan(ORDER, anchored, 'doe'), { y0: 460, y1: CARD_HEIGHT }, 'from the address label down');
    assert.deepEqual(fieldSpan(ORDER, anchored, 'id'), { y0: 0, y1: 240 });
  });

  it('is the whole card when the fields found are out of print order', () => {
    const anchored = { dob: labelAt(500), address: labelAt(300) };
    assert.deepEqual(fieldSpan(ORDER, anchored, 'home'), { y0: 0, y1: CARD_HEIGHT });
  });

  it('reads the spans as full-width rows, a little taller, overlapping ones merged, within the card', () => {
    const rows = spanRows([
      { y0: 400, y1: 480 },
      { y0: 5, y1: 60 },
      { y0: 470, y1: CARD_HEIGHT },
    ]);
    assert.deepEqual(rows, [
      { x: 0, y: 0, w: CARD_WIDTH, h: 68 },
      { x: 0, y: 392, w: CARD_WIDTH, h: CARD_HEIGHT - 392 },
    ]);
  });
});

describe('the rows read again', () => {
  it('keeps the prepared card only on the rows (the margin counted), white elsewhere', () => {
    const width = 20;
    const height = 30;
    const margin = 2;
    const raw = Buffer.alloc(width * height, 7);
    const kept = onlyRows({ raw, width, height, spans: [{ y0: margin, y1: height - margin, x0: margin }] }, [{ x: 0, y: 10, w: CARD_WIDTH, h: 5 }], margin);
    for (let y = 0; y < height; y++) {
      const expected = y >= 12 && y < 17 ? 7 : 255;
      assert.equal(kept.raw[y * width + 3], expected, `row ${y}`);
    }
    assert.equal(raw[0], 7, 'the prepared card itself is not changed');
  });

  const w = (text: string, left: number, top: number, conf = 95): CardWord => ({ text, conf, left, top, width: 14 * text.length, height: 22 });

  it("puts the rows' own reading in place of the detected lines' words there, and keeps the words elsewhere", () => {
    const detected = [w('Họ', 300, 100), w('garbled', 40, 560, 20)];
    const reread = [w('Có', 40, 555), w('giá', 80, 555)];
    const rows = [{ x: 0, y: 540, w: CARD_WIDTH, h: 90 }];
    assert.deepEqual(
      spliceRows(detected, reread, rows).map((x) => x.text),
      ['Họ', 'Có', 'giá'],
    );
  });

  it('finds a field in the spliced words with the fields around it still read from the detected lines', () => {
    // A chip front's last rows (invented values): the detected lines read the expiry's label as noise.
    const card = [
      ...['Nơi', 'thường', 'trú', '/', 'Place', 'of', 'residence:'].map((t, i) => w(t, 300 + i * 80, 470)),
      ...['Thôn', 'Đông,', 'Xã', 'Mỹ', 'Hòa'].map((t, i) => w(t, 300 + i * 90, 505)),
    ];
    const detected = [...card, w('(ć', 40, 520, 15), w('gi@', 80, 520, 20), w('8à', 40, 552, 10)];
    const first = anchorValues(detected, 'cccd_chip_front');
    assert.equal(first.doe, undefined, 'the detected lines lost the expiry');
    const rows = spanRows([fieldSpan(ORDER, first, 'doe')]);
    assert.ok(rows[0].y <= 470 && rows[0].y + rows[0].h === CARD_HEIGHT, `rows ${JSON.stringify(rows)}`);
    const reread = [...card, ...['Có', 'giá', 'trị', 'đến:'].map((t, i) => w(t, 30 + i * 50, 520)), w('12/05/2031', 30, 552)];
    const again = anchorValues(spliceRows(detected, reread, rows), 'cccd_chip_front');
    const filled = fillMissing(first, again, ['doe']);
    assert.equal(filled.doe?.words.map((x) => x.text).join(' '), '12/05/2031');
    assert.equal(filled.address, first.address, 'a field the detected lines read is kept');
  });
});
