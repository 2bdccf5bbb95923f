import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import { FaceStore } from '../../../src/face/store.js';
import { encodeEmbedding } from '../../../src/face/store.js';
import { migrations } from '../../../src/services.js';
import { migrateToLatest, openStore, type Store } from '../../../src/platform/db/database.js';
import { createTestDatabase, type TestDatabase } from '../../../fixtures/servers/postgres.js';

const VERSIONS = '0004_face_search_02_index_versions';

function vec(seed: number): Float32Array {
  const v = new Float32Array(512);
  v[seed % 512] = 1;
  return v;
}

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`face store versions on ${engine} (faces_seq, faces_epoch)`, () => {
    let store: Store;
    let pgdb: TestDatabase | undefined;
    let dir: string;
    let faces: FaceStore;
    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-face-versions-'));
      if (engine === 'postgres') pgdb = await createTestDatabase();
      store = openStore(pgdb?.url ?? `sqlite:${path.join(dir, 'db.sqlite')}`);
      // The tables as they were before the migration, with faces in them.
      await migrateToLatest(store, Object.fromEntries(Object.entries(migrations).filter(([name]) => name !== VERSIONS)));
      faces = new FaceStore(store);
    });
    after(async () => {
      await store?.close();
      await pgdb?.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('the migration numbers existing faces per collection in id order and sets each collection seq', async () => {
      const db = store.db as unknown as Kysely<any>;
      const now = new Date().toISOString();
      await db
        .insertInto('face_collections')
        .values([
          { id: 'c1', app_code: 'app1', name: 'one', created_at: now },
          { id: 'c2', app_code: 'app1', name: 'two', created_at: now },
          { id: 'c3', app_code: 'app1', name: 'empty', created_at: now },
        ])
        .execute();
      await db
        .insertInto('face_users')
        .values([
          { id: 'u1', app_code: 'app1', collection_id: 'c1', user_id: 'a', name: 'a', created_at: now, updated_at: now },
          { id: 'u2', app_code: 'app1', collection_id: 'c2', user_id: 'b', name: 'b', created_at: now, updated_at: now },
        ])
        .execute();
      const face = (id: string, coll: string, user: string) => ({
        id,
        app_code: 'app1',
        collection_id: coll,
        user_row_id: user,
        embedding: encodeEmbedding(vec(id.charCodeAt(1))),
        model: 'm',
        created_at: now,
      });
      // Inserted out of id order: the seq follows the id (creation time), as the old catch-up did.
      await db
        .insertInto('face_embeddings')
        .values([face('f3', 'c1', 'u1'), face('f1', 'c1', 'u1'), face('f2', 'c2', 'u2'), face('f5', 'c1', 'u1')])
        .execute();
      await migrateToLatest(store, migrations);
      const rows = await db.selectFrom('face_embeddings').select(['id', 'seq']).orderBy('id').execute();
      assert.deepEqual(
        rows.map((r) => [r.id, Number(r.seq)]),
        [
          ['f1', 1],
          ['f2', 1],
          ['f3', 2],
          ['f5', 3],
        ],
      );
      assert.deepEqual(await faces.facesVersion('app1', 'c1'), { epoch: 0, seq: 3 });
      assert.deepEqual(await faces.facesVersion('app1', 'c2'), { epoch: 0, seq: 1 });
      assert.deepEqual(await faces.facesVersion('app1', 'c3'), { epoch: 0, seq: 0 });
    });

    it('adds take the next seq (concurrent ones too), deletes move the epoch, pages are read by seq', async () => {
      const coll = await faces.ensureCollection('app2', 'people');
      assert.equal(coll.faces_seq, 0);
      const user = await faces.upsertUser('app2', coll.id, 'x', 'X');
      const added = await Promise.all(Array.from({ length: 12 }, (_, i) => faces.addFace('app2', coll.id, user.id, vec(i), 'm')));
      assert.deepEqual(
        added.map((a) => a.seq).sort((a, b) => a - b),
        Array.from({ length: 12 }, (_, i) => i + 1),
      );
      assert.ok(added.every((a) => a.epoch === 0));
      const found = await faces.findCollection('app2', 'people');
      assert.equal(Number(found?.faces_seq), 12);
      const page = await faces.listFaces('app2', coll.id, { afterSeq: 4, span: 5 });
      assert.deepEqual(
        page.map((f) => f.seq),
        [5, 6, 7, 8, 9],
      );
      // Each face's embedding is the one added with that seq.
      for (const f of page) assert.deepEqual(f.embedding, vec(added.findIndex((a) => a.seq === f.seq)));

      const other = await faces.upsertUser('app2', coll.id, 'y', 'Y');
      await faces.addFace('app2', coll.id, other.id, vec(100), 'm');
      await faces.deleteFaces('app2', coll.id, other.id);
      assert.deepEqual(await faces.facesVersion('app2', coll.id), { epoch: 1, seq: 13 });
      await faces.deleteUser('app2', coll.id, user.id);
      assert.deepEqual(await faces.facesVersion('app2', coll.id), { epoch: 2, seq: 13 });
      assert.deepEqual(await faces.listFaces('app2', coll.id), []);
      // A seq is never given twice, even after deletes.
      const again = await faces.upsertUser('app2', coll.id, 'x', 'X');
      assert.deepEqual(await faces.addFace('app2', coll.id, again.id, vec(1), 'm').then(({ seq, epoch }) => ({ seq, epoch })), { seq: 14, epoch: 2 });
    });

    it("tenancy: another application's code adds nothing to a collection, reads nothing, and moves no counter", async () => {
      const coll = await faces.ensureCollection('app3', 'mine');
      const user = await faces.upsertUser('app3', coll.id, 'z', 'Z');
      await faces.addFace('app3', coll.id, user.id, vec(3), 'm');
      await assert.rejects(faces.addFace('intruder', coll.id, user.id, vec(4), 'm'));
      await faces.deleteFaces('intruder', coll.id, user.id);
      assert.deepEqual(await faces.facesVersion('app3', coll.id), { epoch: 0, seq: 1 });
      assert.equal(await faces.facesVersion('intruder', coll.id), undefined);
      assert.deepEqual(await faces.listFaces('intruder', coll.id), []);
      assert.equal((await faces.listFaces('app3', coll.id)).length, 1);
    });

    it("lists only one model's faces when asked: search never compares two models' embeddings", async () => {
      const coll = await faces.ensureCollection('app4', 'mixed');
      const user = await faces.upsertUser('app4', coll.id, 'w', 'W');
      await faces.addFace('app4', coll.id, user.id, vec(5), 'model-a');
      await faces.addFace('app4', coll.id, user.id, vec(6), 'model-b');
      await faces.addFace('app4', coll.id, user.id, vec(7), 'model-a');
      assert.deepEqual(
        (await faces.listFaces('app4', coll.id, { model: 'model-a' })).map((f) => f.seq),
        [1, 3],
      );
      assert.deepEqual(
        (await faces.listFaces('app4', coll.id, { model: 'model-b', afterSeq: 0, span: 5 })).map((f) => f.embedding),
        [vec(6)],
      );
      assert.equal((await faces.listFaces('app4', coll.id)).length, 3);
    });
  });
}
