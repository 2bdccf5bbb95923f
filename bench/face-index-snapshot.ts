/**
 * The face index snapshot format on its own (no S3 stand-in, no database): N
 * random faces indexed in memory, written to a filesystem blob store in a
 * temporary folder and read back, with the times and the reader's RSS.
 *
 *   npx tsx bench/face-index-snapshot.ts [faces=1000000]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CollectionIndex } from '../src/face/search/index-cache.js';
import { BlobIndexSnapshots } from '../src/face/search/snapshot.js';
import { FsBlobStore } from '../src/platform/blobs/fs-store.js';
import { seededRandom } from '../src/platform/random.js';
const N = Number(process.argv[2] ?? 1_000_000);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'faceidx-snapread-'));
try {
  // Random unit rows (their values do not matter to the format's speed).
  const rnd = seededRandom(7);
  const idx = new CollectionIndex(512, N + 64);
  const v = new Float32Array(512);
  let t = performance.now();
  for (let i = 0; i < N; i++) {
    let n = 0;
    for (let j = 0; j < 512; j++) {
      v[j] = rnd() - 0.5;
      n += v[j] * v[j];
    }
    n = Math.sqrt(n);
    for (let j = 0; j < 512; j++) v[j] /= n;
    idx.add(`0190aaaa-bbbb-7ccc-8ddd-${String(i).padStart(12, '0')}`, v);
  }
  console.log('built in memory (incl. sign codes)', Math.round(performance.now() - t), 'ms');
  const snaps = new BlobIndexSnapshots(new FsBlobStore(dir), 'm', (_k, r) => console.log('rejected', r));
  const key = { appCode: 'a', collectionId: 'c' };
  t = performance.now();
  await snaps.write(key, { epoch: 0, seq: N }, idx);
  console.log('write (filesystem blob store)', Math.round(performance.now() - t), 'ms');
  t = performance.now();
  const got = await snaps.read(key, { epoch: 0, seq: N }, 512);
  console.log('read (filesystem blob store)', Math.round(performance.now() - t), 'ms', got?.index.count, 'rss MiB', Math.round(process.memoryUsage().rss / 2 ** 20));
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
