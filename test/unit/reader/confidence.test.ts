/**
 * The `_prob` rule (confidence.ts): a value reaches 80 only when a validator checks what was printed or two
 * independent readers agree. A name's check is of form only, so Tesseract's readings agreeing leave it under 80;
 * the QR code or another recogniser lifts it. A place the gazetteer had to correct is answered in the list's
 * spelling, a guess at what was printed: under 80. Generated values only.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldProbability, UNCONFIRMED_CAP } from '../../../src/reader/pipeline/confidence.js';
import { normaliseFields, voteName, type NormalisedCard, type RawField } from '../../../src/reader/pipeline/fields.js';
import { applyChipQr, parseChipQr } from '../../../src/reader/pipeline/chip-qr.js';
import { combineName } from '../../../src/reader/pipeline/name-line.js';
import { confirmAgreed } from '../../../src/reader/pipeline/digits.js';
import { LAYOUTS } from '../../../src/reader/layouts.js';
import { chipQrText } from '../../../fixtures/cards/qr.js';

const layout = LAYOUTS.cccd_chip_front;
const raw = (text: string, conf: number): RawField => ({ text, conf, words: text.split(' ').map((t) => ({ text: t, conf })) });
const prob = (fields: Partial<Record<string, RawField>>, f: 'name' | 'home' | 'address') => fieldProbability(normaliseFields(layout, fields).fields[f]!);

describe('names: a check of form only', () => {
  it('keeps a name under 80 however sure Tesseract is and however its two readings agree', () => {
    for (const name of ['NGUYỄN VĂN AN', 'TRẦN THỊ BÍCH NGỌC', 'LÊ HOÀNG']) {
      const first = raw(name, 97);
      const voted = voteName(first, raw(name, 95));
      const v = normaliseFields(layout, { name: voted }).fields.name!;
      assert.equal(v.valid, true, `${name}: a plausible name`);
      assert.ok(fieldProbability(v) <= 100 * UNCONFIRMED_CAP, `${name} at ${fieldProbability(v)}`);
    }
    // A name that lost its last words still passes the form check: exactly why the check cannot make it sure.
    const lost = normaliseFields(layout, { name: raw('ĐỖ MINH', 98) }).fields.name!;
    assert.equal(lost.valid, true);
    assert.ok(fieldProbability(lost) < 80);
  });

  it('keeps an agreed and a disputed name under 80, and one failing the form check at its OCR confidence', () => {
    const agreed = prob({ name: voteName(raw('PHẠM THỊ HẰNG', 96), raw('PHẠM THỊ HẰNG', 94)) }, 'name');
    const disputed = prob({ name: voteName(raw('PHẠM THỊ HÀNG', 60), raw('PHẠM THỊ HẰNG', 94)) }, 'name');
    const noFamilyName = prob({ name: raw('MINH AN', 60) }, 'name');
    assert.ok(agreed < 80 && disputed < 80, `${agreed} / ${disputed}`);
    assert.equal(noFamilyName, 60);
  });

  it('lets the QR code make the name sure, and still reports a sure printed name it contradicts', () => {
    const qr = parseChipQr(chipQrText({ id: '001203004567', name: 'Trần Thị Bích Ngọc', dob: '05/09/1994', sex: 'Nữ', address: 'Hà Nội' }, '14/03/2022'))!;
    const read = normaliseFields(layout, { name: raw('TRẦN THỊ BÍCH', 96) });
    assert.ok(fieldProbability(read.fields.name!) < 80);
    const disagree = applyChipQr(layout, read, qr, fieldProbability);
    assert.deepEqual(disagree, ['name'], 'a name read surely that lacks a word of the code is a disagreement');
    assert.equal(read.fields.name!.value, 'TRẦN THỊ BÍCH NGỌC');
    assert.ok(fieldProbability(read.fields.name!) >= 95);
    // A name read unsurely (its readings disputed) is a misreading, not a disagreement.
    const unsure: NormalisedCard = { fields: { name: { value: 'TRẦN THỊ BÍCH', conf: 96, valid: true, unsure: true, formOnly: true } } };
    assert.deepEqual(applyChipQr(layout, unsure, qr, fieldProbability), []);
  });

  it('lets another recogniser that reads the same name make it sure, not one that reads it otherwise', () => {
    const tesseract = raw('NGÔ HỮU HOÀNG', 93);
    const agreed = combineName(tesseract, { text: 'NGÔ HỮU HOÀNG', conf: 88, chars: [] });
    assert.equal(agreed.agreed, true);
    const v = normaliseFields(layout, { name: agreed.name }).fields.name!;
    // run.ts lifts the form-only cap when the two readers agree.
    assert.ok(fieldProbability({ ...v, formOnly: !agreed.agreed }) >= 80);
    const other = combineName(tesseract, { text: 'NGÔ HỮU HOÀN', conf: 88, chars: [] });
    assert.equal(other.agreed, false);
    assert.ok(fieldProbability({ ...normaliseFields(layout, { name: other.name }).fields.name!, formOnly: !other.agreed }) < 80);
  });
});

describe('places: read as the list spells them', () => {
  it('is sure of a place read exactly as the official list spells every unit', () => {
    assert.ok(prob({ address: raw('Trà Thanh, Trà Bồng, Quảng Ngãi', 95) }, 'address') >= 80);
  });

  it('answers a place the list corrected in the list spelling, under 80: marks lost, a letter misread', () => {
    const fields = normaliseFields(layout, { address: raw('Tra Thanh, Tra Bong, Quang Ngai', 95), home: raw('Trà Thanb, Trà Bồng, Quảng Ngãi', 95) }).fields;
    assert.equal(fields.address!.value, 'Trà Thanh, Trà Bồng, Quảng Ngãi');
    assert.equal(fields.address!.valid, true, 'still valid: the units exist, for choosing between readings');
    assert.ok(fieldProbability(fields.address!) < 80, `marks restored by the list: ${fieldProbability(fields.address!)}`);
    assert.equal(fields.home!.value, 'Trà Thanh, Trà Bồng, Quảng Ngãi');
    assert.ok(fieldProbability(fields.home!) < 80, `a letter corrected by the list: ${fieldProbability(fields.home!)}`);
  });

  it("answers a ward whose first word OCR lost with the list's word, under 80; read whole, sure", () => {
    const lost = normaliseFields(layout, { address: raw('Phước Tây, Cam Lâm, Khánh Hòa', 95) }).fields.address!;
    assert.equal(lost.value, 'Cam Phước Tây, Cam Lâm, Khánh Hòa');
    assert.ok(fieldProbability(lost) < 80, `${fieldProbability(lost)}`);
    assert.ok(prob({ address: raw('Cam Phước Tây, Cam Lâm, Khánh Hòa', 95) }, 'address') >= 80);
  });
});

describe('values a validator checks against what was printed', () => {
  it('keeps a 12-digit id whose digits agree with the printed date of birth and sex at 80 or more', () => {
    const fields = normaliseFields(layout, { id: raw('001090012345', 92), dob: raw('01/01/1990', 92), sex: raw('Nam', 92) }).fields;
    assert.ok(fieldProbability(fields.id!) >= 80);
    assert.ok(fieldProbability(fields.dob!) >= 80);
    const wrongSex = normaliseFields(layout, { id: raw('001190012345', 92), dob: raw('01/01/1990', 92), sex: raw('Nam', 92) }).fields;
    assert.ok(fieldProbability(wrongSex.id!) < 80, 'a sex digit the printed sex contradicts');
  });
});

describe("a back's issue date: nothing on the back checks it", () => {
  const back = LAYOUTS.cccd_chip_back;
  const today = new Date(Date.UTC(2026, 0, 15));
  it('stays under 80 read by Tesseract alone, and is sure once the recognition network reads the same date', () => {
    const fields = normaliseFields(back, { issue_date: raw('12/05/2021', 96) }).fields;
    assert.ok(fieldProbability(fields.issue_date!) < 80);
    confirmAgreed(fields, [], today);
    assert.ok(fieldProbability(fields.issue_date!) < 80, 'no agreement, no confirmation');
    confirmAgreed(fields, ['issue_date'], today);
    assert.ok(fieldProbability(fields.issue_date!) >= 80, `${fieldProbability(fields.issue_date!)}`);
  });

  it('keeps an issue date after today under 80 however the readers agree', () => {
    const fields = normaliseFields(back, { issue_date: raw('12/05/2027', 96) }).fields;
    confirmAgreed(fields, ['issue_date'], today);
    assert.ok(fieldProbability(fields.issue_date!) < 80);
  });
});
