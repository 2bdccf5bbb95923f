import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import sharp from 'sharp';
import { uuidv7 } from 'uuidv7';
import { faceReindexCommand } from '../../../src/face/cli.js';
import { cropKey, FaceCrops, purgeFaceBlobs } from '../../../src/face/crops.js';
import { embedCrop, recogniserSession, CROP_SIZE, type RecogniserSpec } from '../../../src/face/engine/recogniser.js';
import type { RgbImage } from '../../../src/face/engine/image.js';
import { EMBEDDING_MODEL } from '../../../src/face/engine/similarity.js';
import { installFaceRecogniser, setActiveRecogniser } from '../../../src/face/models.js';
import { FaceRecognisers } from '../../../src/face/recognisers.js';
import { faceCollectionsView } from '../../../src/face/service.js';
import { reindexFaces } from '../../../src/face/reindex.js';
import { CollectionModelChanged, FaceStore } from '../../../src/face/store.js';
import { FsBlobStore } from '../../../src/platform/blobs/fs-store.js';
import { loadConfig } from '../../../src/platform/config.js';
import { migrateToLatest, openStore } from '../../../src/platform/db/database.js';
import { seededRandom } from '../../../src/platform/random.js';
import { migrations } from '../../../src/services.js';
import { buildTinyRecogniser } from '../../../fixtures/faces/tiny-recogniser.js';
import { createTestDatabase, type TestDatabase } from '../../../fixtures/servers/postgres.js';

/** A kept crop of a made-up face: smooth noise from a seed (what the recogniser reads does not need to be a face here). */
function cropOf(seed: number): RgbImage {
  const next = seededRandom(seed);
  const data = new Uint8Array(CROP_SIZE * CROP_SIZE * 3);
  const base = [next() * 255, next() * 255, next() * 255];
  for (let i = 0; i < data.length; i++) data[i] = Math.max(0, Math.min(255, base[i % 3] + (next() - 0.5) * 60 + ((i / 480) % 40)));
  return { data, width: CROP_SIZE, height: CROP_SIZE };
}

const png = (c: RgbImage) =>
  sharp(Buffer.from(c.data), { raw: { width: c.width, height: c.height, channels: 3 } })
    .png()
    .toBuffer();

