import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../../../fixtures/servers/app.js';
import { createTestDatabase, type TestDatabase } from '../../../fixtures/servers/postgres.js';
import { augment, fixture } from '../../../fixtures/faces/photos.js';
import { dot } from '../../../src/face/engine/similarity.js';
import { FaceStore } from '../../../src/face/store.js';

async function send(app: TestApp, method: string, path: string, parts: [string, string | Buffer][]) {
  const form = new FormData();
  for (const [k, v] of parts) {
    if (typeof v === 'string') form.append(k, v);
    else form.append(k, new Blob([new Uint8Array(v)], { type: 'image/jpeg' }), 'p.jpg');
  }
  const res = await fetch(app.url + path, { method, headers: { apikey: app.apiKey }, body: method === 'GET' ? undefined : form });
  return (await res.json()) as any;
}

const S = '/dmp/facesearch/v2';

/** A face search call that must answer code 200. */
async function expectOk(app: TestApp, verb: string, parts: [string, string | Buffer][]) {
  const answer = await send(app, 'POST', `${S}/${verb}`, parts);
  assert.equal(answer.code, '200', JSON.stringify(answer));
}

describe('face search on PostgreSQL', () => {
  let db: TestDatabase;
  let app: TestApp | undefined;
  before(async () => {
    db = await createTestDatabase();
  });
  after(async () => {
    await app?.close();
    await db?.drop();
  });

  it('indexes, persists embeddings, searches, deletes', async () => {
    app = await startTestApp({ databaseUrl: db.url });
    await expectOk(app, 'create', [
      ['collection', 'c'],
      ['id', 'g'],
      ['name', 'Grace'],
    ]);
    await expectOk(app, 'add', [
      ['collection', 'c'],
      ['id', 'g'],
      ['file', fixture('grace_hopper.jpg')],
    ]);
    await expectOk(app, 'add', [
      ['collection', 'c'],
      ['id', 'g'],
      ['file', (await augment(fixture('grace_hopper.jpg'))).mirrored],
    ]);
    await expectOk(app, 'add', [
      ['collection', 'c'],
      ['id', 'p'],
      ['file', fixture('person-c.jpg')],
    ]);
    // The embeddings are in the database (a fresh store handle reads them back as unit 512-d vectors).
    const store = new FaceStore(app.deps.store);
    const coll = await store.findCollection(app.appCode, 'c');
    assert.ok(coll);
    const faces = await store.listFaces(app.appCode, coll.id);
    assert.equal(faces.length, 3);
    for (const f of faces) {
      assert.equal(f.embedding.length, 512);
      assert.ok(Math.abs(dot(f.embedding, f.embedding) - 1) < 1e-4);
    }
    const again = app;
    const hit = await send(again, 'POST', `${S}/search`, [
      ['collection', 'c'],
      ['file', (await augment(fixture('grace_hopper.jpg'))).darker],
    ]);
    assert.equal(hit.code, '200', JSON.stringify(hit));
    assert.equal(hit.data.id, 'g');
    assert.deepEqual((await send(again, 'GET', `${S}/list?collection=c`, [])).data, [
      { id: 'g', name: 'Grace' },
      { id: 'p', name: 'p' },
    ]);
    assert.equal((await send(again, 'DELETE', `${S}/delete_collection`, [['collection', 'c']])).code, '200');
    assert.deepEqual((await send(again, 'GET', `${S}/list?collection=c`, [])).data, []);
  });
});
