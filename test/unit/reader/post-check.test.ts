/**
 * The fraud check's post-check rules (src/reader/post-check.ts), one by one:
 * each case breaks exactly one rule of an otherwise valid card (invented
 * values) and must answer that rule's code, with the guide's message.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ageOn, birthday, idBirthYear, idFormatOk, parseDate, postCheck, POST_CHECK_CODES, type ReadSide } from '../../../src/reader/post-check.js';

const NOW = { day: 25, month: 11, year: 2026 };
/** A man born 15/03/1990 (id: Hà Nội 001, century-and-sex 0, year 90), card issued at 31: valid to his 40th birthday. */
const front = (fields: Record<string, string> = {}, kind: ReadSide['kind'] = 'cccd_chip_front'): ReadSide => ({
  kind,
  fields: {
    id: '001090012345',
    name: 'NGUYỄN VĂN AN',
    dob: '15/03/1990',
    sex: 'Nam',
    nationality: 'Việt Nam',
    home: 'Hà Nội',
    address: 'Hà Nội',
    doe: '15/03/2030',
    ...fields,
  },
});
const back = (fields: Record<string, string> = {}, kind: ReadSide['kind'] = 'cccd_chip_back'): ReadSide => ({
  kind,
  fields: { issue_date: '10/05/2021', features: 'N/A', ...fields },
});
const code = (sides: ReadSide[]) => postCheck(sides, NOW).code;

