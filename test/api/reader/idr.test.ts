/**
 * /vision/idr/vnm end to end: real server, real OpenCV and Tesseract, on the
 * committed synthetic card photos (test/fixtures/reader, made by fixtures/cards/write-test-fixtures.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { startTestApp, type TestApp } from '../../../fixtures/servers/app.js';
import { fixture, postForm, postUrlencoded, truth } from '../../support/reader/helpers.js';

const PROB = /^\d{1,3}\.\d{2}$/;

describe('POST /vision/idr/vnm', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());
  const idr = (parts: Record<string, string | Buffer>, key: string | undefined = t.apiKey) => postForm(`${t.url}/vision/idr/vnm`, key, parts);

  it('reads every field of the chip card front', async () => {
    const { status, body } = await idr({ image: fixture('chip-front.jpg') });
    assert.equal(status, 200);
    assert.equal(body.errorCode, 0, body.errorMessage);
    assert.equal(body.errorMessage, '');
    assert.equal(body.data.length, 1);
    const d = body.data[0];
    const want = truth['chip-front'];
    for (const f of ['id', 'name', 'dob', 'sex', 'nationality', 'home', 'address', 'doe']) {
      assert.equal(d[f], want.fields[f], f);
      assert.match(String(d[`${f}_prob`]), PROB, `${f}_prob`);
    }
    assert.deepEqual(d.address_entities, want.addressEntities);
    assert.equal(d.type, 'chip_front');
    assert.equal(d.type_new, 'cccd_chip_front');
    assert.match(String(d.overall_score), PROB);
    assert.ok(Number(d.id_prob) > 80, `id_prob ${d.id_prob}`);
  });

  it('turns an upside-down card and accepts the trailing-slash path', async () => {
    const { body } = await postForm(`${t.url}/vision/idr/vnm/`, t.apiKey, { image: fixture('chip-front-upside-down.jpg') });
    assert.equal(body.errorCode, 0, body.errorMessage);
    const want = truth['chip-front-upside-down'];
    for (const f of ['id', 'name', 'dob', 'sex', 'doe']) assert.equal(body.data[0][f], want.fields[f], f);
  });

  it('reads the 12-digit card front and the old 9-digit front (sex, nationality, doe N/A)', async () => {
    const a = (await idr({ image: fixture('cccd12-front.jpg') })).body;
    assert.equal(a.errorCode, 0, a.errorMessage);
    assert.equal(a.data[0].type, 'new');
    assert.equal(a.data[0].type_new, 'cccd_12_front');
    for (const f of ['id', 'dob', 'sex', 'doe']) assert.equal(a.data[0][f], truth['cccd12-front'].fields[f], f);
    const b = (await idr({ image: fixture('cmnd09-front.jpg') })).body;
    assert.equal(b.errorCode, 0, b.errorMessage);
    const d = b.data[0];
    assert.equal(d.type, 'old');
    assert.equal(d.type_new, 'cmnd_09_front');
    for (const f of ['id', 'dob', 'home']) assert.equal(d[f], truth['cmnd09-front'].fields[f], f);
    for (const f of ['sex', 'nationality', 'doe']) {
      assert.equal(d[f], 'N/A', f);
      assert.equal(d[`${f}_prob`], 'N/A');
    }
  });

  it('reads the backs: chip card, 12-digit card and old card', async () => {
    const chip = (await idr({ image: fixture('chip-back.jpg') })).body;
    assert.equal(chip.errorCode, 0, chip.errorMessage);
    assert.equal(chip.data[0].type, 'chip_back');
    assert.equal(chip.data[0].issue_date, truth['chip-back'].fields.issue_date);
    // features only with the per-application arrangement (test/system/reader/features.test.ts); off by default.
    assert.equal(chip.data[0].features, 'N/A');
    for (const f of ['religion', 'ethnicity', 'issue_loc']) assert.equal(chip.data[0][f], 'N/A');
    assert.equal(chip.data[0].type_new, undefined);
    assert.equal(chip.data[0].address_entities, undefined);

    const n12 = (await idr({ image: fixture('cmnd12-back.jpg') })).body;
    assert.equal(n12.errorCode, 0, n12.errorMessage);
    assert.equal(n12.data[0].type, 'new_back');
    assert.equal(n12.data[0].issue_date, truth['cmnd12-back'].fields.issue_date);

    const old = (await idr({ image: fixture('cmnd09-back.jpg') })).body;
    assert.equal(old.errorCode, 0, old.errorMessage);
    assert.equal(old.data[0].type, 'old_back');
    for (const f of ['religion', 'ethnicity', 'issue_date', 'issue_loc']) assert.equal(old.data[0][f], truth['cmnd09-back'].fields[f], f);
  });

  it('reads a whole card close to the frame (judged on the refined outline) and a back whose header defeats block and sparse reading', async () => {
    // Refused once with 2: the rough outline put a corner on the bottom edge, 20 px below the card's.
    const near = (await idr({ image: fixture('cccd12-back-near-edge.jpg') })).body;
    assert.equal(near.errorCode, 0, near.errorMessage);
    assert.equal(near.data[0].type, 'new_back');
    assert.equal(near.data[0].issue_date, truth['cccd12-back-near-edge'].fields.issue_date);
    // Refused once with 3: read last with Tesseract's page layout analysis.
    const busy = (await idr({ image: fixture('cmnd09-back-busy-header.jpg') })).body;
    assert.equal(busy.errorCode, 0, busy.errorMessage);
    assert.equal(busy.data[0].type, 'old_back');
    for (const f of ['religion', 'ethnicity', 'issue_date', 'issue_loc']) assert.equal(busy.data[0][f], truth['cmnd09-back-busy-header'].fields[f], f);
  });

  describe('error codes', () => {
    it('1: no api key or a wrong one (HTTP 401), no image, two images, image as text', async () => {
      for (const key of [undefined, 'not-a-key']) {
        const r = await postForm(`${t.url}/vision/idr/vnm`, key, { image: fixture('chip-front.jpg') });
        assert.equal(r.status, 401);
        assert.deepEqual({ ...r.body, errorMessage: '' }, { errorCode: 1, errorMessage: '', data: [] });
      }
      const none = await idr({ face: '1' });
      assert.equal(none.status, 200);
      assert.equal(none.body.errorCode, 1);
      assert.deepEqual(none.body.data, []);
      const empty = await fetch(`${t.url}/vision/idr/vnm`, { method: 'POST', headers: { api_key: t.apiKey } });
      assert.equal(((await empty.json()) as { errorCode: number }).errorCode, 1);
      const two = await idr({ image: fixture('chip-front.jpg'), image_base64: fixture('chip-front.jpg').toString('base64') });
      assert.equal(two.body.errorCode, 1);
      assert.match(two.body.errorMessage, /exactly one/);
      const text = await idr({ image: 'hello' });
      assert.equal(text.body.errorCode, 1);
    });

    it('2: a card running off the edge of the photo, its printed text cut', async () => {
      // The frame cuts through the card's right part, where its values are printed (a card cut off
      // only where nothing is printed is read: test/reader/without-outline.test.ts).
      const photo = fixture('chip-front.jpg');
      const { width, height } = await sharp(photo).metadata();
      const cut = await sharp(photo)
        .extract({ left: 0, top: 0, width: Math.round(width! * 0.6), height: height! })
        .jpeg({ quality: 90 })
        .toBuffer();
      const r = await idr({ image: cut });
      assert.equal(r.status, 200);
      assert.equal(r.body.errorCode, 2, r.body.errorMessage);
      assert.deepEqual(r.body.data, []);
    });

    it('3: no card, too small, too dark, too blurred', async () => {
      const noise = Buffer.alloc(900 * 700 * 3);
      for (let i = 0; i < noise.length; i++) noise[i] = (i * 7919) % 251;
      const cases = {
        'no card': await sharp(noise, { raw: { width: 900, height: 700, channels: 3 } })
          .jpeg()
          .toBuffer(),
        small: await sharp(fixture('chip-front.jpg')).resize(320).jpeg().toBuffer(),
        dark: await sharp(fixture('chip-front.jpg')).linear(0.08, 0).jpeg().toBuffer(),
        blurred: await sharp(fixture('chip-front.jpg')).blur(12).jpeg().toBuffer(),
      };
      for (const [name, image] of Object.entries(cases)) {
        const r = await idr({ image });
        assert.equal(r.status, 200);
        assert.equal(r.body.errorCode, 3, `${name}: ${r.body.errorMessage}`);
      }
    });

    it('5 and 6: image_url empty, unreachable, or pointing at loopback (refused by default)', async () => {
      assert.equal((await idr({ image_url: '' })).body.errorCode, 5);
      assert.equal((await idr({ image_url: '   ' })).body.errorCode, 5);
      const loop = await idr({ image_url: `${t.url}/healthz` });
      assert.equal(loop.body.errorCode, 6);
      assert.match(loop.body.errorMessage, /private|loopback/);
      assert.equal((await idr({ image_url: 'ftp://example.invalid/x.jpg' })).body.errorCode, 6);
    });

    it('7: a file that is not an image', async () => {
      const r = await idr({ image: Buffer.from('just some text, not a picture at all') });
      assert.equal(r.body.errorCode, 7);
    });

    it('8: a truncated JPEG and a corrupt PNG', async () => {
      const jpeg = fixture('chip-front.jpg');
      assert.equal((await idr({ image: jpeg.subarray(0, Math.floor(jpeg.length / 2)) })).body.errorCode, 8);
      const png = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(200, 7)]);
      assert.equal((await idr({ image: png })).body.errorCode, 8);
    });

    it('9 and 10: image_base64 empty or invalid (multipart and form-urlencoded)', async () => {
      assert.equal((await idr({ image_base64: '' })).body.errorCode, 9);
      assert.equal((await postUrlencoded(`${t.url}/vision/idr/vnm`, t.apiKey, { image_base64: '' })).body.errorCode, 9);
      assert.equal((await idr({ image_base64: '%%% not base64 %%%' })).body.errorCode, 10);
      assert.equal((await postUrlencoded(`${t.url}/vision/idr/vnm`, t.apiKey, { image_base64: 'a' })).body.errorCode, 10);
    });

    it('413: an image over 5 MB, as a file or as base64', async () => {
      const big = Buffer.concat([fixture('chip-front.jpg'), Buffer.alloc(5 * 1024 * 1024)]);
      const file = await idr({ image: big });
      assert.equal(file.status, 413);
      assert.equal(file.body.errorCode, 1);
      assert.deepEqual(file.body.data, []);
      const b64 = await postUrlencoded(`${t.url}/vision/idr/vnm`, t.apiKey, { image_base64: big.toString('base64') });
      assert.equal(b64.status, 413);
      assert.equal(b64.body.errorCode, 1);
    });

    it('unknown paths under the service answer in its shape', async () => {
      const res = await fetch(`${t.url}/vision/idr/vnm`, { method: 'GET', headers: { api_key: t.apiKey } });
      assert.equal(res.status, 405);
      const body = (await res.json()) as { errorCode: number; data: unknown[] };
      assert.equal(body.errorCode, 1);
      assert.deepEqual(body.data, []);
    });
  });
});
