/**
 * `npx tsx bench/face-reindex.ts [--faces N] [--to shipped|tiny|FOLDER] [--database URL] [--keep DIR] [--switch-only]`:
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
 * --keep DIR: the data folder is kept, and reused by the next run with the
 * same N (the collection is not enrolled again; staged rows are dropped).
 * --switch-only: the last step alone at full size: every stored vector is
 * staged as if re-embedded, then the switch transaction and the index rebuild
 * of the first search after it are timed (target of the same embedding size).
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
import { sql } from 'kysely';
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
  options: {
    faces: { type: 'string', default: '2000' },
    to: { type: 'string', default: 'shipped' },
    database: { type: 'string' },
    keep: { type: 'string' },
    'switch-only': { type: 'boolean', default: false },
  },
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
  const { spec: tiny } = await installFaceRecogniser(dir, buildTinyRecogniser(path.join(dir, 'source')), { name: 'tiny', activate: false, force: true });
  let target: RecogniserSpec;
  if (values.to === 'shipped') target = shippedRecogniser();
  else if (values.to === 'tiny') target = tiny;
  else target = (await installFaceRecogniser(dir, values.to, { name: 'target', activate: false, force: true })).spec;
  const from = target.name === 'tiny' ? shippedRecogniser() : tiny;
  const png = fs.readFileSync(testFaceFile());
  const existing = await faces.findCollection('bench', 'staff');
  const coll = existing ?? (await faces.ensureCollection('bench', 'staff', from.name));
  const next = seededRandom(7);
  // --keep on a folder a run left (killed during the reindex): the collection is reused and the reindex starts over.
  const enrolled = existing ? Number(existing.faces_seq) : 0;
  if (existing) {
    if (enrolled !== n || collectionModel(existing) !== from.name)
      throw new Error(`${dir} holds ${enrolled} faces of ${collectionModel(existing)}: not this run's collection`);
    await faces.db.deleteFrom('face_staged_embeddings').execute();
    console.log(`reusing the ${n} faces enrolled in ${dir}`);
  }

  const enrolStart = performance.now();
  const enrolCpu = process.cpuUsage();
  const chunk = 1000;
  for (let start = enrolled; start < n; start += chunk) {
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
      for (let k = 0; k < users.length; k += 100)
        await trx
          .insertInto('face_users')
          .values(users.slice(k, k + 100))
          .execute();
      for (let k = 0; k < rows.length; k += 100)
        await trx
          .insertInto('face_embeddings')
          .values(rows.slice(k, k + 100))
          .execute();
      await trx
        .updateTable('face_collections')
        .set({ faces_seq: start + count })
        .where('id', '=', coll.id)
        .execute();
    });
  }
  const enrolUsed = process.cpuUsage(enrolCpu);
  if (!existing)
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
  if (values['switch-only']) {
    // Only the last step, at full size: every face's stored vector is staged as if re-embedded (one statement, not
    // measured), then the switch transaction and the first search after it (the index rebuilt from the store) are timed.
    if (target.output.size !== from.output.size) throw new Error('--switch-only stages the stored vectors: the target must have the same embedding size');
    const t0 = performance.now();
    await sql`insert into face_staged_embeddings (face_id, app_code, collection_id, model, embedding, created_at)
      select e.id, e.app_code, e.collection_id, ${target.name}, e.embedding, e.created_at from face_embeddings e
      where e.collection_id = ${coll.id} and not exists (select 1 from face_staged_embeddings s where s.face_id = e.id)`.execute(faces.db);
    console.log(`staged ${n} vectors in ${((performance.now() - t0) / 1000).toFixed(1)} s (not part of the reindex's cost)`);
    const c0 = process.cpuUsage();
    const t1 = performance.now();
    const switched = await faces.switchCollection('bench', coll.id, target.name);
    const switchMs = performance.now() - t1;
    const switchCpu = process.cpuUsage(c0);
    const c1 = process.cpuUsage();
    const rebuildMs = await searchOnce();
    const rebuildCpu = process.cpuUsage(c1);
    const served = await faces.listFaces('bench', coll.id, { model: target.name });
    console.log(
      `switch of ${n} faces to ${target.name} (${switched ? 'done' : 'refused'}): ${switchMs.toFixed(0)} ms wall, ${((switchCpu.user + switchCpu.system) / 1000).toFixed(0)} ms CPU (adds to the collection wait this long); ` +
        `first search after it (index of ${n} faces rebuilt from the store): ${rebuildMs.toFixed(0)} ms wall, ${((rebuildCpu.user + rebuildCpu.system) / 1000).toFixed(0)} ms CPU; ` +
        `RSS ${mib(process.memoryUsage().rss)} MiB; ${served.length}/${n} faces searchable`,
    );
    if (!switched || served.length !== n) process.exitCode = 1;
  } else {
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
    // Each progress line also says the CPU, memory and search latency so far, so a run stopped before the end still measures.
    const sofar = () => {
      const u = process.cpuUsage(cpu);
      const sorted = [...latencies].sort((a, b) => a - b);
      const p50 = sorted[Math.floor(sorted.length / 2)] ?? 0;
      return `  [${((performance.now() - started) / 1000).toFixed(0)} s wall, ${((u.user + u.system) / 1e6).toFixed(1)} s CPU, peak RSS ${mib(peakRss)} MiB, search p50 ${p50.toFixed(2)} ms over ${sorted.length}]\n`;
    };
    await reindexFaces({ store: faces, crops, model: target.name, embed, report: (l) => process.stdout.write(l.replace(/\n$/, sofar())), progressMs: 30_000 });
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
  }
} finally {
  await store.close();
  if (!values.keep) fs.rmSync(dir, { recursive: true, force: true });
}
