/**
 * `npx tsx bench/face-reindex.ts [--faces N] [--to shipped|tiny|FOLDER] [--database URL] [--keep DIR]`:
 * a generated collection of N faces with kept crops (the built-in test face,
 * one blob per face) moved to another recogniser by the reindex
 * (`src/face/reindex.ts`): wall time, process CPU (and per face), peak RSS,
 * and the latency of the store-and-index part of a search (index catch-up and
 * exact scan, no photo analysis) run every 20 ms during the reindex.
 *
 * --to: the target recogniser: the shipped one (default), `tiny` (the
 * generated ArcFace-form graph of fixtures/faces/tiny-recogniser.ts, milliseconds
 * per face: the cost of the store, blobs and decode), or a FOLDER that
 * `saola models add face` accepts (installed into the bench's own data folder).
 * The collection starts served by the other of tiny and shipped.
 *
 * The collection is written straight into the tables, 1,000 faces per
 * transaction, with the rows an `add` writes (user, face with its seq and crop
 * key, the collection's counter): no photo is analysed, so 100,000 faces take
 * minutes, not hours. Its stored vectors are random (the reindex recomputes
 * them from the crops anyway).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { uuidv7 } from 'uuidv7';
import { cropKey, FaceCrops } from '../src/face/crops.js';
import { shippedRecogniser, testFaceFile } from '../src/face/engine/models.js';
import type { RecogniserSpec } from '../src/face/engine/recogniser.js';
import { EMBEDDING_MODEL } from '../src/face/engine/similarity.js';
import { installFaceRecogniser } from '../src/face/models.js';
import { cropEmbedder, reindexFaces } from '../src/face/reindex.js';
import { FaceIndexCache } from '../src/face/search/index-cache.js';
import { collectionModel, encodeEmbedding, FaceStore } from '../src/face/store.js';
import { FsBlobStore } from '../src/platform/blobs/fs-store.js';
import { migrateToLatest, openStore } from '../src/platform/db/database.js';
import { seededRandom } from '../src/platform/random.js';
import { migrations } from '../src/services.js';
import { buildTinyRecogniser } from '../fixtures/faces/tiny-recogniser.js';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { faces: { type: 'string', default: '2000' }, to: { type: 'string', default: 'shipped' }, database: { type: 'string' }, keep: { type: 'string' } },
});
const n = Number(values.faces);
const dir = values.keep ?? fs.mkdtempSync(path.join(os.tmpdir(), 'saola-face-reindex-bench-'));
fs.mkdirSync(dir, { recursive: true });
const store = openStore(values.database ?? `sqlite:${path.join(dir, 'saola.db')}`);
const mib = (b: number) => (b / 2 ** 20).toFixed(0);
try {
  await migrateToLatest(store, migrations);
  const faces = new FaceStore(store);
  const crops = new FaceCrops(new FsBlobStore(path.join(dir, 'blobs')));
  const { spec: tiny } = await installFaceRecogniser(dir, buildTinyRecogniser(path.join(dir, 'source')), { name: 'tiny', activate: false });
  let target: RecogniserSpec;
  if (values.to === 'shipped') target = shippedRecogniser();
  else if (values.to === 'tiny') target = tiny;
  else target = (await installFaceRecogniser(dir, values.to, { name: 'target', activate: false, force: true })).spec;
  const from = target.name === 'tiny' ? shippedRecogniser() : tiny;
  const png = fs.readFileSync(testFaceFile());
  const coll = await faces.ensureCollection('bench', 'staff', from.name);
  const next = seededRandom(7);

  const enrolStart = performance.now();
  const enrolCpu = process.cpuUsage();
  const chunk = 1000;
  for (let start = 0; start < n; start += chunk) {
    const count = Math.min(chunk, n - start);
    const now = new Date().toISOString();
    const users = Array.from({ length: count }, (_, k) => ({
      id: uuidv7(),
      app_code: 'bench',
      collection_id: coll.id,
      user_id: `u${start + k}`,
      name: `u${start + k}`,
      created_at: now,
      updated_at: now,
    }));
    const rows = users.map((u, k) => {
      const id = uuidv7();
      return {
        id,
        app_code: 'bench',
        collection_id: coll.id,
        user_row_id: u.id,
        embedding: encodeEmbedding(new Float32Array(from.output.size).map(() => next() - 0.5)),
        model: from.name,
        created_at: now,
        seq: start + k + 1,
        crop_key: cropKey('bench', coll.id, id),
      };
    });
    // Crops first, as an add writes them before its row commits.
    for (let k = 0; k < rows.length; k += 50) await Promise.all(rows.slice(k, k + 50).map((r) => crops.put(r.crop_key, png)));
    await faces.db.transaction().execute(async (trx) => {
      for (let k = 0; k < users.length; k += 100) await trx.insertInto('face_users').values(users.slice(k, k + 100)).execute();
      for (let k = 0; k < rows.length; k += 100) await trx.insertInto('face_embeddings').values(rows.slice(k, k + 100)).execute();
      await trx.updateTable('face_collections').set({ faces_seq: start + count }).where('id', '=', coll.id).execute();
    });
  }
  const enrolUsed = process.cpuUsage(enrolCpu);
  console.log(
    `enrolled ${n} faces with crops in ${((performance.now() - enrolStart) / 1000).toFixed(1)} s, ${((enrolUsed.user + enrolUsed.system) / 1e6).toFixed(1)} s CPU (${store.dialect}), served by ${from.name}`,
  );

  const cache = new FaceIndexCache();
  const latencies: number[] = [];
  const searchOnce = async () => {
    const t = performance.now();
    const row = (await faces.findCollection('bench', 'staff'))!;
    const model = collectionModel(row);
    const dim = model === EMBEDDING_MODEL ? 512 : model === tiny.name ? tiny.output.size : target.output.size;
    const index = await cache.get(
      { appCode: 'bench', collectionId: row.id },
      { epoch: Number(row.faces_epoch), seq: Number(row.faces_seq) },
      async (afterSeq, span) =>
        (await faces.listFaces('bench', row.id, { afterSeq, span, model })).map((f) => ({ seq: f.seq, owner: f.userRowId, embedding: f.embedding })),
      dim,
    );
    const q = new Float32Array(dim).map(() => next() - 0.5);
    index.search(q, 1, 0.3);
    return performance.now() - t;
  };
  // The index of the old vectors is built before the clock starts, as on a server that has been serving the collection.
  console.log(`first search (index of ${n} faces built from the store): ${(await searchOnce()).toFixed(0)} ms`);
  let running = true;
  const searches = (async () => {
    while (running) {
      latencies.push(await searchOnce());
      await new Promise((r) => setTimeout(r, 20));
    }
  })();

  let peakRss = process.memoryUsage().rss;
  const rssBefore = peakRss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);
  const cpu = process.cpuUsage();
  const started = performance.now();
  const embed = await cropEmbedder(target);
  await reindexFaces({ store: faces, crops, model: target.name, embed, report: (l) => process.stdout.write(l), progressMs: 30_000 });
  const wall = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  // One more search after the switch: the index rebuilt with the new vectors.
  await new Promise((r) => setTimeout(r, 100));
  running = false;
  await searches;
  clearInterval(sampler);
  const after = (await faces.findCollection('bench', 'staff'))!;
  const served = await faces.listFaces('bench', after.id, { model: target.name });
  const sorted = [...latencies].sort((a, b) => a - b);
  const q = (f: number) => sorted[Math.min(sorted.length - 1, Math.floor(f * sorted.length))];
  const cpuS = (used.user + used.system) / 1e6;
  console.log(
    `reindex of ${n} faces to ${target.name}: ${wall.toFixed(1)} s wall (${(n / wall).toFixed(0)} faces/s), ` +
      `${cpuS.toFixed(1)} s CPU (${((cpuS * 1000) / n).toFixed(2)} ms per face; user ${(used.user / 1e6).toFixed(1)} s, system ${(used.system / 1e6).toFixed(1)} s), ` +
      `RSS ${mib(rssBefore)} MiB before, peak ${mib(peakRss)} MiB; ` +
      `store+index search during it: ${latencies.length} searches, p50 ${q(0.5).toFixed(2)} ms, p95 ${q(0.95).toFixed(2)} ms, max ${sorted[sorted.length - 1].toFixed(1)} ms; ` +
      `after: collection served by ${collectionModel(after)}, ${served.length}/${n} faces searchable`,
  );
  if (served.length !== n || collectionModel(after) !== target.name) process.exitCode = 1;
} finally {
  await store.close();
  if (!values.keep) fs.rmSync(dir, { recursive: true, force: true });
}
