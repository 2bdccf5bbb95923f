/**
 * Driving licences: validation units (class values, the issue line, kind and
 * side from words) and POST /vision/dlr/vnm end to end on generated,
 * photographed licences of every model and side (fixtures/documents/variation.ts).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { LICENCE_SAMPLE_KINDS, makeLicenceSample } from '../../../fixtures/documents/variation.js';
import { anchorPage } from '../../../src/reader/documents/page.js';
import {
  classOf,
  issueLine,
  licenceAddress,
  licenceEra,
  licenceKind,
  licenceNumber,
  modelOf,
  normaliseClass,
  readFront,
  splitGlosses,
} from '../../../src/reader/documents/licence/licence.js';
import { fieldProbability } from '../../../src/reader/pipeline/confidence.js';
import { provincePlace } from '../../../src/reader/province.js';
import type { CardWord } from '../../../src/reader/pipeline/anchors.js';
import { startTestApp, type TestApp } from '../../../fixtures/servers/app.js';
import { badInputCases } from '../../support/reader/bad-input.js';
import { fixture, postForm, TEST_FONTS } from '../../support/reader/helpers.js';

const PROB = /^\d{1,3}\.\d{2}$/;
const words = (...texts: string[]): CardWord[] => texts.map((text, i) => ({ text, conf: 90, left: 10, top: i * 40, width: 100, height: 20 }));

describe('licence validation', () => {
  it('takes the surest class value after the label: artwork read as a stray letter is not the class', () => {
    const w = (text: string, conf: number) => ({ text, conf });
    assert.equal(classOf({ text: 'E—I B2', conf: 70, words: [w('E—I', 44), w('B2', 97)] }, 'before 2025')?.value, 'B2');
    assert.equal(classOf({ text: 'b A', conf: 52, words: [w('b', 15), w('A', 90)] }, '2025')?.value, 'A');
    // Two sure readings of different classes: answered, never sure.
    const two = classOf({ text: 'B1 C', conf: 90, words: [w('B1', 92), w('C', 88)] }, 'before 2025');
    assert.equal(two?.value, 'B1');
    assert.ok(two && fieldProbability(two) < 80);
  });

  it('accepts class values of both systems and mends OCR slips only into a listed value', () => {
    for (const c of ['A1', 'A', 'B2', 'C1E', 'D2E', 'FC', 'BE']) assert.equal(normaliseClass(c), c);
    assert.equal(normaliseClass('8E'), 'BE');
    assert.equal(normaliseClass('Hạng: 82'), 'B2');
    assert.equal(normaliseClass('X9'), undefined);
    assert.equal(normaliseClass('G'), undefined);
  });

  it("keeps to the era's classes: no class B on a pre-2025 licence, no B2 on a 2025 one; a 1 read as an accented I", () => {
    assert.equal(normaliseClass('BÍ', 'before 2025'), 'B1');
    assert.equal(normaliseClass('B', 'before 2025'), undefined);
    assert.equal(normaliseClass('B', '2025'), 'B');
    assert.equal(normaliseClass('B2', '2025'), undefined);
    assert.equal(normaliseClass('C1E', '2025'), 'C1E');
    assert.equal(normaliseClass('C1E', 'before 2025'), undefined);
    assert.equal(normaliseClass('FC', 'before 2025'), 'FC');
    assert.equal(licenceEra(words('BỘ CÔNG AN', "GIẤY PHÉP LÁI XE/DRIVER'S LICENSE")), '2025');
    assert.equal(licenceEra(words('BỘ GIAO THÔNG VẬN TẢI', 'GIẤY PHÉP LÁI XE')), 'before 2025');
    assert.equal(licenceEra(words('GIẤY PHÉP LÁI XE')), undefined);
  });

  it('spells a place of issue as the gazetteer does, keeping its type word', () => {
    assert.equal(provincePlace('Cấn Thơ'), 'Cần Thơ');
    assert.equal(provincePlace('TP. Hồ Chí Minh'), 'TP. Hồ Chí Minh');
    assert.equal(provincePlace('Tp Hồ Chỉ Minh'), 'TP. Hồ Chí Minh');
    assert.equal(provincePlace('Thanh Hoá'), 'Thanh Hóa');
    assert.equal(provincePlace('Sở Giao thông'), undefined);
  });

  it("takes a paper front's one 12-digit number as its id when the number's label was read garbled", () => {
    const at = (text: string, left: number, top: number): CardWord => ({ text, conf: 92, left, top, width: text.length * 14, height: 22 });
    const page = (extra: CardWord[] = []) => [
      at('GIẤY', 380, 70),
      at('PHÉP', 450, 70),
      at('LÁI', 520, 70),
      at('XE', 570, 70),
      at('Sø:', 283, 139),
      at('047833259225', 340, 139),
      at('Họ', 284, 185),
      at('tên:', 320, 185),
      at('HỒ', 390, 185),
      at('NGỌC', 440, 185),
      at('HẠNH', 520, 185),
      at('Sinh', 283, 246),
      at('ngày:', 345, 246),
      at('12/08/1978', 430, 246),
      ...extra,
    ];
    const front = (words: CardWord[]) => readFront('dl_paper_front', anchorPage(words, modelOf('dl_paper_front')), 'before 2025');
    assert.equal(front(page()).id?.value, '047833259225');
    assert.equal(front(page()).dob?.value, '12/08/1978');
    // Two such numbers: neither is known to be the id.
    assert.equal(front(page([at('123456789012', 300, 520)])).id, undefined);
  });

  it('splits the issue line into place and date', () => {
    assert.deepEqual(issueLine('TP. Hồ Chí Minh, ngày 05 tháng 03 năm 2019'), { place: 'TP. Hồ Chí Minh', date: '05/03/2019' });
    assert.deepEqual(issueLine('Hà Nội, ngày 5 tháng 11 năm 2021'), { place: 'Hà Nội', date: '05/11/2021' });
    assert.deepEqual(issueLine('Hà Nội, ngày 28 thắng 07 năm 2024'), { place: 'Hà Nội', date: '28/07/2024' });
    assert.equal(issueLine('Có giá trị đến: 05/03/2029'), undefined);
  });

  it("reads the PET card's issue line with its English glosses, and its place when the stamp hides the date", () => {
    assert.deepEqual(issueLine('TP. Hồ Chí Minh, ngày/date 14 tháng/month 06 năm/year 2021'), { place: 'TP. Hồ Chí Minh', date: '14/06/2021' });
    assert.deepEqual(issueLine('Cần Thơ, ngày/date07 tháng/month 3 nămyear2016'), { place: 'Cần Thơ', date: '07/03/2016' });
    assert.deepEqual(issueLine('Đà Nẵng, ngày (date) 09 tháng (month) 04 năm (year) 2012'), { place: 'Đà Nẵng', date: '09/04/2012' });
    // Day and month under the stamp: the place is still the line's, the date is not answered.
    assert.deepEqual(issueLine('Hà Nội, ngày (date) ƯWl (ÌRan LỊ năm (year) 2010'), { place: 'Hà Nội', date: undefined });
    // "ngày" lost too: a province, a comma and "năm" with a year still make the line; any other text does not.
    assert.deepEqual(issueLine('TP. Hồ Chí Minh, ca Sp 12 năm/year2020'), { place: 'TP. Hồ Chí Minh', date: undefined });
    assert.deepEqual(issueLine('Cần Thơ, ngày/date 16 tháng/month 05 näm/year 2020'), { place: 'Cần Thơ', date: '16/05/2020' });
    assert.equal(issueLine('Trần Thị Bích, năm 2010'), undefined);
    assert.equal(issueLine('Số 12 đường Ngày Mới'), undefined);
  });

  it('splits a bilingual label glued at its slash, so its Vietnamese half is found', () => {
    const split = splitGlosses([{ text: 'tên/£ui', conf: 80, left: 100, top: 10, width: 70, height: 20 }]);
    assert.deepEqual(
      split.map((w) => [w.text, w.left, w.width]),
      [
        ['tên/', 100, 40],
        ['£ui', 140, 30],
      ],
    );
    // Dates and numbers are not labels.
    assert.deepEqual(
      splitGlosses(words('12/08/1978', '45/67')).map((w) => w.text),
      ['12/08/1978', '45/67'],
    );
  });

  it('answers an older licence number as printed, never as a sure 12-digit one', () => {
    assert.deepEqual(licenceNumber('790123456789'), { value: '790123456789', twelve: true });
    assert.deepEqual(licenceNumber('AB 123456789M'.replace(' ', '')), { value: 'AB123456789M', twelve: false });
    assert.deepEqual(licenceNumber('012345678M'), { value: '012345678M', twelve: false });
    assert.equal(licenceNumber('Full name'), undefined);
  });

  it('is sure of a date or number only when a check confirms it: the province of issue, the term, a second reader', () => {
    const at = (text: string, left: number, top: number): CardWord => ({ text, conf: 95, left, top, width: text.length * 14, height: 22 });
    const page = (id: string, place: string, issued: string, expires: string) => [
      at("GIẤY PHÉP LÁI XE/DRIVER'S LICENSE", 300, 70),
      at('Số/No:', 420, 120),
      at(id, 520, 120),
      at('Ngày', 284, 200),
      at('sinh/Date', 340, 200),
      at('of', 480, 200),
      at('birth:', 520, 200),
      at('12/08/1978', 620, 200),
      at(`${place},`, 300, 300),
      at(`ngày/date ${issued.slice(0, 2)} tháng/month ${issued.slice(3, 5)} năm/year ${issued.slice(6)}`, 450, 300),
      at('Hạng/Class:', 40, 420),
      at('B2', 200, 420),
      at('Có', 40, 480),
      at('giá', 80, 480),
      at('trị', 130, 480),
      at('đến/Expires:', 170, 480),
      at(expires, 360, 480),
    ];
    const front = (ws: CardWord[]) => {
      const f = readFront('dl_pet_front', anchorPage(splitGlosses(ws), modelOf('dl_pet_front')), 'before 2025');
      return Object.fromEntries(Object.entries(f).map(([k, v]) => [k, [v!.value, fieldProbability(v!) >= 80]]));
    };
    // Hà Nội's code is 01, the expiry ten years on the issue day: number, issue date and expiry are sure.
    const sure = front(page('010203040506', 'Hà Nội', '05/03/2015', '05/03/2025'));
    assert.deepEqual(sure.id, ['010203040506', true]);
    assert.deepEqual(sure.place_issue, ['Hà Nội', true]);
    assert.deepEqual(sure.date, ['05/03/2015', true]);
    assert.deepEqual(sure.doe, ['05/03/2025', true]);
    // A date of birth read once is a real date whatever digit was misread: not sure without a second reader.
    assert.deepEqual(sure.dob, ['12/08/1978', false]);
    // Another province's code, an expiry on another day: read, not sure.
    const unsure = front(page('790203040506', 'Hà Nội', '05/03/2015', '28/09/2025'));
    assert.deepEqual(unsure.id, ['790203040506', false]);
    assert.deepEqual(unsure.date, ['05/03/2015', false]);
    assert.deepEqual(unsure.doe, ['28/09/2025', false]);
  });

  it('reads an address whose unit types are abbreviated, and answers them as printed', () => {
    const a = licenceAddress('Ấp Tân Mỹ X. Hòa Lợi, H. Châu Thành, T. Trà Vinh');
    assert.deepEqual([a.ward, a.district, a.province, a.street], ['Hòa Lợi', 'Châu Thành', 'Trà Vinh', 'Ấp Tân Mỹ']);
    assert.equal(a.text.replace(/,/g, ''), 'Ấp Tân Mỹ X. Hòa Lợi H. Châu Thành T. Trà Vinh');
    const b = licenceAddress('Số 5 Lê Lợi, P.Bến Nghé, Q.1, TP. Hồ Chí Minh');
    assert.deepEqual([b.ward, b.district, b.province], ['Bến Nghé', '1', 'Hồ Chí Minh']);
    assert.equal(b.text, 'Số 5 Lê Lợi, P.Bến Nghé, Q.1, TP. Hồ Chí Minh');
    // Type words written out are left as they are.
    assert.equal(licenceAddress('Ấp 3, Xã Hòa Lợi, Huyện Châu Thành, Tỉnh Trà Vinh').text, 'Ấp 3, Xã Hòa Lợi, Huyện Châu Thành, Tỉnh Trà Vinh');
  });

  it("leaves unsure words at a name's ends out: the artwork or the label's end read as a letter", () => {
    const at = (text: string, left: number, conf = 95): CardWord => ({ text, conf, left, top: 200, width: text.length * 14, height: 22 });
    const ws = [
      at("GIẤY PHÉP LÁI XE/DRIVER'S LICENSE", 300),
      at('Họ', 284),
      at('tên/Full', 320),
      at('name:', 440),
      at('Ì', 520, 20),
      at('TRỊNH', 560),
      at('VĂN', 660),
      at('NGHĨA', 730),
    ];
    ws[0] = { ...ws[0], top: 70 };
    assert.equal(readFront('dl_pet_front', anchorPage(splitGlosses(ws), modelOf('dl_pet_front'))).name?.value, 'TRỊNH VĂN NGHĨA');
  });

  it('answers the nationality as printed: "Việt Nam" or "VIỆT NAM"', () => {
    const at = (text: string, left: number, top: number): CardWord => ({ text, conf: 95, left, top, width: text.length * 14, height: 22 });
    const nation = (printed: string) =>
      readFront(
        'dl_pet_front',
        anchorPage(
          splitGlosses([at("GIẤY PHÉP LÁI XE/DRIVER'S LICENSE", 300, 70), at('Quốc', 284, 200), at('tịch/Nationality:', 340, 200), at(printed, 620, 200)]),
          modelOf('dl_pet_front'),
        ),
      ).nation?.value;
    assert.equal(nation('Việt Nam'), 'Việt Nam');
    assert.equal(nation('VIỆT NAM'), 'VIỆT NAM');
    assert.equal(nation('VIET NAM'), 'VIỆT NAM');
  });

  it('tells model and side from the words, and refuses what is not a licence', () => {
    assert.equal(licenceKind(words('GIẤY PHÉP LÁI XE', 'Họ tên:', 'Sinh ngày:')), 'dl_paper_front');
    assert.equal(licenceKind(words("GIẤY PHÉP LÁI XE/DRIVER'S LICENSE", 'Họ tên/Full name:', 'Ngày sinh/Date of birth:')), 'dl_pet_front');
    assert.equal(licenceKind(words('Hạng/Class', 'Xe mô tô hai bánh có dung tích xi lanh')), 'dl_pet_back');
    assert.equal(licenceKind(words('CÁC HẠNG XE ĐƯỢC ĐIỀU KHIỂN', 'Hạng xe', 'Ngày trúng tuyển')), 'dl_paper_back');
    assert.equal(licenceKind(words('CĂN CƯỚC CÔNG DÂN', 'Họ và tên / Full name')), undefined);
    // A PET front whose title glare took: its labels and issuer words only a licence prints.
    assert.equal(licenceKind(words('LAY PHHI', 'Họ tên/ Full name', 'Hạng/Class: A1', 'GIÁM ĐỐC SỞ GTVT')), 'dl_pet_front');
    // A chip card front prints "Full name" and "Date of expiry", neither of them a licence's.
    assert.equal(licenceKind(words('Họ và tên / Full name', 'Có giá trị đến / Date of expiry', 'Nơi thường trú / Place of residence')), undefined);
    // What an upside-down paper front reads as: one back word one letter off ("xianh") is not a licence.
    assert.equal(licenceKind(words('ĐNVH XI ẶN HNẶAH', 'TYL NA ĐNQHL OVi9 Ô8', 'WVN LÄIA VỊHON')), undefined);
  });
});

describe('POST /vision/dlr/vnm', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());
  const post = (parts: Record<string, string | Buffer>) => postForm(`${t.url}/vision/dlr/vnm`, t.apiKey, parts);

  badInputCases(() => t, '/vision/dlr/vnm');

  for (const [i, kind] of LICENCE_SAMPLE_KINDS.entries()) {
    it(`reads a generated ${kind}`, async () => {
      // Seeds of this test only.
      const s = await makeLicenceSample(940_100 + i, kind, { rotation: 3, glare: false, blurSigma: 0, jpegQuality: 88, width: 1400 }, { fonts: TEST_FONTS });
      const { status, body } = await post({ image: s.photo.jpeg });
      assert.equal(status, 200);
      assert.equal(body.errorCode, 0, body.errorMessage);
      const d = body.data[0];
      assert.equal(d.type, s.truth.type);
      let right = 0;
      for (const [f, want] of Object.entries(s.truth.fields)) {
        assert.match(String(d[`${f}_prob`]), d[f] === 'N/A' ? /^N\/A$/ : PROB, `${f}_prob`);
        if (d[f] === want) right++;
        else if (d[f] !== 'N/A') assert.ok(Number(d[`${f}_prob`]) < 80, `${f}: "${d[f]}" wrong at ${d[`${f}_prob`]}`);
      }
      const total = Object.keys(s.truth.fields).length;
      assert.ok(right >= total - 1, `${right} of ${total} fields right`);
      if (kind === 'dl_pet_front' || kind === 'dl_2025_front') assert.equal(d.code, undefined, 'the PET front prints no code');
      if (kind === 'dl_paper_front') assert.equal(d.class, undefined, 'the paper front answers no class');
      if (kind === 'dl_paper_back') {
        assert.deepEqual(d.class, s.truth.classes);
        assert.deepEqual(d.date, s.truth.dates);
        assert.equal((d.class_prob as string[]).length, (d.class as string[]).length);
        for (const p of [...(d.class_prob as string[]), ...(d.date_prob as string[])]) assert.match(p, PROB);
      }
      if (kind === 'dl_pet_back') assert.deepEqual(Object.keys(d).sort(), ['overall_score', 'type']);
    });
  }

  it('3: a face photo, an ID card, too small; 7: not an image; 8: truncated', async () => {
    const face = path.join(import.meta.dirname, '..', '..', 'fixtures', 'face', 'grace_hopper.jpg');
    const cases: Record<string, Buffer> = {
      'ID card': fixture('chip-front.jpg'),
      small: await sharp(fixture('chip-front.jpg')).resize(320).jpeg().toBuffer(),
    };
    if (fs.existsSync(face)) cases.face = fs.readFileSync(face);
    for (const [name, image] of Object.entries(cases)) {
      const r = await post({ image });
      assert.equal(r.body.errorCode, 3, `${name}: ${r.body.errorMessage}`);
      assert.deepEqual(r.body.data, []);
    }
    assert.equal((await post({ image: Buffer.from('plain text, not an image') })).body.errorCode, 7);
    const jpeg = fixture('chip-front.jpg');
    assert.equal((await post({ image: jpeg.subarray(0, Math.floor(jpeg.length / 2)) })).body.errorCode, 8);
    assert.equal((await post({ image_base64: '' })).body.errorCode, 9);
    assert.equal((await postForm(`${t.url}/vision/dlr/vnm`, undefined, { image: jpeg })).status, 401);
  });
});
