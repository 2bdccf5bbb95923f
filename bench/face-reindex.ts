/**
 * `npx tsx bench/face-reindex.ts [--faces N] [--database URL]`: a generated
 * collection of N faces with kept crops (the built-in test face, one blob per
 * face) served by a generated recogniser, moved to the shipped recogniser by
 * the reindex (`src/face/reindex.ts`): wall time, process CPU, peak RSS, and
 * the latency of the store-and-index part of a search (index catch-up and
 * exact scan, no photo analysis) run every 20 ms during the reindex.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { uuidv7 } from 'uuidv7';
import { cropKey, FaceCrops } from '../src/face/crops.js';
import { shippedRecogniser, testFaceFile } from '../src/face/engine/models.js';
import { EMBEDDING_MODEL } from '../src/face/engine/similarity.js';
import { installFaceRecogniser } from '../src/face/models.js';
import { cropEmbedder, reindexFaces } from '../src/face/reindex.js';
import { FaceIndexCache } from '../src/face/search/index-cache.js';
import { collectionModel, FaceStore } from '../src/face/store.js';
import { FsBlobStore } from '../src/platform/blobs/fs-store.js';
import { migrateToLatest, openStore } from '../src/platform/db/database.js';
import { seededRandom } from '../src/platform/random.js';
import { migrations } from '../src/services.js';
import { buildTinyRecogniser } from '../fixtures/faces/tiny-recogniser.js';

const { values } = parseArgs({ args: process.argv.slice(2), options: { faces: { type: 'string', default: '2000' }, database: { type: 'string' } } });
const n = Number(values.faces);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-face-reindex-bench-'));
const store = openStore(values.database ?? `sqlite:${path.join(dir, 'saola.db')}`);
try {
  await migrateToLatest(store, migrations);
  const faces = new FaceStore(store);
  const crops = new FaceCrops(new FsBlobStore(path.join(dir, 'blobs')));
  const { spec: tiny } = await installFaceRecogniser(dir, buildTinyRecogniser(path.join(dir, 'source')), { name: 'tiny', activate: false });
  const png = fs.readFileSync(testFaceFile());
  const coll = await faces.ensureCollection('bench', 'staff', 'tiny');
  const next = seededRandom(7);
  const enrolStart = performance.now();
  for (let i = 0; i < n; i++) {
    const faceId = uuidv7();
    const key = cropKey('bench', coll.id, faceId);
    await crops.put(key, png);
    // Stored vectors vary so the index holds distinct rows; the reindex recomputes them from the crop anyway.
    const v = new Float32Array(tiny.output.size).map(() => next() - 0.5);
    await faces.addUserFace('bench', coll.id, `u${i}`, undefined, v, 'tiny', { faceId, cropKey: key });
  }
  console.log(`enrolled ${n} faces with crops in ${((performance.now() - enrolStart) / 1000).toFixed(1)} s (${store.dialect})`);

  const cache = new FaceIndexCache();
  const latencies: number[] = [];
  let running = true;
  const searches = (async () => {
    while (running) {
      const t = performance.now();
      const row = (await faces.findCollection('bench', 'staff'))!;
      const model = collectionModel(row);
      const dim = model === EMBEDDING_MODEL ? 512 : tiny.output.size;
      const index = await cache.get(
        { appCode: 'bench', collectionId: row.id },
        { epoch: Number(row.faces_epoch), seq: Number(row.faces_seq) },
        async (afterSeq, span) =>
          (await faces.listFaces('bench', row.id, { afterSeq, span, model })).map((f) => ({ seq: f.seq, owner: f.userRowId, embedding: f.embedding })),
        dim,
      );
      const q = new Float32Array(dim).map(() => next() - 0.5);
      index.search(q, 1, 0.3);
      latencies.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();

  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);
  const cpu = process.cpuUsage();
  const started = performance.now();
  const embed = await cropEmbedder(shippedRecogniser());
  await reindexFaces({ store: faces, crops, model: EMBEDDING_MODEL, embed, report: (l) => process.stdout.write(l), progressMs: 10_000 });
  const wall = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  clearInterval(sampler);
  running = false;
  await searches;
  const sorted = [...latencies].sort((a, b) => a - b);
  const q = (f: number) => sorted[Math.min(sorted.length - 1, Math.floor(f * sorted.length))];
  console.log(
    `reindex of ${n} faces to ${EMBEDDING_MODEL}: ${wall.toFixed(1)} s wall (${(n / wall).toFixed(0)} faces/s), ` +
      `${((used.user + used.system) / 1e6).toFixed(1)} s CPU, peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MiB; ` +
      `store+index search during it: ${latencies.length} searches, p50 ${q(0.5).toFixed(2)} ms, p95 ${q(0.95).toFixed(2)} ms, max ${sorted[sorted.length - 1].toFixed(1)} ms`,
  );
} finally {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