const unit = (i: number) => {
  const v = new Float32Array(512);
  v[i % 512] = 1;
  return v;
};

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`saola face reindex on ${engine}`, () => {
    let pgdb: TestDatabase | undefined;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-face-reindex-'));
    after(async () => {
      await pgdb?.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('re-embeds from kept crops while search serves the old embeddings, resumes after a failure, switches per collection, lists faces without a crop', async () => {
      if (engine === 'postgres') pgdb = await createTestDatabase();
      const config = loadConfig({ SAOLA_DATA_DIR: dir, SAOLA_LOG_LEVEL: 'silent', ...(pgdb ? { SAOLA_DATABASE_URL: pgdb.url } : {}) });
      const { spec } = await installFaceRecogniser(dir, buildTinyRecogniser(path.join(dir, 'source')), { name: 'tiny', activate: false });
      const session = await recogniserSession(fs.readFileSync(spec.file));
      const embed = (c: RgbImage) => embedCrop(session, spec as RecogniserSpec, c);

      const store = openStore(config.databaseUrl);
      const crops = new FaceCrops(new FsBlobStore(path.join(dir, 'blobs')));
      try {
        await migrateToLatest(store, migrations);
        const faces = new FaceStore(store);
        const enrol = async (app: string, collectionId: string, user: string, seed: number, withCrop = true) => {
          const faceId = uuidv7();
          const key = withCrop ? cropKey(app, collectionId, faceId) : undefined;
          if (key) await crops.put(key, await png(cropOf(seed)));
          return faces.addUserFace(app, collectionId, user, undefined, unit(seed), EMBEDDING_MODEL, { faceId, cropKey: key });
        };
        const staff = await faces.ensureCollection('app1', 'staff');
        for (let i = 0; i < 10; i++) await enrol('app1', staff.id, `u${i}`, i);
        const visitors = await faces.ensureCollection('app2', 'visitors');
        await enrol('app2', visitors.id, 'v1', 100);
        await enrol('app2', visitors.id, 'legacy', 101, false);

        // A run that fails after 6 faces; on the way, search still reads the shipped embeddings and an add lands.
        let calls = 0;
        await assert.rejects(
          reindexFaces({
            store: faces,
            crops,
            model: 'tiny',
            collection: 'staff',
            batch: 2,
            report: () => {},
            embed: async (c) => {
              calls++;
              if (calls === 3) {
                const served = await faces.listFaces('app1', staff.id, { model: EMBEDDING_MODEL });
                assert.equal(served.length, 10);
                assert.deepEqual(served[4].embedding, unit(4));
                assert.equal((await faces.findCollection('app1', 'staff'))!.model, null);
                await enrol('app1', staff.id, 'late', 10);
              }
              if (calls === 7) throw new Error('injected failure');
              return embed(c);
            },
          }),
          /injected failure/,
        );
        assert.equal((await faces.reindexProgress('app1', staff.id, 'tiny')).staged, 6);
        assert.equal((await faces.findCollection('app1', 'staff'))!.model, null);

        let out = '';
        let err = '';
        const run = (args: string[]) => {
          out = '';
          err = '';
          return faceReindexCommand({ config, migrations, args, stdout: (t: string) => (out += t), stderr: (t: string) => (err += t) });
        };
        // The rerun resumes staff and holds visitors, whose legacy face has no crop.
        assert.equal(await run(['--model', 'tiny']), 1);
        assert.match(out, /collection "staff": resuming, 6 face\(s\) already re-embedded/);
        assert.match(out, /collection "staff": 11\/11 face\(s\) re-embedded by tiny/);
        assert.match(out, /collection "staff": switched to tiny/);
        assert.match(out, /collection "visitors": not switched: 1 face\(s\) of 1 user\(s\) have no kept photo/);
        assert.match(out, /collection "visitors": enrol again \(no kept photo\): legacy \(1\)/);
        assert.match(err, /pass --force/);

        const switched = await faces.findCollection('app1', 'staff');
        assert.equal(switched!.model, 'tiny');
        assert.ok(switched!.faces_epoch > staff.faces_epoch, 'the switch moves the epoch: every process rebuilds its index');
        const served = await faces.listFaces('app1', staff.id, { model: 'tiny' });
        assert.equal(served.length, 11);
        assert.equal((await faces.listFaces('app1', staff.id, { model: EMBEDDING_MODEL })).length, 0);
        // Each face's new embedding is the recogniser's embedding of its own crop.
        const expected = await embed(cropOf(10));
        const late = served.find((f) => f.seq === 11)!;
        assert.ok(late.embedding.every((x, i) => Math.abs(x - expected[i]) < 1e-6));

        // The console's view: staff is tiny's (not the active recogniser here: reindex), visitors the shipped one's with a face a reindex cannot move.
        const states = async (app: string, recognisers = new FaceRecognisers(dir)) =>
          (await faceCollectionsView(faces, recognisers, app)).collections.map((c) => [c.name, c.recogniser, c.state, c.faces, c.users, c.withoutCrop, c.notSearchable]);
        assert.deepEqual(await states('app1'), [['staff', 'tiny', 'reindex', 11, 11, 0, 0]]);
        assert.deepEqual(await states('app2'), [['visitors', EMBEDDING_MODEL, 'current', 2, 2, 1, 0]]);
        assert.deepEqual(await states('app1', new FaceRecognisers(undefined)), [['staff', 'tiny', 'missing', 11, 11, 0, 0]]);
        setActiveRecogniser(dir, 'tiny');
        const view = await faceCollectionsView(faces, new FaceRecognisers(dir), 'app1');
        assert.deepEqual(view.recogniser, { name: 'tiny', embedding: 512, similarityMap: 'uncalibrated-arcface-v1', installed: [EMBEDDING_MODEL, 'tiny'] });
        assert.deepEqual(view.collections[0].state, 'current');
        assert.deepEqual(await states('app3'), []);

        // An add that analysed the photo with the old recogniser is refused once the collection switched.
        await assert.rejects(enrol('app1', staff.id, 'racing', 11, false), CollectionModelChanged);

        assert.equal(await run(['--model', 'tiny', '--force']), 0);
        assert.match(out, /collection "staff": already served by tiny/);
        assert.match(out, /collection "visitors": switched to tiny/);
        assert.equal((await faces.listFaces('app2', visitors.id, { model: 'tiny' })).length, 1);
        // The legacy face kept the shipped vector, which search no longer reads: its user enrols again.
        assert.deepEqual(await states('app2'), [['visitors', 'tiny', 'current', 2, 2, 1, 1]]);
        assert.equal(await run(['--model', 'nope']), 1);
        assert.equal(await run(['--bogus']), 2);

        // Crops go with their face, their collection and their application.
        const blobs = path.join(dir, 'blobs', 'face-crops');
        const countCrops = (app: string) =>
          fs.existsSync(path.join(blobs, app)) ? fs.readdirSync(path.join(blobs, app), { recursive: true }).filter((f) => String(f).endsWith('.png')).length : 0;
        assert.equal(countCrops('app1'), 11);
        const u0 = await faces.findUser('app1', staff.id, 'u0');
        await crops.delete(await faces.deleteUser('app1', staff.id, u0!.id));
        assert.equal(countCrops('app1'), 10);
        await faces.deleteCollection('app1', staff.id);
        await crops.deleteCollection('app1', staff.id);
        assert.equal(countCrops('app1'), 0);
        assert.equal(countCrops('app2'), 1);
        assert.deepEqual(await purgeFaceBlobs('app2', { store, blobs: new FsBlobStore(path.join(dir, 'blobs')) }), { blobs: 1 });
        assert.equal(countCrops('app2'), 0);
      } finally {
        await store.close();
      }
    });
  });
}
