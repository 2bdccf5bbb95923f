/**
 * /vision/idr/vnm on a generated card its outline does not give away: turned by 270 degrees, a sixth of the photo,
 * on sensor noise with blotches (fixtures/cards/scenes.ts). The reader finds it by its text and reads it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { makeSample } from '../../../fixtures/cards/synth.js';
import { placedOn } from '../../../fixtures/cards/scenes.js';
import { startTestApp, type TestApp } from '../../../fixtures/servers/app.js';
import { seededRandom } from '../../../src/platform/random.js';
import { postForm } from '../../support/reader/helpers.js';

describe('POST /vision/idr/vnm, a card found by its text', () => {
  let t: TestApp;
  before(async () => {
    // Two readings and a detector run over the photo: on a busy shared machine that can outlast the pool's default
    // task limit, which is about load, not this behaviour (speed is measured by the evaluations).
    t = await startTestApp({ env: { SAOLA_POOL_TIMEOUT_MS: '600000' } });
  });
  after(async () => t.close());

  it('reads the 2024 card turned by 270 degrees on a blotchy background', async () => {
    const s = await makeSample(390_106, 'cccd_2024_front');
    const photo = await placedOn(seededRandom(390_106), s.flat, 600, 270, 'noise', 1 / 6);
    const { status, body } = await postForm(`${t.url}/vision/idr/vnm`, t.apiKey, { image: photo });
    assert.equal(status, 200);
    assert.equal(body.errorCode, 0, body.errorMessage);
    assert.equal(body.data[0].type_new, 'cccd_2024_front');
    assert.equal(body.data[0].id, s.truth.fields.id);
    assert.equal(body.data[0].dob, s.truth.fields.dob);
  });
});
