/**
 * The chip front's QR code: its text parsed in the card's format, its values put in place of the printed
 * readings (not the address), a confident printed value it contradicts reported; the code found on a card in a photo, upright
 * or turned, and in the whole photo when the card's outline is wrong.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { applyChipQr, expiryFromCode, guideAddress, parseChipQr } from '../../../src/reader/pipeline/chip-qr.js';
import { fieldProbability } from '../../../src/reader/pipeline/confidence.js';
import { readCardQr } from '../../../src/reader/pipeline/qr.js';
import { checkQrAgainstBack } from '../../../src/reader/fraud-check.js';
import type { ReadCard } from '../../../src/reader/pipeline/run.js';
import { LAYOUTS, CARD_HEIGHT, CARD_WIDTH } from '../../../src/reader/layouts.js';
import { chipQrText, qrPng } from '../../../fixtures/cards/qr.js';
import type { NormalisedCard } from '../../../src/reader/pipeline/fields.js';

const PERSON = { id: '001203004567', name: 'Trần Thị Bích Ngọc', dob: '05/09/1994', sex: 'Nữ', address: 'Số 12, Phường Hàng Bạc, Quận Hoàn Kiếm, Hà Nội' };
const TEXT = chipQrText(PERSON, '14/03/2022');

describe('chip QR text', () => {
  it('parses the card format, dates as dd/mm/yyyy, the text kept as read', () => {
    const qr = parseChipQr(TEXT);
    assert.ok(qr);
    assert.equal(qr.text, TEXT);
    assert.equal(qr.id, PERSON.id);
    assert.equal(qr.oldId, '');
    assert.equal(qr.dob, PERSON.dob);
    assert.equal(qr.issueDate, '14/03/2022');
    assert.equal(parseChipQr(TEXT.replace('|', '|123456789|').replace('||', '|'))?.oldId, '123456789');
  });

  it('refuses other codes: too few parts, an id not of 12 digits, an impossible date', () => {
    assert.equal(parseChipQr('https://example.com/'), undefined);
    assert.equal(parseChipQr(TEXT.replace(PERSON.id, '00120300456')), undefined);
    assert.equal(parseChipQr(TEXT.replace('05091994', '31021994')), undefined);
    assert.equal(parseChipQr(TEXT.replace('14032022', '1403202')), undefined);
  });
});

describe('chip QR values in the answer', () => {
  const layout = LAYOUTS.cccd_chip_front;
  const qr = parseChipQr(TEXT)!;

  it('replaces the printed id, name, dob and sex, vouched for; not the printed address', () => {
    const printedAddress = { value: 'Số 12, Hàng Bạc, Hoàn Kiếm, Hà Nội', conf: 70 };
    const normal: NormalisedCard = {
      fields: {
        id: { value: '001203004561', conf: 70 },
        name: { value: 'TRẦN THI BÍCH NGOC', conf: 60, unsure: true },
        sex: { value: 'NỮ', conf: 90, valid: true },
        address: printedAddress,
      },
    };
    const disagree = applyChipQr(layout, normal, qr, fieldProbability);
    // The printed id was not sure (under 80): a misreading, not a disagreement.
    assert.deepEqual(disagree, []);
    assert.equal(normal.fields.id?.value, PERSON.id);
    assert.equal(normal.fields.name?.value, 'TRẦN THỊ BÍCH NGỌC');
    assert.equal(normal.fields.dob?.value, PERSON.dob);
    assert.equal(normal.fields.sex?.value, 'NỮ');
    for (const f of ['id', 'name', 'dob', 'sex'] as const) assert.ok(fieldProbability(normal.fields[f]!) >= 95, f);
    assert.equal(normal.fields.address, printedAddress);
  });

  it('reports a confident printed value the code contradicts; tone marks aside', () => {
    const normal: NormalisedCard = {
      fields: {
        id: { value: '001203004561', conf: 96, valid: true },
        dob: { value: PERSON.dob, conf: 96, valid: true },
        name: { value: 'TRẦN THỊ BÍCH NGÕC', conf: 96, valid: true },
      },
    };
    assert.deepEqual(applyChipQr(layout, normal, qr, fieldProbability), ['id']);
  });

  it("fills in an expiry nobody read from the code's issue date and date of birth, unsure; never replaces one read", () => {
    const normal: NormalisedCard = { fields: {} };
    applyChipQr(layout, normal, qr, fieldProbability);
    assert.equal(expiryFromCode(layout, normal, qr), true);
    // Born 05/09/1994, issued 14/03/2022 at 27: the card runs to the 40th birthday.
    assert.equal(normal.fields.doe?.value, '05/09/2034');
    assert.ok(fieldProbability(normal.fields.doe!) < 80);
    const read: NormalisedCard = { fields: { dob: { value: PERSON.dob, conf: 99, valid: true }, doe: { value: '05/09/2019', conf: 90, valid: true } } };
    assert.equal(expiryFromCode(layout, read, qr), false);
    assert.equal(read.fields.doe?.value, '05/09/2019');
    assert.equal(expiryFromCode(LAYOUTS.cccd_chip_back, { fields: { dob: { value: PERSON.dob, conf: 99 } } }, qr), false, 'a side without an expiry');
  });
});

describe('finding the code on the card', () => {
  /** A plain card with the code at its printed place, on a bigger background, the card's corners in the photo. */
  async function photo(turned: boolean) {
    const code = await qrPng(TEXT, 140);
    let card = await sharp({ create: { width: CARD_WIDTH, height: CARD_HEIGHT, channels: 3, background: '#e8eef0' } })
      .composite([{ input: code, left: 830, top: 25 }])
      .png()
      .toBuffer();
    if (turned) card = await sharp(card).rotate(180).png().toBuffer();
    // The card at 1.3 times its flat size, 80 px in: about 1.3 pixels per flat-card pixel, as a phone photo.
    const w = Math.round(CARD_WIDTH * 1.3);
    const h = Math.round(CARD_HEIGHT * 1.3);
    const { data, info } = await sharp({ create: { width: w + 160, height: h + 160, channels: 3, background: '#553322' } })
      .composite([{ input: await sharp(card).resize(w, h).png().toBuffer(), left: 80, top: 80 }])
      .greyscale()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const corners = [
      { x: 80, y: 80 },
      { x: 80 + w, y: 80 },
      { x: 80 + w, y: 80 + h },
      { x: 80, y: 80 + h },
    ];
    return { gray: { data: new Uint8Array(data.buffer, data.byteOffset, info.width * info.height), width: info.width, height: info.height }, corners };
  }

  it('reads it at the top right of the upright card', async () => {
    const p = await photo(false);
    assert.equal(await readCardQr(p.gray, p.corners, false), TEXT);
  });

  it('reads it at the bottom left of a card read turned', async () => {
    const p = await photo(true);
    assert.equal(await readCardQr(p.gray, p.corners, true), TEXT);
  });

  it('falls back to the whole photo when the corners are wrong and the card was read without its outline', async () => {
    const p = await photo(false);
    const wrong = [
      { x: 0, y: 0 },
      { x: 300, y: 0 },
      { x: 300, y: 200 },
      { x: 0, y: 200 },
    ];
    assert.equal(await readCardQr(p.gray, wrong, false), TEXT);
    // A card placed by its outline: the corner boxes are where the code is printed, the photo is not searched.
    assert.equal(await readCardQr(p.gray, wrong, false, false), undefined);
  });
});

