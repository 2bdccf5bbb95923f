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
import { issueLine, licenceEra, licenceKind, modelOf, normaliseClass, readFront } from '../../../src/reader/documents/licence/licence.js';
import { provincePlace } from '../../../src/reader/province.js';
import type { CardWord } from '../../../src/reader/pipeline/anchors.js';
import { startTestApp, type TestApp } from '../../../fixtures/servers/app.js';
import { badInputCases } from '../../support/reader/bad-input.js';
import { fixture, postForm, TEST_FONTS } from '../../support/reader/helpers.js';

const PROB = /^\d{1,3}\.\d{2}$/;
const words = (...texts: string[]): CardWord[] => texts.map((text, i) => ({ text, conf: 90, left: 10, top: i * 40, width: 100, height: 20 }));

describe('licence validation', () => {
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

  it('tells model and side from the words, and refuses what is not a licence', () => {
    assert.equal(licenceKind(words('GIẤY PHÉP LÁI XE', 'Họ tên:', 'Sinh ngày:')), 'dl_paper_front');
    assert.equal(licenceKind(words("GIẤY PHÉP LÁI XE/DRIVER'S LICENSE", 'Họ tên/Full name:', 'Ngày sinh/Date of birth:')), 'dl_pet_front');
    assert.equal(licenceKind(words('Hạng/Class', 'Xe mô tô hai bánh có dung tích xi lanh')), 'dl_pet_back');
    assert.equal(licenceKind(words('CÁC HẠNG XE ĐƯỢC ĐIỀU KHIỂN', 'Hạng xe', 'Ngày trúng tuyển')), 'dl_paper_back');
    assert.equal(licenceKind(words('CĂN CƯỚC CÔNG DÂN', 'Họ và tên / Full name')), undefined);
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
