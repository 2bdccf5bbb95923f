/**
 * The TD3 MRZ of any issuing state (pipeline/mrz-td3.ts) on lines written by an independent generator
 * (test/support/reader/td3-page.ts, from ICAO 9303): letters in the number and the optional data, a
 * one-letter state, filler misread in the optional data never vouched for unmended, and a misread check
 * digit that fits a misread part never vouched for when the composite check fails.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { crossValidate } from '../../../src/reader/documents/passport/passport.js';
import { fieldProbability } from '../../../src/reader/pipeline/confidence.js';
import { readTd3 } from '../../../src/reader/pipeline/mrz-td3.js';
import { numberFromPage } from '../../../src/reader/documents/passport/mrz.js';
import { icaoCheck, td3Lines, type Td3Person } from '../../support/reader/td3-page.js';

const UTOPIA: Td3Person = {
  state: 'UTO',
  number: 'L898902C',
  surname: 'ERIKSSON',
  given: ['ANNA', 'MARIA'],
  birth: '740812',
  expiry: '120415',
  sex: 'F',
  optional: 'ZE184226B',
};
const GERMAN: Td3Person = { state: 'D', number: 'C01X00T47', surname: 'MUSTERFRAU', given: ['LENA'], birth: '830812', expiry: '310101', sex: 'F', optional: '' };

describe('ICAO check digits (the generator)', () => {
  it("gives ICAO 9303's published example values", () => {
    // ICAO 9303 part 3's worked examples: the document number L898902C3 (check 6) and the date 740812 (check 2).
    assert.equal(icaoCheck('L898902C3'), '6');
    assert.equal(icaoCheck('740812'), '2');
    assert.equal(icaoCheck('<<<<'), '0');
  });
});

describe('TD3 MRZ of any issuing state', () => {
  it('reads a number and optional data holding letters, and a one-letter state', () => {
    for (const p of [UTOPIA, GERMAN]) {
      const r = readTd3(td3Lines(p))!;
      assert.equal(r.valid, true, p.state);
      assert.equal(r.passportNumber, p.number);
      assert.equal(r.issuer, p.state);
      assert.equal(r.nationality, p.state);
      assert.equal(r.dob, `${p.birth.slice(4)}/${p.birth.slice(2, 4)}/19${p.birth.slice(0, 2)}`);
      assert.equal(r.doe, `${p.expiry.slice(4)}/${p.expiry.slice(2, 4)}/20${p.expiry.slice(0, 2)}`);
      assert.equal(r.nameAscii, [p.surname, ...p.given].join(' '));
      assert.equal(r.personalOk, true);
      assert.equal(r.compositeOk, true);
    }
  });

  it('never vouches for optional data with filler misread as C: mended by its check digit or not ok', () => {
    const [l1, l2] = td3Lines(UTOPIA);
    // (K for '<' cannot be told by any check digit: K is worth 20, nothing modulo 10.)
    const misread = l2.slice(0, 37) + 'C' + l2.slice(38);
    const r = readTd3([l1, misread])!;
    if (r.personalOk) assert.equal(r.lines[1], l2);
    else assert.equal(r.valid, false);
    // The parts with their own passing check digits still read.
    assert.equal(r.passportNumber, UTOPIA.number);
    assert.equal(r.dobOk, true);
  });

  it('reads a lone K between fillers in the name as filler', () => {
    const [l1, l2] = td3Lines(GERMAN);
    const r = readTd3([l1.replace('<<LENA', '<K<LENA').slice(0, 44), l2])!;
    assert.equal(r.nameAscii, 'MUSTERFRAU LENA');
  });

  it('never vouches for a number whose misread check digit fits it when the composite check fails', () => {
    const p = { ...UTOPIA, number: '00700700' };
    const [l1, l2] = td3Lines(p);
    // A leading 0 read as 9 and the number's check digit read to fit it: the number's own check passes.
    const wrongNumber = '90700700';
    const misread = wrongNumber + '<' + icaoCheck(wrongNumber + '<') + l2.slice(10);
    const r = readTd3([l1, misread])!;
    assert.equal(r.passportNumber, wrongNumber);
    assert.equal(r.numberOk, true);
    assert.equal(r.compositeOk, false);
    const fields = {};
    crossValidate(fields, r, []);
    const got = (fields as Record<string, { value: string; conf: number; valid?: boolean }>).passport_number;
    assert.equal(got.value, wrongNumber);
    assert.ok(fieldProbability(got) < 80, `answered at ${fieldProbability(got)}`);
    // The same number read right is vouched for.
    const right = {};
    crossValidate(right, readTd3([l1, l2])!, []);
    assert.ok(fieldProbability((right as Record<string, { value: string; conf: number; valid?: boolean }>).passport_number) >= 95);
  });

  it('settles an unvouched number by the page printing it, and only by an unambiguous print', () => {
    const right = readTd3(td3Lines(UTOPIA))!;
    const rival = readTd3(td3Lines({ ...UTOPIA, number: 'L89B9O2C' }))!;
    const page = (n: string) => [{ text: 'Passport No.' }, { text: n }, { text: 'ERIKSSON' }];
    assert.equal(numberFromPage(rival, right, page('L898902C')), 'L898902C');
    assert.equal(numberFromPage(right, rival, page('L898902C')), 'L898902C');
    // Printed with a space, as some issuers do.
    assert.equal(numberFromPage(rival, right, [{ text: 'L898' }, { text: '902C' }]), 'L898902C');
    assert.equal(numberFromPage(right, rival, page('X0000000')), undefined);
    assert.equal(numberFromPage(right, undefined, []), undefined);
  });
});