describe("the QR code against the back's MRZ", () => {
  const front = {
    ok: true,
    kind: 'cccd_chip_front',
    fields: {},
    overall: 0,
    corners: [],
    timings: {},
    qr: { text: TEXT, issueDate: '14/03/2022', disagree: [] },
  } as unknown as ReadCard;
  const back = (id: string, valid = true) =>
    ({ ok: true, kind: 'cccd_chip_back', fields: {}, overall: 0, corners: [], timings: {}, mrz: { id, dob: '', doe: '', sex: '', valid } }) as unknown as ReadCard;
  const checks = () => [{ check_QRcode_result: 'passed', check_QRcode_prob: '1.00' }, { check_QRcode_result: 'N/A' }];

  it("fails the front's QR check when a valid MRZ names another number", () => {
    const c = checks();
    checkQrAgainstBack([front, back('001203004568')], c);
    assert.equal(c[0].check_QRcode_result, 'failed');
    assert.equal(c[0].check_QRcode_prob, '0.00');
  });

  it('leaves it when the numbers agree (the MRZ proves the last 9 digits), or the MRZ is not valid', () => {
    const same = checks();
    checkQrAgainstBack([back('203004567'), front], [same[1], same[0]]);
    assert.equal(same[0].check_QRcode_result, 'passed');
    const unproven = checks();
    checkQrAgainstBack([front, back('001203004568', false)], unproven);
    assert.equal(unproven[0].check_QRcode_result, 'passed');
  });
});

describe("the printed address corrected from the code's", () => {
  // Made-up addresses; the code writes them in the register's wording.
  const code = 'Số Nhà 27 Đường Thái Hà, Phường Láng Hạ, Quận Đống Đa, Hà Nội';

  it('spells a misread word, tone marks and a misread number as the code does, keeping the printed wording', () => {
    assert.equal(guideAddress('2G Thái Ha, Láng Ha, Đống Đa, Hà Nội', code), '27 Thái Hà, Láng Hạ, Đống Đa, Hà Nội');
    // A word one letter off, in capitals as printed.
    assert.equal(guideAddress('27 THÁI HÀ, LÁNG HẠ, ĐỐN ĐA, HÀ NỘI', code), '27 THÁI HÀ, LÁNG HẠ, ĐỐNG ĐA, HÀ NỘI');
  });

  it('adds no word only the code has, drops no printed word, and changes nothing already spelt alike', () => {
    assert.equal(guideAddress('27 Thái Hà, P. Láng Hạ, Q Đống Đa, TP Hà Nội', code), undefined);
    assert.equal(guideAddress('27 THÁI HÀ, LÁNG HẠ', code), undefined);
  });

  it('leaves a ward written with its number ("P4") and words unlike any of the code', () => {
    const ward = 'Số 5 Tổ 2 Đường Hoa Sứ, Phường 4, Quận Phú Nhuận, Hồ Chí Minh';
    assert.equal(guideAddress('5 Tổ 2 Hoa Sứ, P4, Q. Phú Nhuận, Hồ Chí Minh', ward), undefined);
    assert.equal(guideAddress('5 Tổ 2 Hoa Sứ, P4, Q. Phú Nhuậm, Hồ Chí Minh', ward), '5 Tổ 2 Hoa Sứ, P4, Q. Phú Nhuận, Hồ Chí Minh');
  });

  it("corrects nothing when under half of the printed words are the code's, or the code is empty", () => {
    assert.equal(guideAddress('Thôn Bến Lội, Xã Quỳnh Giao, Huyện Quỳnh Phụ, Thái Bình', code), undefined);
    assert.equal(guideAddress('27 Thái Ha', ''), undefined);
    assert.equal(guideAddress('', code), undefined);
    // A code of thousands of words (a forged one) is not aligned.
    assert.equal(guideAddress('2G Thái Ha, Láng Ha, Đống Đa, Hà Nội', `${code} ${'Hà Nội '.repeat(2000)}`), undefined);
  });
});
