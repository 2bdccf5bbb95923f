/**
 * A chip back's issue date against its MRZ: the card runs to the 25th, 40th or 60th birthday by the holder's age
 * at issue, so the MRZ's dates of birth and expiry rule out issue dates a misread year or another field gives.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CHIP_CARD_MILESTONES, crossCheckMrz, expiryByLaw, issuedForExpiry, readMrz, writeMrz } from '../../../src/reader/pipeline/mrz.js';
import { fieldProbability } from '../../../src/reader/pipeline/confidence.js';
import { parseDate } from '../../../src/reader/post-check.js';

const date = (s: string) => parseDate(s)!;

describe('chip back issue date against the MRZ', () => {
  it('accepts an issue at an age that runs to the expiry printed, within two years of the milestone either way', () => {
    const dob = date('15/06/1990');
    // To the 40th birthday: issued from 23 (two years before 25) to just before 40.
    assert.equal(issuedForExpiry('20/03/2021', dob, date('15/06/2030'), CHIP_CARD_MILESTONES), true);
    assert.equal(issuedForExpiry('01/01/2014', dob, date('15/06/2030'), CHIP_CARD_MILESTONES), true);
    // To the 25th: issued from 14.
    assert.equal(issuedForExpiry('10/10/2005', dob, date('15/06/2015'), CHIP_CARD_MILESTONES), true);
  });

  it('rejects an issue date a decade off, before the holder was 14, or after the expiry', () => {
    const dob = date('15/06/1990');
    const doe = date('15/06/2030');
    assert.equal(issuedForExpiry('20/03/2011', dob, doe, CHIP_CARD_MILESTONES), false);
    assert.equal(issuedForExpiry('20/03/2003', dob, date('15/06/2015'), CHIP_CARD_MILESTONES), false);
    assert.equal(issuedForExpiry('20/03/2031', dob, doe, CHIP_CARD_MILESTONES), false);
    assert.equal(issuedForExpiry('not a date', dob, doe, CHIP_CARD_MILESTONES), false);
    // An expiry on no milestone birthday: nothing to check against.
    assert.equal(issuedForExpiry('20/03/2011', dob, date('01/01/2030'), CHIP_CARD_MILESTONES), true);
  });

  it("lowers a chip back's issue date the MRZ rules out, and leaves one it allows", () => {
    const mrz = readMrz(writeMrz({ id: '001090012345', dob: '15/06/1990', doe: '15/06/2030', sex: 'NAM', nameAscii: 'NGUYEN VAN AN' }))!;
    const wrong = { issue_date: { value: '20/03/2011', conf: 95, valid: true } };
    assert.deepEqual(crossCheckMrz(wrong, mrz, [], CHIP_CARD_MILESTONES), { issue_date: 'contradicted' });
    assert.ok(fieldProbability(wrong.issue_date) < 80);
    const right = { issue_date: { value: '20/03/2021', conf: 95, valid: true } };
    assert.deepEqual(crossCheckMrz(right, mrz, [], CHIP_CARD_MILESTONES), {});
    assert.ok(fieldProbability(right.issue_date) >= 95);
    // Without the milestones (another card model), only an issue date equal to the expiry is ruled out.
    assert.deepEqual(crossCheckMrz({ issue_date: { value: '20/03/2011', conf: 95 } }, mrz), {});
  });
});

describe('a chip card’s expiry from its issue date', () => {
  const dob = date('15/06/1990');
  const at = (issued: string) => {
    const d = expiryByLaw(dob, issued, CHIP_CARD_MILESTONES);
    return d && `${d.day}/${d.month}/${d.year}`;
  };
  it('runs to the first milestone birthday the holder was more than two years short of', () => {
    assert.equal(at('10/10/2005'), '15/6/2015', 'issued at 15: the 25th birthday');
    assert.equal(at('14/06/2013'), '15/6/2015', 'the day before the 23rd birthday');
    assert.equal(at('15/06/2013'), '15/6/2030', 'on the 23rd birthday: the 40th');
    assert.equal(at('20/03/2021'), '15/6/2030');
    assert.equal(at('20/03/2029'), '15/6/2050', 'issued at 38: the 60th');
  });
  it('has none after the last such age, nor for an issue date that is no date', () => {
    assert.equal(at('15/06/2048'), undefined, 'issued at 58: valid for life');
    assert.equal(at('31/02/2021'), undefined);
  });
});
