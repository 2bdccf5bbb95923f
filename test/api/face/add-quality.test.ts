import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { startTestApp, type TestApp } from '../../../fixtures/servers/app.js';
import { analyze } from '../../../src/face/engine/worker.js';
import { loadFaceConfig } from '../../../src/face/config.js';
import { fixture } from '../../../fixtures/faces/photos.js';

const S = '/dmp/facesearch/v2';

async function post(app: TestApp, path: string, fields: Record<string, string>, file: Buffer) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([new Uint8Array(file)], { type: 'image/jpeg' }), 'photo.jpg');
  const res = await fetch(app.url + path, { method: 'POST', headers: { api_key: app.apiKey }, body: form });
  return (await res.json()) as { code: string; data: unknown };
}

async function quality(image: Buffer): Promise<number> {
  const r = await analyze({ image, detectThreshold: 0.7, checkCard: false });
  assert.ok(r.ok && r.primary, 'the face is found');
  return r.primary.quality;
}

describe('face search add: the quality gate (SAOLA_FACE_MIN_ADD_QUALITY)', () => {
  let app: TestApp;
  let sharpFace: Buffer;
  let blurred: Buffer;
  before(async () => {
    sharpFace = fixture('person-a.jpg');
    // Blurred hard enough that the embedding net reads it poorly, yet still detected as a face.
    blurred = await sharp(sharpFace).blur(8).jpeg({ quality: 90 }).toBuffer();
    const [q1, q2] = [await quality(sharpFace), await quality(blurred)];
    assert.ok(q1 - q2 > 0.5, `the blurred face reads shorter: ${q1.toFixed(2)} vs ${q2.toFixed(2)}`);
    // The gate between the two faces' qualities, as an operator would set it from measured values.
    app = await startTestApp({ env: { SAOLA_FACE_MIN_ADD_QUALITY: ((q1 + q2) / 2).toFixed(2) } });
  });
  after(async () => {
    await app?.close();
  });

  it('is off by default', () => {
    assert.equal(loadFaceConfig({}).minAddQuality, 0);
  });

  it('refuses to enrol a face read poorly, enrols a good one, and does not gate search', async () => {
    assert.deepEqual(await post(app, `${S}/add`, { collection: 'c', id: 'a' }, blurred), { code: '400', data: 'Face quality too low' });
    // Nothing was stored by the refused add: the collection is still empty.
    const list = (await (await fetch(`${app.url}${S}/list?collection=c`, { headers: { api_key: app.apiKey } })).json()) as { data: unknown };
    assert.deepEqual(list.data, []);
    assert.deepEqual(await post(app, `${S}/add`, { collection: 'c', id: 'a' }, sharpFace), { code: '200', data: 'Add photo success' });
    // A query is compared, not stored: the same blurred photo is searched (found or not), never refused by the add gate.
    const r = await post(app, `${S}/search`, { collection: 'c', threshold: '0' }, blurred);
    assert.equal(r.code, '200', JSON.stringify(r));
    assert.equal((r.data as { id: string }).id, 'a');
  });
});