describe('post-check rules, one at a time', () => {
  it('E00: a valid front, a valid back, and both together pass with an empty message', () => {
    assert.deepEqual(postCheck([front()], NOW), { result: 'Passed', code: 'E00', message: '' });
    assert.equal(code([back()]), 'E00');
    assert.equal(code([front(), back()]), 'E00');
    assert.equal(code([back(), front()]), 'E00', 'either order');
  });

  it('E01: a NULL field (N/A, empty or missing) on one side', () => {
    for (const field of ['id', 'name', 'dob', 'sex', 'nationality', 'home', 'address', 'doe']) {
      assert.equal(code([front({ [field]: 'N/A' })]), 'E01', field);
      assert.equal(code([front({ [field]: ' ' })]), 'E01', field);
    }
    assert.equal(code([back({ issue_date: 'N/A' })]), 'E01');
    // A field the side does not print is not NULL: the 9-digit card has no sex, nationality or expiry.
    assert.equal(code([{ kind: 'cmnd_09_front', fields: { id: '012345678', name: 'A', dob: '15/03/1990', home: 'Hà Nội', address: 'Hà Nội' } }]), 'E00');
  });

  it('E02: id format: 12 digits with a real province code; 9 digits on the 9-digit card', () => {
    assert.equal(code([front({ id: '00109001234' })]), 'E02');
    assert.equal(code([front({ id: '00109001234X' })]), 'E02');
    assert.equal(code([front({ id: '003090012345' })]), 'E02', '003 is no province code');
    assert.equal(code([front({ id: '0010900123456' })]), 'E02');
    assert.equal(idFormatOk('cmnd_09_front', '012345678'), true);
    assert.equal(idFormatOk('cmnd_09_front', '001090012345'), false);
    assert.equal(idFormatOk('cccd_12_front', '079090012345'), true);
  });

  it('E03: dob not dd/mm/yyyy or no calendar date', () => {
    for (const dob of ['1990', '15-03-1990', '31/04/1990', '29/02/1990', '15/13/1990', '5/3/1990']) assert.equal(code([front({ dob })]), 'E03', dob);
    assert.deepEqual(parseDate('29/02/2000'), { day: 29, month: 2, year: 2000 });
  });

  it('E04: dob after today', () => {
    assert.equal(code([front({ dob: '26/11/2026', id: '001226012345' })]), 'E04');
  });

  it('E05: younger than 14 today (the 14th birthday is the first day allowed)', () => {
    assert.equal(code([front({ dob: '26/11/2012', id: '001212012345', doe: '26/11/2037' })]), 'E05');
    assert.equal(code([front({ dob: '25/11/2012', id: '001212012345', doe: '25/11/2037' })]), 'E00');
  });

  it('E06: nationality other than Việt Nam (accents and case aside)', () => {
    assert.equal(code([front({ nationality: 'Lào' })]), 'E06');
    assert.equal(code([front({ nationality: 'VIỆT NAM' })]), 'E00');
  });

  it("E07: the 12-digit id's century digit and year digits against the year of birth", () => {
    assert.equal(code([front({ dob: '15/03/1991' })]), 'E07', 'year digits');
    assert.equal(code([front({ id: '001290012345', dob: '15/03/1990' })]), 'E07', 'century digit 2 is the 2000s');
    assert.equal(idBirthYear('001290012345'), 2090);
    assert.equal(idBirthYear('001305012345'), 2005);
  });

  it("E08: the century-and-sex digit's parity against the printed sex", () => {
    assert.equal(code([front({ sex: 'Nữ' })]), 'E08');
    assert.equal(code([front({ id: '001190012345', sex: 'Nữ' })]), 'E00', 'odd: a woman');
    assert.equal(code([front({ id: '001190012345', sex: 'Nam' })]), 'E08');
    assert.equal(code([front({ sex: 'X' })]), 'E08', 'a sex that is neither');
  });

  it('E09: doe neither a date nor "KHÔNG THỜI HẠN"', () => {
    assert.equal(code([front({ doe: '15/03/20' })]), 'E09');
    assert.equal(code([back({ doe: '32/01/2030' }, 'cccd_2024_back')].map((s) => ({ ...s, fields: { ...s.fields, address: 'Hà Nội', pob: 'Hà Nội' } }))), 'E09');
  });

  it('E10: expired', () => {
    assert.equal(code([front({ doe: '24/11/2026' })]), 'E10');
    assert.equal(code([front({ doe: '25/11/2026' })]), 'E00', 'valid through its last day');
  });

  it('E11: "KHÔNG THỜI HẠN" on a front alone of someone under 58 now', () => {
    assert.equal(code([front({ doe: 'KHÔNG THỜI HẠN' })]), 'E11');
    assert.equal(code([front({ doe: 'Không thời hạn', dob: '15/03/1960', id: '001060012345' })]), 'E00', '66 now');
  });

  it('E12 and E13: issue date format, issue date after today', () => {
    assert.equal(code([back({ issue_date: '10/5/2021' })]), 'E12');
    assert.equal(code([back({ issue_date: '26/11/2026' })]), 'E13');
  });

  it('E15: front and back of different card types', () => {
    assert.equal(code([front(), back({}, 'cccd_12_back')]), 'E15');
    assert.equal(code([front({ id: '012345678' }, 'cmnd_09_front'), back()]), 'E15');
    assert.equal(code([front(), front()]), 'E15', 'two fronts');
    assert.equal(code([back(), back()]), 'E15', 'two backs');
  });

  it('E16: a NULL field on the front when both sides came', () => {
    assert.equal(code([front({ name: 'N/A' }), back()]), 'E16');
  });

  it('E17: younger than 14 on the issue date', () => {
    assert.equal(code([front({ dob: '15/03/2005', id: '001205012345', doe: '15/03/2030' }), back({ issue_date: '14/03/2019' })]), 'E17');
    assert.equal(code([front({ dob: '15/03/2005', id: '001205012345', doe: '15/03/2030' }), back({ issue_date: '15/03/2019' })]), 'E00');
  });

  it('E18: the 12-digit identity card (CMND) runs 15 years from issue', () => {
    const cmnd = (doe: string) => front({ doe }, 'cmnd_12_front');
    assert.equal(code([cmnd('10/05/2031'), back({}, 'cmnd_12_back')]), 'E18');
    assert.equal(code([cmnd('10/05/2036'), back({}, 'cmnd_12_back')]), 'E00');
  });

  it('E19-E21: the citizen card runs to the 25th, 40th or 60th birthday by the age at issue (two years early counts as the next)', () => {
    // Born 15/03/2000 (id digit 2): issued at 20 -> 25th birthday; at 23 -> 40th.
    const young = (doe: string, issued: string) => [front({ dob: '15/03/2000', id: '001200012345', doe }), back({ issue_date: issued })];
    assert.equal(code(young('15/03/2040', '01/06/2020')), 'E19');
    assert.equal(code(young('15/03/2025', '01/06/2020')), 'E10', 'the right 25th birthday, but past: expired');
    assert.equal(code(young('15/03/2040', '15/03/2023')), 'E00', '23 on the issue day: the 40th birthday');
    assert.equal(code(young('15/03/2025', '15/03/2023')), 'E10');
    assert.equal(code([front({ doe: '15/03/2050' }), back()]), 'E20', 'issued at 31: the 40th birthday');
    // Born 15/03/1975: issued at 46 -> 60th birthday.
    const mid = (doe: string) => [front({ dob: '15/03/1975', id: '001075012345', doe }), back({ issue_date: '01/06/2021' })];
    assert.equal(code(mid('15/03/2035')), 'E00');
    assert.equal(code(mid('15/03/2030')), 'E21');
  });

  it('E22: issued at 58 or later: "KHÔNG THỜI HẠN"', () => {
    const old = (doe: string) => [front({ dob: '15/03/1960', id: '001060012345', doe }), back({ issue_date: '01/06/2021' })];
    assert.equal(code(old('KHÔNG THỜI HẠN')), 'E00');
    assert.equal(code(old('15/03/2030')), 'E22');
  });

  it("the 2024 card: its expiry is on the back, and the pair's rules read it there", () => {
    const f: ReadSide = { kind: 'cccd_2024_front', fields: { id: '001090012345', name: 'NGUYỄN VĂN AN', dob: '15/03/1990', sex: 'Nam', nationality: 'Việt Nam' } };
    const b = (doe: string): ReadSide => ({ kind: 'cccd_2024_back', fields: { address: 'Hà Nội', pob: 'Hà Nội', issue_date: '01/07/2024', doe } });
    assert.equal(code([f]), 'E00');
    assert.equal(code([f, b('15/03/2030')]), 'E00');
    assert.equal(code([f, b('15/03/2050')]), 'E20');
  });

  it('failures carry the guide messages; dates and ages count birthdays exactly', () => {
    // The guide's own sample of a failure.
    assert.deepEqual(postCheck([front({ sex: 'Nữ' })], NOW), { result: 'Failed', code: 'E08', message: 'Gender code is not match' });
    assert.equal(postCheck([front({ doe: 'KHÔNG THỜI HẠN' })], NOW).message, POST_CHECK_CODES.E11);
    assert.equal(Object.keys(POST_CHECK_CODES).length, 22, 'E00-E22 without the reserved E14');
    assert.equal(ageOn({ day: 29, month: 2, year: 2000 }, { day: 28, month: 2, year: 2014 }), 13);
    assert.equal(ageOn({ day: 29, month: 2, year: 2000 }, { day: 1, month: 3, year: 2014 }), 14);
    assert.deepEqual(birthday({ day: 29, month: 2, year: 2000 }, 25), { day: 28, month: 2, year: 2025 });
  });
});
