/**
 * A chip back's issue date against its MRZ: the card runs to the 25th, 40th or 60th birthday by the holder's age
 * at issue, so the MRZ's dates of birth and expiry rule out issue dates a misread year or another field gives.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CHIP_CARD_MILESTONES, crossCheckMrz, issuedForExpiry, readMrz, writeMrz } from '../../../src/reader/pipeline/mrz.js';
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
