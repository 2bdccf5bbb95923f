/**
 * Passports: the TD3 MRZ (check digits, corrections a check digit proves and
 * none it does not), cross-validation of the visual zone, and
 * POST /vision/passport/vnm end to end on generated, photographed data pages
 * (fixtures/documents/variation.ts) with bad input of every kind.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { makePassportSample } from '../../../fixtures/documents/variation.js';
import { nameBand, nameFromZones } from '../../../src/reader/documents/passport/name.js';
import { crossValidate, matchProvince, nameLine, valueLine, type PassportField } from '../../../src/reader/documents/passport/passport.js';
import type { LabelHit } from '../../../src/reader/pipeline/anchors.js';
import { fieldProbability } from '../../../src/reader/pipeline/confidence.js';
import { checkDigit } from '../../../src/reader/pipeline/mrz.js';
import { readTd3, writeTd3 } from '../../../src/reader/pipeline/mrz-td3.js';
import { startTestApp, type TestApp } from '../../../fixtures/servers/app.js';
import { badInputCases } from '../../support/reader/bad-input.js';
import { fixture, postForm, TEST_FONTS } from '../../support/reader/helpers.js';

const PROB = /^\d{1,3}\.\d{2}$/;
const PAGE = { passportNumber: 'C1234567', nameAscii: 'NGUYEN VAN AN', dob: '05/03/1990', doe: '01/02/2032', sex: 'NAM' as const, idNumber: '001090012345' };

describe('TD3 MRZ', () => {
  it('writes and reads back every field with passing check digits', () => {
    const lines = writeTd3(PAGE);
    assert.equal(lines[0].length, 44);
    assert.equal(lines[1].length, 44);
    const r = readTd3(lines)!;
    assert.equal(r.valid, true);
    assert.equal(r.passportNumber, 'C1234567');
    assert.equal(r.dob, '05/03/1990');
    assert.equal(r.doe, '01/02/2032');
    assert.equal(r.sex, 'NAM');
    assert.equal(r.nameAscii, 'NGUYEN VAN AN');
    assert.equal(r.personalNumber, '001090012345');
    assert.deepEqual(r.corrections, []);
  });

  it('corrects a misread digit only where the check digit proves it', () => {
    const [l1, l2] = writeTd3(PAGE);
    // Birth date 900305 read as 900805 (a 3 taken for an 8): the date's check digit fails, and of the
    // confusable substitutions only the true one passes it.
    const bad = l2.slice(0, 16) + '8' + l2.slice(17);
    assert.notEqual(checkDigit(bad.slice(13, 19)), bad[19]);
    const r = readTd3([l1, bad])!;
    assert.equal(r.dob, '05/03/1990');
    assert.equal(r.dobOk, true);
    assert.deepEqual(r.corrections, [{ index: 16, from: '8', to: '3' }]);
    assert.equal(r.valid, true);
  });

  it('turns letters in digit positions into digits, and filler read as K back into filler', () => {
    const [l1, l2] = writeTd3(PAGE);
    const r = readTd3([l1.replace(/<{6}$/, 'KKKKKK'), l2.replace('C1234567', 'C12345G7').replace('900305', '9OO3O5')])!;
    assert.equal(r.passportNumber, 'C1234567');
    assert.equal(r.dob, '05/03/1990');
    assert.equal(r.nameAscii, 'NGUYEN VAN AN');
    assert.equal(r.valid, true);
  });

  it('leaves a part whose check digit fails and no single fix passes uncorrected and not ok', () => {
    const [l1, l2] = writeTd3(PAGE);
    // Two digits of the expiry changed: no single substitution restores it.
    const bad = l2.slice(0, 21) + '4' + '7' + l2.slice(23);
    const r = readTd3([l1, bad])!;
    assert.equal(r.doeOk, false);
    assert.equal(r.valid, false);
  });

  it('reads a short name line whose filler OCR dropped', () => {
    const [l1, l2] = writeTd3({ ...PAGE, nameAscii: 'HO NGOC TAM' });
    const r = readTd3([l1.replace(/<+$/, '<<'), l2])!;
    assert.equal(r.nameAscii, 'HO NGOC TAM');
    assert.equal(r.valid, true);
  });

  it('ends a name in C with its C (filler read as C or K after it is still filler)', () => {
    const [l1, l2] = writeTd3({ ...PAGE, nameAscii: 'DANG MINH PHUC' });
    assert.equal(readTd3([l1, l2])!.nameAscii, 'DANG MINH PHUC');
    assert.equal(readTd3([l1.replace(/<{8}$/, 'KKCKKCKK'), l2])!.nameAscii, 'DANG MINH PHUC');
  });

  it('undoes a character OCR added (0 read as "OQ") when exactly one nearest line then passes every check', () => {
    const page = { ...PAGE, passportNumber: 'B0657292', dob: '17/07/2005', idNumber: undefined };
    const [l1, l2] = writeTd3(page);
    const added = l2.slice(0, 1) + 'OQ' + l2.slice(2);
    assert.equal(added.length, 45);
    const r = readTd3([l1, added])!;
    assert.equal(r.valid, true);
    assert.equal(r.lines[1], l2);
    assert.equal(r.passportNumber, 'B0657292');
    assert.deepEqual(r.corrections[0], { index: 2, from: 'Q', to: '' });
    // The same line cut at 44 (its composite check digit lost) proves nothing: left as read, not valid.
    assert.equal(readTd3([l1, added.slice(0, 44)])!.valid, false);
  });

  it("takes a check digit read as '<' only when the composite check digit then passes", () => {
    const [l1, l2] = writeTd3(PAGE);
    const lost = l2.slice(0, 19) + '<' + l2.slice(20);
    const r = readTd3([l1, lost])!;
    assert.equal(r.dobOk, true);
    assert.equal(r.valid, true);
    assert.ok(r.corrections.some((c) => c.index === 19 && c.from === '<'));
    // With the composite unreadable too, nothing vouches for the digit.
    const both = lost.slice(0, 43) + '<';
    assert.equal(readTd3([l1, both])!.dobOk, false);
  });

  it('finds no MRZ in text without two long lines', () => {
    assert.equal(readTd3(['HO CHIEU', 'PASSPORT']), undefined);
  });
});

describe('passport cross-validation', () => {
  it('confirms equal values, replaces a contradicted date from the MRZ, and never vouches for accents', () => {
    const mrz = readTd3(writeTd3(PAGE))!;
    const fields: Parameters<typeof crossValidate>[0] = {
      passport_number: { value: 'C1234567', conf: 80 },
      dob: { value: '05/08/1990', conf: 90 },
      name: { value: 'NGUYỄN VĂN AN', conf: 95 },
    };
    crossValidate(fields, mrz);
    assert.equal(fields.passport_number?.valid, true);
    assert.equal(fields.dob?.value, '05/03/1990');
    assert.equal(fields.dob?.valid, true);
    assert.equal(fields.name?.value, 'NGUYỄN VĂN AN');
    assert.notEqual(fields.name?.valid, true);
    assert.equal(fields.id_number?.value, '001090012345');
    assert.equal(fields.nationality?.value, 'VIỆT NAM');
    // Another name altogether: the MRZ's bare letters, unsure. A letter apart at the same place (the
    // name has no check digit: either may be misread) keeps the page's word, unsure too.
    const wrong: Parameters<typeof crossValidate>[0] = { name: { value: 'TRẦN THỊ BÌNH', conf: 95 } };
    crossValidate(wrong, mrz);
    assert.equal(wrong.name?.value, 'NGUYEN VAN AN');
    assert.equal(wrong.name?.invalid, true);
    assert.ok(fieldProbability(wrong.name!) < 50);
    const near: Parameters<typeof crossValidate>[0] = { name: { value: 'NGUYỄN VĂN ANH', conf: 95 } };
    crossValidate(near, mrz);
    assert.equal(near.name?.value, 'NGUYỄN VĂN ANH');
    assert.equal(near.name?.invalid, true);
    assert.ok(fieldProbability(near.name!) <= 45);
  });

  it('builds the name word by word: letters from the MRZ, marks from the readings that support them', () => {
    const w = (...texts: string[]) => texts.map((text) => ({ text, conf: 90 }));
    // The band's reading lost a word's marks, the page's reading has them: marks win over none.
    const both = nameFromZones([w('HỒ', 'KIM', 'KHANH', 'UYÊN'), w('HỒ', 'KIM', 'KHÁNH')], 'HO KIM KHANH UYEN')!;
    assert.equal(both.value, 'HỒ KIM KHÁNH UYÊN');
    assert.notEqual(both.invalid, true);
    assert.ok(fieldProbability(both) <= 75, 'the MRZ vouches for letters, not marks');
    // A garbled reading: the words it supports keep their marks, the rest are the MRZ's bare letters, unsure.
    const rebuilt = nameFromZones([w('ĐẶNG', 'MLNH')], 'DANG MINH PHUC')!;
    assert.equal(rebuilt.value, 'ĐẶNG MINH PHUC');
    assert.equal(rebuilt.invalid, true);
    assert.ok(fieldProbability(rebuilt) <= 45);
    // No reading at all: the MRZ's letters, low.
    const bare = nameFromZones([], 'VO QUOC MINH TRUNG')!;
    assert.equal(bare.value, 'VO QUOC MINH TRUNG');
    assert.ok(fieldProbability(bare) < 40);
    // No MRZ: the best reading, unconfirmed (a known family name gets its marks back).
    const alone = nameFromZones([w('NGUYEN', 'THỊ', 'YẾN')], undefined)!;
    assert.equal(alone.value, 'NGUYỄN THỊ YẾN');
    assert.ok(fieldProbability(alone) <= 75);
    // The label's words never stand in for the name's (the band holds the label's line too).
    assert.deepEqual(
      nameLine([
        { text: 'Họ', line: 'a', height: 14 },
        { text: 'và', line: 'a', height: 14 },
        { text: 'tên/Full', line: 'a', height: 16 },
        { text: 'name', line: 'a', height: 14 },
        { text: 'VÕ', line: 'b', height: 12 },
        { text: 'MỸ', line: 'b', height: 12 },
      ]).map((x) => x.text),
      ['VÕ', 'MỸ'],
    );
  });

  it("takes a second reading's value from the line under its label's, never the label's", () => {
    const w = (text: string, line: string, top: number) => ({ text, line, top });
    const band = [
      w('Nơi', 'a', 5),
      w('sinh/Place', 'a', 5),
      w('of', 'a', 5),
      w('birth', 'a', 5),
      w('Hà', 'b', 30),
      w('Tĩnh', 'b', 30),
      w('Số', 'c', 60),
      w('định', 'c', 60),
      w('danh/Personal', 'c', 60),
    ];
    assert.deepEqual(
      valueLine(band).map((x) => x.text),
      ['Hà', 'Tĩnh'],
    );
    // The label read garbled ("sinhh", "búrth") is still the label.
    assert.deepEqual(
      valueLine([w('Nơi', 'a', 5), w('sinhh/Place', 'a', 5), w('of', 'a', 5), w('búrth', 'a', 5), w('Sơn', 'b', 30), w('La', 'b', 30)]).map((x) => x.text),
      ['Sơn', 'La'],
    );
  });

  it("finds the name's band from its label, or from the nationality label when the name's is lost", () => {
    const hit = (field: PassportField, x: number, y: number, h = 14): LabelHit<PassportField> => ({ field, label: field, segment: 0, start: 0, end: 1, distance: 0, box: { x, y, w: 120, h } });
    const keys: { name: PassportField; nationality: PassportField; dob: PassportField; column: PassportField[] } = { name: 'name', nationality: 'nationality', dob: 'dob', column: ['sex', 'doi'] };
    // The name's label read late (glued to the name's first word): the column's left edge is the other labels'.
    const a = nameBand([hit('name', 390, 170), hit('nationality', 280, 226), hit('dob', 281, 282), hit('sex', 280, 336)], keys)!;
    assert.ok(a.x < 280 && a.x > 260, `left ${a.x}`);
    assert.equal(a.y, 167);
    assert.equal(a.y + a.h, 225);
    const b = nameBand([hit('nationality', 280, 226), hit('dob', 281, 282)], keys)!;
    assert.ok(Math.abs(b.y - (226 - 56 + 3)) < 1 && Math.abs(b.y + b.h - 225) < 1, JSON.stringify(b));
    assert.equal(nameBand([hit('pob', 540, 282)], keys), undefined);
  });

  it('matches places of birth against the gazetteer', () => {
    assert.equal(matchProvince('Bắc Giang'), 'Bắc Giang');
    assert.equal(matchProvince('Thành phố Hà Nội'), 'Hà Nội');
    assert.equal(matchProvince('Paris'), undefined);
  });
});

describe('POST /vision/passport/vnm', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());
  const post = (parts: Record<string, string | Buffer>, key: string | undefined = t.apiKey) => postForm(`${t.url}/vision/passport/vnm`, key, parts);

  badInputCases(() => t, '/vision/passport/vnm');

  for (const seed of [930_001, 930_002]) {
    it(`reads every field of a generated data page (seed ${seed}), wrong values never confident`, async () => {
      const s = await makePassportSample(seed, { rotation: 4, glare: false, blurSigma: 0, jpegQuality: 88, width: 1400 }, { fonts: TEST_FONTS });
      const { status, body } = await post({ image: s.photo.jpeg });
      assert.equal(status, 200);
      assert.equal(body.errorCode, 0, body.errorMessage);
      const d = body.data[0];
      let right = 0;
      for (const [f, want] of Object.entries(s.truth.fields)) {
        assert.match(String(d[`${f}_prob`]), d[f] === 'N/A' ? /^N\/A$/ : PROB, `${f}_prob`);
        if (d[f] === want) right++;
        else if (d[f] !== 'N/A') assert.ok(Number(d[`${f}_prob`]) < 80, `${f}: "${d[f]}" wrong at ${d[`${f}_prob`]}`);
      }
      // The MRZ's fields come with passing check digits.
      for (const f of ['passport_number', 'dob', 'doe', 'sex']) {
        assert.equal(d[f], s.truth.fields[f as keyof typeof s.truth.fields], f);
        assert.ok(Number(d[`${f}_prob`]) >= 90, `${f}_prob ${d[`${f}_prob`]}`);
      }
      assert.ok(right >= 7, `${right} of 9 fields right`);
      assert.equal(d.type, 'passport');
    });
  }

  it('turns an upside-down page and accepts the trailing slash', async () => {
    const s = await makePassportSample(930_003, { rotation: 182, glare: false, blurSigma: 0, jpegQuality: 90, width: 1400 }, { fonts: TEST_FONTS });
    const { body } = await postForm(`${t.url}/vision/passport/vnm/`, t.apiKey, { image: s.photo.jpeg });
    assert.equal(body.errorCode, 0, body.errorMessage);
    assert.equal(body.data[0].passport_number, s.truth.fields.passport_number);
  });

  it('1: no key (401) and no image', async () => {
    for (const key of [undefined, 'not-a-key']) {
      const r = await postForm(`${t.url}/vision/passport/vnm`, key, { image: fixture('chip-front.jpg') });
      assert.equal(r.status, 401);
      assert.equal(r.body.errorCode, 1);
    }
    assert.equal((await post({ face: '0' })).body.errorCode, 1);
  });

  it('3: too small, a face photo instead of a document, an ID card', async () => {
    const s = await makePassportSample(930_004, { rotation: 2, glare: false, blurSigma: 0, width: 1300 }, { fonts: TEST_FONTS });
    const face = path.join(import.meta.dirname, '..', '..', 'fixtures', 'face', 'grace_hopper.jpg');
    const cases: Record<string, Buffer> = {
      small: await sharp(s.photo.jpeg).resize(320).jpeg().toBuffer(),
      'ID card': fixture('chip-front.jpg'),
    };
    if (fs.existsSync(face)) cases.face = fs.readFileSync(face);
    else
      cases.face = await sharp({ create: { width: 900, height: 700, channels: 3, background: '#c8a080' } })
        .jpeg()
        .toBuffer();
    for (const [name, image] of Object.entries(cases)) {
      const r = await post({ image });
      assert.equal(r.status, 200);
      assert.equal(r.body.errorCode, 3, `${name}: ${r.body.errorMessage}`);
      assert.deepEqual(r.body.data, []);
    }
  });

  it('both document endpoints are in the OpenAPI reference', async () => {
    const doc = (await (await fetch(`${t.url}/docs/openapi.json`)).json()) as { paths: Record<string, { post?: unknown }> };
    assert.ok(doc.paths['/vision/passport/vnm']?.post, 'passport documented');
    assert.ok(doc.paths['/vision/dlr/vnm']?.post, 'licence documented');
  });

  it('2: a page running off the edge of the photo; 6: an image_url that cannot be opened', async () => {
    const s = await makePassportSample(930_005, { rotation: 2, glare: false, blurSigma: 0, width: 1400, cardFraction: 0.8 }, { fonts: TEST_FONTS });
    // Cut the photo through the page's left part: its outline leaves the frame, its words still say passport.
    const left = Math.round((s.photo.corners[0].x + s.photo.corners[1].x) / 2 - 0.15 * (s.photo.corners[1].x - s.photo.corners[0].x));
    const cut = await sharp(s.photo.jpeg)
      .extract({ left, top: 0, width: s.photo.width - left, height: s.photo.height })
      .jpeg()
      .toBuffer();
    const r = await post({ image: cut });
    assert.equal(r.body.errorCode, 2, r.body.errorMessage);
    assert.equal((await post({ image_url: 'ftp://example.invalid/x.jpg' })).body.errorCode, 6);
  });

  it('5, 7, 8, 9, 10: empty URL, not an image, truncated, empty or invalid base64', async () => {
    assert.equal((await post({ image_url: '' })).body.errorCode, 5);
    assert.equal((await post({ image: Buffer.from('%PDF-1.4 not an image at all') })).body.errorCode, 7);
    const jpeg = fixture('chip-front.jpg');
    assert.equal((await post({ image: jpeg.subarray(0, Math.floor(jpeg.length / 2)) })).body.errorCode, 8);
    assert.equal((await post({ image_base64: '' })).body.errorCode, 9);
    assert.equal((await post({ image_base64: '@@@not base64@@@' })).body.errorCode, 10);
  });
});
