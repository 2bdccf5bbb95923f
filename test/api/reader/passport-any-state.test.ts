/**
 * POST /vision/passport/vnm on generated data pages of another state (test/support/reader/td3-page.ts:
 * English labels only, letters in the number), photographed upright and turned by 90, 180 and 270
 * degrees: the MRZ is found in the photo, read and cross-checked, whatever the page's words say.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../../../fixtures/servers/app.js';
import { postForm } from '../../support/reader/helpers.js';
import { td3PagePhoto, type Td3Person } from '../../support/reader/td3-page.js';

const PERSON: Td3Person = {
  state: 'UTO',
  number: 'X4K79B21',
  surname: 'OKONKWO',
  given: ['ADA', 'CHIOMA'],
  birth: '880214',
  expiry: '310930',
  sex: 'F',
  optional: 'ZB4471<19',
};

describe('POST /vision/passport/vnm, another state, any quarter turn', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());

  for (const turns of [0, 1, 3]) {
    it(`reads the MRZ's fields of a page turned by ${turns * 90} degrees`, async () => {
      const image = await td3PagePhoto(PERSON, { turns });
      const { status, body } = await postForm(`${t.url}/vision/passport/vnm`, t.apiKey, { image });
      assert.equal(status, 200);
      assert.equal(body.errorCode, 0, body.errorMessage);
      const d = body.data[0];
      assert.equal(d.type, 'passport');
      const want: Record<string, string> = { passport_number: 'X4K79B21', dob: '14/02/1988', doe: '30/09/2031', sex: 'NỮ', nationality: 'UTO' };
      for (const [f, v] of Object.entries(want)) {
        // Right, or unsure: never a confident wrong value.
        if (d[f] === v) continue;
        assert.ok(d[f] === 'N/A' || Number(d[`${f}_prob`]) < 80, `${f}: "${d[f]}" at ${d[`${f}_prob`]}`);
      }
      assert.equal(d.dob, want.dob);
      assert.equal(d.doe, want.doe);
      assert.equal(d.passport_number, want.passport_number);
      // The name has no check digit: the MRZ's letters, unsure.
      assert.equal(d.name, 'OKONKWO ADA CHIOMA');
      assert.ok(Number(d.name_prob) < 80);
    });
  }
});
