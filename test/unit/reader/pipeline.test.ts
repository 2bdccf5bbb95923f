/** Unit tests of the pipeline stages that need no server. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { danglingStreet, parseAddress, provinceByIdCode, splitGluedStreetWord } from '../../../src/reader/pipeline/address.js';
import { fixStreetNames } from '../../../src/reader/pipeline/street-names.js';
import { classifyHeader } from '../../../src/reader/pipeline/classify.js';
import { flattenBackground } from '../../../src/reader/pipeline/crops.js';
import { decodeImage } from '../../../src/reader/pipeline/decode.js';
import { ReaderFailure } from '../../../src/reader/pipeline/failure.js';
import { fixSurname, normaliseDate, normaliseFields, normaliseId, normaliseName, normaliseSex, rawFromLines, sexSpelled } from '../../../src/reader/pipeline/fields.js';
import { decodeBase64 } from '../../../src/reader/pipeline/input.js';
import { checkDigit, readMrz, writeMrz } from '../../../src/reader/pipeline/mrz.js';
import type { OcrWord } from '../../../src/reader/pipeline/ocr.js';
import { parseTsv } from '../../../src/reader/pipeline/ocr.js';
import { LAYOUTS } from '../../../src/reader/layouts.js';
import { fieldProbability } from '../../../src/reader/pipeline/confidence.js';
import { ServiceError } from '../../../src/platform/http/errors.js';

const word = (text: string, left = 0, conf = 95): OcrWord => ({ text, conf, left, top: 0, width: 10, height: 10, line: '1.1.1' });

describe('band stacking', () => {
  it('never fails on a box off the card, empty or inverted (a band is at least one pixel)', async () => {
    const { stackBands } = await import('../../../src/reader/pipeline/crops.js');
    const gray = Buffer.alloc(1000 * 630, 200);
    const stack = await stackBands(
      gray,
      [
        { x: 990, y: 620, w: -40, h: -3 },
        { x: -50, y: -20, w: 30, h: 10 },
        { x: 1200, y: 700, w: 10, h: 10 },
      ],
      1.8,
    );
    assert.equal(stack.spans.length, 3);
    assert.ok(stack.image.length > 0);
  });

  it('hands OCR a gray PGM with the pixels sharp enlarges the stack to', async () => {
    const { encodeStack } = await import('../../../src/reader/pipeline/crops.js');
    const { readPgm } = await import('../../../src/reader/pipeline/ocr.js');
    const width = 97;
    const height = 41;
    const raw = Buffer.from(Array.from({ length: width * height }, (_, i) => (i * 37 + Math.floor(i / width) * 11) % 256));
    const spans = [{ y0: 3, y1: 20, x0: 5 }];
    for (const scale of [1, 1.4, 1.8]) {
      const stack = await encodeStack({ raw, width, height, spans }, scale);
      const pgm = readPgm(stack.image);
      assert.ok(pgm, 'a binary PGM');
      assert.equal(pgm.width, Math.round(width * scale));
      assert.equal(pgm.height, Math.round(height * scale));
      const resized = await sharp(raw, { raw: { width, height, channels: 1 } })
        .resize(pgm.width, pgm.height)
        .png()
        .toBuffer();
      // What the stack was handed over as before (a PNG, which sharp writes as RGB): the same gray values.
      const before = await sharp(
        scale === 1
          ? await sharp(raw, { raw: { width, height, channels: 1 } })
              .png()
              .toBuffer()
          : resized,
      )
        .extractChannel(0)
        .raw()
        .toBuffer();
      assert.ok(pgm.pixels.equals(before));
      assert.deepEqual(stack.spans, [{ y0: 3 * scale, y1: 20 * scale, x0: 5 * scale }]);
    }
  });

  it('reads back only a PGM that grayPgm writes', async () => {
    const { grayPgm, readPgm } = await import('../../../src/reader/pipeline/ocr.js');
    const pixels = Buffer.from([0, 50, 100, 150, 200, 250]);
    assert.deepEqual(readPgm(grayPgm(pixels, 3, 2)), { width: 3, height: 2, pixels });
    assert.equal(readPgm(Buffer.from('P5\n3 2\n255\n\x00')), undefined, 'pixels missing');
    assert.equal(
      readPgm(
        await sharp({ create: { width: 3, height: 2, channels: 3, background: '#fff' } })
          .png()
          .toBuffer(),
      ),
      undefined,
    );
    assert.throws(() => grayPgm(pixels, 4, 2), /6 pixels for 4 x 2/);
  });
});

describe('address matching against the official unit list', () => {
  it('keeps a correct three-level address and splits it', () => {
    const a = parseAddress('Số 101, Xã Tân Việt, Huyện Yên Mỹ, Tỉnh Hưng Yên');
    assert.deepEqual([a.street, a.ward, a.district, a.province], ['Số 101', 'Tân Việt', 'Yên Mỹ', 'Hưng Yên']);
    assert.equal(a.text, 'Số 101, Xã Tân Việt, Huyện Yên Mỹ, Tỉnh Hưng Yên');
    assert.equal(a.exact, 3);
  });
  it('restores accents and corrects OCR errors in unit names', () => {
    const a = parseAddress('So 101, Xa Tan Viet, Huyen Yen My, Tinh Hung Yen');
    assert.equal(a.text, 'Số 101, Xã Tân Việt, Huyện Yên Mỹ, Tỉnh Hưng Yên');
    const b = parseAddress('Thôn 3, Dền Sáng, Bát Xat, Lảo Cai');
    assert.equal(b.text, 'Thôn 3, Dền Sáng, Bát Xát, Lào Cai');
  });
  it('reads two-level addresses (post-2025 reform: ward and province)', () => {
    const a = parseAddress('Thôn 30, Trà Thanh, Quảng Ngãi');
    assert.deepEqual([a.street, a.ward, a.district, a.province], ['Thôn 30', 'Trà Thanh', '', 'Quảng Ngãi']);
  });
  it('names the district from the ward when the district was misread beyond correction', () => {
    const a = parseAddress('Thôn Đông, Phường Hoà Hải, Quân Hành Sơn, Thành phố Đà Nẵng');
    assert.equal(a.district, 'Ngũ Hành Sơn');
    assert.equal(a.text, 'Thôn Đông, Phường Hoà Hải, Quận Ngũ Hành Sơn, Thành phố Đà Nẵng');
  });
  it('takes the province from the district and ward when it was cut short, lost or misread', () => {
    assert.equal(parseAddress('Số 64 Ngõ 22, Nhạn Môn, Pác Nặm, Bắc').text, 'Số 64 Ngõ 22, Nhạn Môn, Pác Nặm, Bắc Kạn');
    assert.equal(parseAddress('Khu phố 20, Trà Nam, Nam Trà My').province, 'Quảng Nam');
    assert.equal(parseAddress('Xóm 1, Ngọc Sơn, Thành phố Hải Dương, Tỉnh Hải Hước').text, 'Xóm 1, Ngọc Sơn, Thành phố Hải Dương, Tỉnh Hải Dương');
    // A district name found in several provinces, with no ward to decide: no guess.
    assert.equal(parseAddress('Thôn 2, Xyzw, Châu Thành').province, '');
  });
  it('splits units a missed comma glued together, and repairs a type word one letter off', () => {
    const a = parseAddress('Số 64 Ngõ 22 Nhạn Môn, Pác Nặm, Bắc Kạn');
    assert.deepEqual([a.street, a.ward], ['Số 64 Ngõ 22', 'Nhạn Môn']);
    assert.equal(parseAddress('Xã Na Mao, Huvên Đai Từ, Tỉnh Thái Nguyên').text, 'Xã Na Mao, Huyện Đại Từ, Tỉnh Thái Nguyên');
  });
  it('lets a printed type word and a unit number decide', () => {
    const a = parseAddress('Số 5, Phường 3, Quận 10, Hồ Chí Minh');
    assert.equal(a.district, '10');
    assert.notEqual(a.ward, '13');
    assert.equal(parseAddress('Phương Liệt, Thanh Xuân, Hà Nội').ward, 'Phương Liệt');
  });
  it('restores a ward whose first word OCR dropped, and the first street word', () => {
    assert.equal(parseAddress('Xóm 29, Phước Tây, Cam Lâm, Khánh Hòa').ward, 'Cam Phước Tây');
    assert.equal(parseAddress('hôn Đông, Cam Tân, Cam Lâm, Khánh Hòa').street, 'Thôn Đông');
    assert.equal(parseAddress('Ấn 4, Xã Na Mao, Huyện Đại Từ, Tỉnh Thái Nguyên').street, 'Ấp 4');
    assert.equal(parseAddress('Tân Phú, Quận 7, Hồ Chí Minh').ward, 'Tân Phú');
    // A missed comma before the province.
    assert.equal(parseAddress('Số 134 Trần Hưng Đạo, Hòa Hiên Bắc Đà Nẵng').text, 'Số 134 Trần Hưng Đạo, Hòa Hiệp Bắc, Đà Nẵng');
  });
  it('keeps the province type word when only it was left of the province', () => {
    // "Tỉnh Quảng Em": the misread name was dropped as noise; district and ward name Quảng Bình.
    assert.equal(parseAddress('Số 149 Ngõ 11, Thị trấn Đồng Lê, Huyện Tuyên Hóa, Tỉnh').text, 'Số 149 Ngõ 11, Thị trấn Đồng Lê, Huyện Tuyên Hóa, Tỉnh Quảng Bình');
    assert.equal(parseAddress('Số 149 Ngõ 11, Đồng Lê, Tuyên Hóa, Quảng').text, 'Số 149 Ngõ 11, Đồng Lê, Tuyên Hóa, Quảng Bình');
  });
  it('finds a two-level address whose province was cut or misread, from its ward among the provinces the start names', () => {
    assert.equal(parseAddress('Khu phố 16, Xã Đắk Gần, Tỉnh Đắk Nâna').text, 'Khu phố 16, Xã Đắk Gằn, Tỉnh Đắk Nông');
    assert.equal(parseAddress('Thôn 3, Đắk Gằn, Đắk').province, 'Đắk Nông');
    // A ward of the province named exactly is two levels, not a misread district ("Tân Thuận" is no "Tân Hiệp").
    assert.equal(parseAddress('Thôn Đông, Xã Tân Thuận, Tỉnh Kiên Giang').text, 'Thôn Đông, Xã Tân Thuận, Tỉnh Kiên Giang');
    // With no province text at all, a ward alone names nothing (ward names repeat across provinces).
    assert.equal(parseAddress('Thôn 3, Đắk Gằn').province, '');
  });
  it('reads "la" as "Ia" when the list says so (OCR confuses l and I)', () => {
    const a = parseAddress("Số 198 Đường Lê Lợi, la ĐaI, Ia H' Drai, Kon Tum");
    assert.equal(a.ward, 'Ia Đal');
    assert.equal(a.text, "Số 198 Đường Lê Lợi, Ia Đal, Ia H' Drai, Kon Tum");
  });
  it('tells districts of one name apart by their wards', () => {
    // Hà Tĩnh has Huyện Kỳ Anh and Thị xã Kỳ Anh; Hưng Trí is a ward of the latter.
    const a = parseAddress('Tổ 25, Hưng Trí, Kỳ Anh, Hà Tĩnh');
    assert.equal(a.ward, 'Hưng Trí');
    assert.equal(a.street, 'Tổ 25');
    assert.equal(parseAddress('Tổ 25, Phường Hưng Trí, Thị xã Kỳ Anh, Tỉnh Hà Tĩnh').text, 'Tổ 25, Phường Hưng Trí, Thị xã Kỳ Anh, Tỉnh Hà Tĩnh');
  });
  it('prints unit names with single spaces (the list has a few double ones)', () => {
    const a = parseAddress('Ấp 9, Hành Tín Đông, Nghĩa Hành, Quảng Ngãi');
    assert.equal(a.ward, 'Hành Tín Đông');
    assert.equal(a.text, 'Ấp 9, Hành Tín Đông, Nghĩa Hành, Quảng Ngãi');
  });
  it('gives well-known street names their accents back, and leaves other streets as read', () => {
    assert.equal(parseAddress('Số 72 Trân Hưng Đạo, Xã Hòa Thắng, Huyện Bắc Bình, Tỉnh Bình Thuận').street, 'Số 72 Trần Hưng Đạo');
    assert.equal(fixStreetNames('Số 5 Đường Le Loi,'), 'Số 5 Đường Lê Lợi,');
    assert.equal(fixStreetNames('Số 9 Nguyen Thi Minh Khai'), 'Số 9 Nguyễn Thị Minh Khai');
    // A comma between the words ends a name; an unknown street keeps its reading.
    assert.equal(fixStreetNames('Lê, Lợi'), 'Lê, Lợi');
    assert.equal(fixStreetNames('Số 3 Trân Văn Hai'), 'Số 3 Trân Văn Hai');
  });
  it('splits a number glued to its street type, and knows a street that lost what follows its type', () => {
    assert.deepEqual(splitGluedStreetWord('8Ngõ'), ['8', 'Ngõ']);
    assert.deepEqual(splitGluedStreetWord('Ngõ21,'), ['Ngõ', '21,']);
    assert.deepEqual(splitGluedStreetWord('12A'), ['12A']);
    assert.deepEqual(splitGluedStreetWord('Phường3'), ['Phường3']);
    assert.equal(danglingStreet('Số 101 Ngõ'), true);
    assert.equal(danglingStreet('Số 101 Ngõ 4'), false);
    assert.equal(danglingStreet('Thôn Đông'), false);
    assert.equal(danglingStreet(''), false);
    // "số 8Ngõ 21" read with the glued word unsure: both halves are kept (they were dropped as noise before).
    const words = [
      { text: 'số', conf: 83 },
      { text: '8Ngõ', conf: 50 },
      { text: '21,', conf: 93 },
      { text: 'Phước', conf: 97 },
      { text: 'Lộc,', conf: 97 },
      { text: 'Hồ', conf: 97 },
      { text: 'Chí', conf: 97 },
      { text: 'Minh', conf: 97 },
    ];
    const f = normaliseFields(LAYOUTS.cccd_chip_front, { address: { text: words.map((w) => w.text).join(' '), conf: 89, words } });
    assert.equal(f.fields.address?.value, 'Số 8 Ngõ 21, Phước Lộc, Hồ Chí Minh');
  });
  it('maps the id province code', () => {
    assert.equal(provinceByIdCode('001')?.name, 'Hà Nội');
    assert.equal(provinceByIdCode('079')?.name, 'Hồ Chí Minh');
    assert.equal(provinceByIdCode('003'), undefined);
  });
});

describe('field normalisation', () => {
  it('ids, dates, names, sex', () => {
    assert.equal(normaliseId('O51O82572986', 12), '051082572986');
    assert.equal(normaliseId('12345', 12), undefined);
    // A label or a stray mark before the number is not glued to it.
    assert.equal(normaliseId('SỐ 274644934', 9), '274644934');
    assert.equal(normaliseId('1 244419823', 9), '244419823');
    // A 12-digit number is not cut down to a 9-digit id.
    assert.equal(normaliseId('034063165474', 9), undefined);
    assert.equal(normaliseName('NGUYÊN VĂN NAM'), 'NGUYÊN VĂN NAM');
    assert.equal(normaliseDate('01-07-1989'), '01/07/1989');
    assert.equal(normaliseDate('17 tháng 01 năm 2005'), '17/01/2005');
    assert.equal(normaliseDate('31/13/2005'), undefined);
    assert.equal(normaliseName('Lê hồng huyền Z'), 'LÊ HỒNG HUYỀN');
    assert.equal(normaliseSex('Nữ'), 'NỮ');
    assert.equal(normaliseSex('Nam'), 'NAM');
  });
  it('restores the tone marks of a known family name, and only the first word', () => {
    assert.equal(fixSurname('NGUYÊN VĂN NAM'), 'NGUYỄN VĂN NAM');
    assert.equal(fixSurname('ĐĂNG XUÂN BÌNH'), 'ĐẶNG XUÂN BÌNH');
    assert.equal(fixSurname('HỒ NGUYÊN'), 'HỒ NGUYÊN');
    assert.equal(fixSurname('LA VĂN AN'), 'LA VĂN AN'); // La and Lã are both family names: left alone
  });
  it("keeps a name's unsure first word when it spells a family name, and drops other unsure words", () => {
    const layout = LAYOUTS.cccd_chip_front;
    const read = (...ws: OcrWord[]) => rawFromLines('name', [ws]);
    // Tesseract read NGUYỄN as "NGUYÊN" with confidence 5 (held-out seed 53014).
    const raw = read(word('NGUYÊN', 0, 5), word('MINH', 90, 92), word('ĐẠT', 160, 97))!;
    assert.equal(raw.text, 'NGUYÊN MINH ĐẠT');
    assert.ok(raw.conf < 80, 'the unsure word lowers the mean: the name is read a second time');
    assert.equal(normaliseFields(layout, { name: raw }).fields.name?.value, 'NGUYỄN MINH ĐẠT');
    assert.equal(read(word('XQV', 0, 5), word('MINH', 90, 92), word('ĐẠT', 160, 97))?.text, 'MINH ĐẠT');
    assert.equal(read(word('MINH', 0, 92), word('TRẦN', 90, 5), word('ĐẠT', 160, 97))?.text, 'MINH ĐẠT', 'only the first word');
  });
  it('repairs a birth year misread only in its century from the 12-digit id', () => {
    const f = normaliseFields(LAYOUTS.cccd_chip_front, {
      id: { text: '030170110781', conf: 90 },
      dob: { text: '04/10/1870', conf: 60 },
      sex: { text: 'Nữ', conf: 90 },
    }).fields;
    assert.equal(f.dob?.value, '04/10/1970');
    assert.equal(f.id?.valid, true);
  });
  it("takes a citizen card's expiry day and month from the birthday its year names (25, 40, 60)", () => {
    const read = (doe: string) =>
      normaliseFields(LAYOUTS.cccd_chip_front, { id: { text: '019156532302', conf: 90 }, dob: { text: '04/05/1956', conf: 90 }, doe: { text: doe, conf: 60 } }).fields.doe
        ?.value;
    assert.equal(read('34/05/2016'), '04/05/2016');
    assert.equal(read('04/06/2016'), '04/05/2016');
    assert.equal(read('04/06/2017'), '04/06/2017'); // not a 25/40/60 birthday: as read
  });
  it('cross-checks a 12-digit id with province, century/sex digit and year of birth', () => {
    const layout = LAYOUTS.cccd_chip_front;
    const raw = (id: string, sex: string) => ({ id: { text: id, conf: 90 }, dob: { text: '23/10/1982', conf: 90 }, sex: { text: sex, conf: 90 } });
    assert.equal(normaliseFields(layout, raw('051082572986', 'Nam')).fields.id?.valid, true);
    assert.equal(normaliseFields(layout, raw('051182572986', 'Nam')).fields.id?.invalid, true);
    assert.equal(normaliseFields(layout, raw('051082572986', 'Nữ')).fields.id?.invalid, true);
    assert.equal(normaliseFields(layout, raw('003082572986', 'Nam')).fields.id?.invalid, true);
  });
  it("confirms a sex read without its marks only by the id's sex digit, and never fails the id with it", () => {
    const layout = LAYOUTS.cccd_2024_front;
    const read = (id: string, sex: string, dob = '23/10/1982') =>
      normaliseFields(layout, { id: { text: id, conf: 90 }, dob: { text: dob, conf: 90 }, sex: { text: sex, conf: 79 } }).fields;
    // Spelled with its marks: a value of its own, confirmed.
    assert.equal(read('051082572986', 'Nam').sex?.valid, true);
    assert.equal(read('051182572986', 'Nữ').sex?.valid, true);
    // "Nư": NỮ, unconfirmed (under 80) unless the id, checked on its own, says female.
    const alone = normaliseFields(layout, { sex: { text: 'Nư', conf: 79 } }).fields.sex!;
    assert.equal(alone.value, 'NỮ');
    assert.ok(fieldProbability(alone) < 80, `prob ${fieldProbability(alone)}`);
    const agreed = read('051182572986', 'Nư');
    assert.equal(agreed.id?.valid, true);
    assert.ok(fieldProbability(agreed.sex!) >= 80, `prob ${fieldProbability(agreed.sex!)}`);
    // The id says male: the id stays valid, the sex unconfirmed.
    const disagreed = read('051082572986', 'Nư');
    assert.equal(disagreed.id?.valid, true);
    assert.ok(fieldProbability(disagreed.sex!) < 80);
    // An id that fails its own checks (year of birth) confirms nothing.
    assert.ok(fieldProbability(read('051183572986', 'Nư').sex!) < 80);
    assert.equal(sexSpelled('nữ.', 'NỮ'), true);
    assert.equal(sexSpelled('Nu', 'NỮ'), false);
  });
  it('keeps an id cut out of too many digits under 80, however well it passes the cross-checks', () => {
    // As read on dev card 140266: "0250574811584" (a 3 read as 15) for 025057481384.
    const layout = LAYOUTS.cccd_chip_front;
    const raw = (id: string) => ({ id: { text: id, conf: 90 }, dob: { text: '01/12/1957', conf: 90 }, sex: { text: 'Nam', conf: 90 } });
    const cut = normaliseFields(layout, raw('0250574811584')).fields.id!;
    assert.equal(cut.value, '025057481158');
    assert.ok(fieldProbability(cut) < 80, `prob ${fieldProbability(cut)}`);
    const whole = normaliseFields(layout, raw('Số 025057481384')).fields.id!;
    assert.ok(fieldProbability(whole) >= 80, 'a number of the right length in one word keeps its confidence');
  });
  it('confirms a place only when the gazetteer accounts for all of it (a street or a lost ward stays under 80)', () => {
    const layout = LAYOUTS.cccd_chip_front;
    const place = (text: string) => normaliseFields(layout, { address: { text, conf: 96 }, home: { text, conf: 96 } }).fields;
    const units = place('Trà Thanh, Trà Bồng, Quảng Ngãi');
    assert.ok(fieldProbability(units.address!) >= 80, `units only: ${fieldProbability(units.address!)}`);
    assert.ok(fieldProbability(units.home!) >= 80);
    // A street the gazetteer cannot check (OCR may have cut its first letters), and a ward lost with its line.
    const street = place('Thôn 3, Trà Thanh, Trà Bồng, Quảng Ngãi');
    assert.equal(street.address!.valid, true, 'still valid for the second reading');
    assert.ok(fieldProbability(street.address!) < 80, `with a street: ${fieldProbability(street.address!)}`);
    const noWard = place('Trà Bồng, Quảng Ngãi');
    assert.ok(fieldProbability(noWard.home!) < 80, `no ward: ${fieldProbability(noWard.home!)}`);
    // A card printed before the 2025 reform prints the district: a ward and a province alone lost it.
    const noDistrict = place('Trà Thanh, Quảng Ngãi');
    assert.ok(fieldProbability(noDistrict.home!) < 80, `no district: ${fieldProbability(noDistrict.home!)}`);
  });
});

describe('band background flattening', () => {
  it('equals a closing computed pixel by pixel, windows clipped at the edges', () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (const [w, h, k] of [
      [1000, 40, 17],
      [37, 23, 17],
      [9, 30, 17],
      [50, 5, 17],
      [64, 64, 5],
      [3, 3, 17],
    ] as const) {
      const band = Buffer.from(Array.from({ length: w * h }, () => Math.floor(next() * 256)));
      const r = k >> 1;
      const window = (img: Uint8Array, x: number, y: number, pick: (a: number, b: number) => number) => {
        let m = img[y * w + x];
        for (let yy = Math.max(0, y - r); yy <= Math.min(h - 1, y + r); yy++)
          for (let xx = Math.max(0, x - r); xx <= Math.min(w - 1, x + r); xx++) m = pick(m, img[yy * w + xx]);
        return m;
      };
      const dilated = new Uint8Array(w * h);
      for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) dilated[y * w + x] = window(band, x, y, Math.max);
      const expected = Buffer.alloc(w * h);
      for (let y = 0; y < h; y++)
        for (let x = 0; x < w; x++) {
          const bg = window(dilated, x, y, Math.min);
          expected[y * w + x] = Math.min(255, Math.round((band[y * w + x] * 255) / Math.max(1, bg)));
        }
      const got = Buffer.from(band);
      flattenBackground(got, w, h, k);
      assert.ok(got.equals(expected), `${w}x${h}, window ${k}`);
    }
  });
  it('turns an uneven, dark background white and keeps thin strokes dark', () => {
    const w = 200;
    const h = 40;
    const band = Buffer.alloc(w * h);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) band[y * w + x] = Math.round(220 - (140 * x) / w); // 220 -> 80
    for (let y = 10; y < 30; y++) for (const x0 of [20, 100, 180]) for (let x = x0; x < x0 + 3; x++) band[y * w + x] = Math.round((220 - (140 * x) / w) * 0.25);
    flattenBackground(band, w, h);
    for (const x of [5, 60, 140, 195]) assert.ok(band[20 * w + x] >= 235, `background at x=${x} is ${band[20 * w + x]}`);
    for (const x of [21, 101, 181]) assert.ok(band[20 * w + x] <= 80, `stroke at x=${x} is ${band[20 * w + x]}`);
  });
});

describe('MRZ (TD1) of the chip card back', () => {
  it('round-trips with valid check digits and repairs letters read in digit positions', () => {
    const lines = writeMrz({ id: '051082572986', dob: '23/10/1982', doe: '23/10/2042', sex: 'NAM', nameAscii: 'NGO HUU HOANG' });
    const m = readMrz(lines);
    assert.ok(m?.valid);
    assert.equal(m.id, '051082572986');
    assert.equal(m.dob, '23/10/1982');
    assert.equal(m.sex, 'NAM');
    const noisy = readMrz([lines[0].replace(/0/g, 'O'), lines[1], lines[2]]);
    assert.equal(noisy?.valid, true);
    assert.equal(checkDigit('520727'), '3');
  });
});

describe('classification by header words', () => {
  const words = (text: string, left = 300) => text.split(' ').map((t) => word(t, left));
  it('tells the kinds apart', () => {
    assert.equal(classifyHeader(words('CĂN CƯỚC CÔNG DÂN Citizen Identity Card')), 'cccd_chip_front');
    assert.equal(classifyHeader(words('CỘNG HÒA XÃ HỘI CĂN CƯỚC CÔNG DÂN Số:')), 'cccd_12_front');
    // "Họ" misread as "no" is not the chip card's "Số/No.".
    assert.equal(classifyHeader(words('CĂN CƯỚC CÔNG DÂN số: 080206727200 no và tên:')), 'cccd_12_front');
    assert.equal(classifyHeader(words('CĂN CƯỚC CÔNG DÂN Số/No.: 080206727200')), 'cccd_chip_front');
    assert.equal(classifyHeader(words('GIẤY CHỨNG MINH NHÂN DÂN')), 'cmnd_09_front');
    assert.equal(classifyHeader(words('CHỨNG MINH NHÂN DÂN')), 'cmnd_12_front');
    assert.equal(classifyHeader(words('Dân tộc: Kinh Tôn giáo: Không DẤU VẾT RIÊNG')), 'cmnd_09_back');
    assert.equal(classifyHeader(words('Ngón trỏ trái Đặc điểm nhận dạng', 100)), 'cccd_12_back');
    assert.equal(classifyHeader(words('Ngón trỏ trái', 700)), 'cccd_chip_back');
    assert.equal(classifyHeader(words('ẤNN ÂƠ')), undefined);
  });
});

describe('decode and input', () => {
  it('7 for not an image, 8 for truncated or corrupt', async () => {
    const code = async (buf: Buffer) => {
      try {
        await decodeImage(buf, 1e7);
        return 0;
      } catch (err) {
        return (err as ReaderFailure).code;
      }
    };
    const jpeg = await sharp({ create: { width: 700, height: 500, channels: 3, background: '#888' } })
      .jpeg()
      .toBuffer();
    assert.equal(await code(jpeg), 0);
    assert.equal(await code(Buffer.from('%PDF-1.4 not an image at all')), 7);
    assert.equal(await code(jpeg.subarray(0, jpeg.length - 200)), 8);
    assert.equal(await code(Buffer.concat([Buffer.from('BM'), Buffer.alloc(100)])), 8);
    // Over the pixel limit (decompression bomb guard).
    assert.equal(
      await code(
        await sharp({ create: { width: 4000, height: 4000, channels: 3, background: '#888' } })
          .png()
          .toBuffer(),
      ),
      8,
    );
  });
  it('EXIF orientation is applied', async () => {
    const jpeg = await sharp({ create: { width: 800, height: 600, channels: 3, background: '#888' } })
      .withMetadata({ orientation: 6 })
      .jpeg()
      .toBuffer();
    const img = await decodeImage(jpeg, 1e7);
    assert.deepEqual([img.width, img.height], [600, 800]);
  });
  it('base64: empty 9, invalid 10, data URLs and url-safe alphabet accepted', () => {
    const codeOf = (s: string) => {
      try {
        decodeBase64(s, 1000);
        return 0;
      } catch (err) {
        return (err as ServiceError).entry.code;
      }
    };
    assert.equal(codeOf(''), 9);
    assert.equal(codeOf('  '), 9);
    assert.equal(codeOf('@@@@'), 10);
    assert.equal(codeOf('a'), 10);
    assert.equal(codeOf('data:image/png;base64,aGVsbG8='), 0);
    assert.equal(decodeBase64('_-8=', 10).length, 2);
    assert.equal(codeOf(Buffer.alloc(2000).toString('base64')), 1);
  });
  it('parses Tesseract TSV words', () => {
    const tsv =
      'level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n5\t1\t1\t1\t1\t1\t10\t20\t30\t40\t96.5\tHÀ\n5\t1\t1\t1\t1\t2\t50\t20\t30\t40\t-1\t \n';
    assert.deepEqual(parseTsv(tsv), [{ text: 'HÀ', conf: 96.5, left: 10, top: 20, width: 30, height: 40, line: '1.1.1' }]);
  });
});
