import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hammingKernel, hammingModule } from '../../../src/face/search/hamming-kernel.js';
import { CollectionIndex, EXACT_FROM_COSINE, FaceIndexCache, searchEngine } from '../../../src/face/search/index-cache.js';
import { FakeCollection, KEY } from '../../support/face/index-helpers.js';
import { CODE_BITS, CODE_BYTES, hammingCut, signCode } from '../../../src/face/search/sign-code.js';
import { decodeEmbedding, encodeEmbedding } from '../../../src/face/store.js';
import { seededRandom } from '../../../src/platform/random.js';

function unit(seed: number, dim = 512): Float32Array {
  const v = new Float32Array(dim);
  let s = seed;
  let n = 0;
  for (let i = 0; i < dim; i++) {
    s = (s * 1664525 + 1013904223) >>> 0;
    v[i] = s / 2 ** 32 - 0.5;
    n += v[i] * v[i];
  }
  return v.map((x) => x / Math.sqrt(n));
}

/** `base` moved towards `noise` so that their cosine is exactly `cosine` (noise made orthogonal to base first). */
function at(base: Float32Array, noise: Float32Array, cosine: number): Float32Array {
  const d = base.reduce((a, x, i) => a + x * noise[i], 0);
  const ortho = noise.map((x, i) => x - d * base[i]);
  const n = Math.sqrt(ortho.reduce((a, x) => a + x * x, 0));
  return base.map((x, i) => cosine * x + Math.sqrt(1 - cosine * cosine) * (ortho[i] / n));
}

function popcount8(x: number): number {
  let c = 0;
  for (let b = x & 0xff; b; b >>= 1) c += b & 1;
  return c;
}

function hamming(a: Uint8Array, b: Uint8Array): number {
  let h = 0;
  for (let i = 0; i < a.length; i++) h += popcount8(a[i] ^ b[i]);
  return h;
}

/** The fast index and the plain scan over the same rows. */
function pair(capacity: number) {
  const fast = new CollectionIndex(512, capacity, 'usearch');
  const plain = new CollectionIndex(512, capacity, 'js');
  return {
    fast,
    plain,
    add: (owner: string, v: Float32Array) => {
      fast.add(owner, v);
      plain.add(owner, v);
    },
  };
}

/** Every query whose true best face is at or above the exact-from cosine gets that face's owner and cosine. */
function assertAgrees(fast: CollectionIndex, plain: CollectionIndex, queries: Float32Array[]): number {
  let checked = 0;
  for (const q of queries) {
    const [truth] = plain.search(q, 1);
    const [got] = fast.search(q, 1);
    if (truth.cosine >= EXACT_FROM_COSINE) {
      assert.equal(got.owner, truth.owner);
      assert.ok(Math.abs(got.cosine - truth.cosine) < 1e-6);
      checked++;
    } else {
      // Below the guarantee the answer is the best candidate: never better than the truth, and its cosine is its real one.
      assert.ok(got.cosine <= truth.cosine + 1e-6);
      assert.ok(plain.search(q, 10_000).some((r) => r.owner === got.owner && Math.abs(r.cosine - got.cosine) < 1e-6));
    }
  }
  return checked;
}

describe('face search index', () => {
  it('uses usearch (SIMD) here', () => assert.equal(searchEngine, 'usearch'));

  for (const engine of ['usearch', 'js'] as const) {
    it(`${engine}: finds the stored face, best per user, after growth`, () => {
      const idx = new CollectionIndex(512, 2, engine);
      for (let i = 0; i < 300; i++) idx.add(`user${i % 100}`, unit(i + 1));
      assert.equal(idx.count, 300);
      for (const i of [0, 57, 299]) {
        const [best] = idx.search(unit(i + 1), 1);
        assert.equal(best.owner, `user${i % 100}`);
        assert.ok(Math.abs(best.cosine - 1) < 1e-4);
      }
      const top = idx.search(unit(42), 3);
      assert.equal(top.length, 3);
      assert.equal(new Set(top.map((t) => t.owner)).size, 3, 'one entry per user');
      assert.ok(top[0].cosine >= top[1].cosine && top[1].cosine >= top[2].cosine);
      assert.deepEqual(new CollectionIndex(512, 4, engine).search(unit(1)), []);
    });
  }

  it('usearch on a large collection (sign codes + float32 rerank) agrees with the plain scan', () => {
    const big = new CollectionIndex(512, 16, 'usearch');
    const plain = new CollectionIndex(512, 16, 'js');
    for (let i = 0; i < 5000; i++) {
      const v = unit(i + 1000);
      big.add(`u${i % 4000}`, v);
      plain.add(`u${i % 4000}`, v);
    }
    for (let q = 0; q < 10; q++) {
      // a stored face plus noise, renormalised
      const base = unit(1000 + q * 431);
      const noise = unit(99_999 + q);
      const v = base.map((x, i) => x + 0.6 * noise[i]);
      const n = Math.sqrt(v.reduce((a, x) => a + x * x, 0));
      const query = v.map((x) => x / n);
      const a = big.search(query, 1)[0];
      const b = plain.search(query, 1)[0];
      assert.equal(a.owner, b.owner);
      assert.ok(Math.abs(a.cosine - b.cosine) < 1e-5);
    }
  });

  it('Hamming kernel: distances, histogram and gather match a plain popcount', () => {
    const module = hammingModule(CODE_BYTES);
    assert.ok(module, 'WebAssembly SIMD is available on Node 20');
    const n = 777;
    const [histAt, distAt, outAt, codesAt] = [1024, 8192, 16_384, 32_768];
    const memory = new WebAssembly.Memory({ initial: Math.ceil((codesAt + n * CODE_BYTES) / 65_536) });
    const kernel = hammingKernel(module, memory);
    const bytes = new Uint8Array(memory.buffer);
    const rnd = seededRandom(5);
    for (let i = 0; i < CODE_BYTES + n * CODE_BYTES; i++) bytes[i < CODE_BYTES ? i : codesAt + i - CODE_BYTES] = Math.floor(rnd() * 256);
    // Two codes at the extremes: equal to the query, and its complement.
    for (let j = 0; j < CODE_BYTES; j++) {
      bytes[codesAt + j] = bytes[j];
      bytes[codesAt + CODE_BYTES + j] = ~bytes[j] & 0xff;
    }
    kernel.hamming(0, codesAt, n, distAt, histAt);
    const dist = new Uint16Array(memory.buffer, distAt, n);
    const hist = new Uint32Array(memory.buffer, histAt, CODE_BITS + 1);
    const want = new Uint32Array(CODE_BITS + 1);
    for (let i = 0; i < n; i++) {
      const h = hamming(bytes.subarray(0, CODE_BYTES), bytes.subarray(codesAt + i * CODE_BYTES, codesAt + (i + 1) * CODE_BYTES));
      assert.equal(dist[i], h, `row ${i}`);
      want[h]++;
    }
    assert.equal(dist[0], 0);
    assert.equal(dist[1], CODE_BITS);
    assert.deepEqual([...hist], [...want]);
    const cut = dist[2];
    const found = kernel.gather(distAt, n, cut, outAt);
    const rows = [...new Uint32Array(memory.buffer, outAt, found)];
    assert.deepEqual(
      rows,
      [...dist.keys()].filter((i) => dist[i] <= cut),
    );
  });

  it("sign codes: a face at a cosine stays within that cosine's Hamming cut", () => {
    const rnd = seededRandom(11);
    const a = new Uint8Array(CODE_BYTES);
    const b = new Uint8Array(CODE_BYTES);
    for (const c of [0.6, 0.8, 0.95]) {
      let sum = 0;
      const trials = 400;
      for (let t = 0; t < trials; t++) {
        const q = unit(Math.floor(rnd() * 2 ** 31));
        signCode(q, a);
        signCode(at(q, unit(Math.floor(rnd() * 2 ** 31)), c), b);
        const h = hamming(a, b);
        assert.ok(h <= hammingCut(c), `cosine ${c}: distance ${h} > cut ${hammingCut(c)}`);
        sum += h;
      }
      // SimHash: the expected distance is bits * angle / pi.
      const expected = (CODE_BITS * Math.acos(c)) / Math.PI;
      assert.ok(Math.abs(sum / trials - expected) < 0.03 * CODE_BITS, `cosine ${c}: mean ${sum / trials}, expected ${expected}`);
    }
    // The cut falls as the cosine rises and admits nothing unrelated at a high cosine.
    assert.ok(hammingCut(0.5) > hammingCut(0.6) && hammingCut(0.6) > hammingCut(0.9));
    assert.equal(hammingCut(1), 0);
    assert.equal(hammingCut(-1), CODE_BITS);
    assert.ok(hammingCut(EXACT_FROM_COSINE) < CODE_BITS / 2);
  });

  it('fast path: same best user as the plain scan with several faces per user, adds after growth, low-threshold queries', () => {
    const rnd = seededRandom(21);
    // 1500 users with 4 faces each (a base face plus variations at cosine 0.7-0.9), added in a shuffled order.
    const users = Array.from({ length: 1500 }, (_, u) => unit(50_000 + u));
    const faces: [string, Float32Array][] = [];
    for (let u = 0; u < users.length; u++)
      for (let f = 0; f < 4; f++) faces.push([`user${u}`, f === 0 ? users[u] : at(users[u], unit(900_000 + u * 4 + f), 0.7 + 0.1 * rnd() * 2)]);
    for (let i = faces.length - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [faces[i], faces[j]] = [faces[j], faces[i]];
    }
    const { fast, plain, add } = pair(1024);
    for (const [owner, v] of faces) add(owner, v);
    assert.ok(fast['codes'], 'the collection is past the size that builds sign codes');
    const queries = [
      // new photos of enrolled users: clear matches and ones just above the guarantee
      ...Array.from({ length: 30 }, (_, i) => at(users[i * 37], unit(123_456 + i), 0.85)),
      ...Array.from({ length: 30 }, (_, i) => at(users[i * 41 + 3], unit(223_456 + i), EXACT_FROM_COSINE + 0.01)),
      // strangers
      ...Array.from({ length: 20 }, (_, i) => unit(323_456 + i)),
    ];
    assert.ok(assertAgrees(fast, plain, queries) >= 60);
    // A stranger's true best is still found when the caller asks for exactness down to any cosine (full scan).
    for (const q of queries.slice(60)) {
      const [got] = fast.search(q, 1, -1);
      const [truth] = plain.search(q, 1);
      assert.equal(got.owner, truth.owner);
      assert.ok(Math.abs(got.cosine - truth.cosine) < 1e-6);
    }
    // Faces added after the codes exist are found, and top-k lists the same users in the same order.
    for (let i = 0; i < 300; i++) add(`late${i}`, unit(700_000 + i));
    for (let i = 0; i < 300; i += 29) {
      const q = at(unit(700_000 + i), unit(800_000 + i), 0.8);
      assert.equal(fast.search(q, 1)[0].owner, `late${i}`);
      assert.deepEqual(
        fast.search(q, 3, 0.3).map((r) => r.owner),
        plain.search(q, 3).map((r) => r.owner),
      );
    }
    assert.equal(fast.count, 6300);
  });

  it('fast path through the cache: a deleted user is gone after the rebuild, the rest still agree', async () => {
    const cache = new FaceIndexCache();
    const store = new FakeCollection();
    for (let i = 0; i < 5000; i++) store.add(`u${i % 2500}`, i < 2500 ? unit(i + 1) : at(unit((i % 2500) + 1), unit(i + 77_777), 0.75));
    const q = at(unit(1234), unit(4321), 0.8);
    const first = await cache.get(KEY, store.version, store.loader);
    assert.ok(first['codes']);
    assert.equal(first.search(q, 1)[0].owner, 'u1233');
    // A delete moves the epoch: the next search builds the index again from the store.
    store.remove('u1233');
    const second = await cache.get(KEY, store.version, store.loader);
    assert.notEqual(second, first);
    const plain = new CollectionIndex(512, 16, 'js');
    for (const r of store.faces) plain.add(r.owner, r.embedding);
    assert.notEqual(second.search(q, 1)[0]?.owner, 'u1233');
    assertAgrees(second, plain, [q, at(unit(99), unit(98), 0.7), at(unit(2000), unit(1999), 0.65)]);
    // An add by this process lands in the loaded index (and its codes) at once.
    const pages = store.pages.length;
    await cache.added(KEY, 'newcomer', unit(31_337), store.add('newcomer', unit(31_337)));
    assert.equal((await cache.get(KEY, store.version, store.loader)).search(at(unit(31_337), unit(62_000), 0.7), 1)[0].owner, 'newcomer');
    assert.equal(store.pages.length, pages, 'no store read for its own add');
  });

  it('cache: reuses an index while the version holds; faces another process added are read by seq and appended', async () => {
    const cache = new FaceIndexCache();
    const store = new FakeCollection();
    store.add('a', unit(1));
    const first = await cache.get(KEY, store.version, store.loader);
    assert.equal(await cache.get(KEY, store.version, store.loader), first);
    assert.deepEqual(store.pages, [0]);
    // This process adds a face: appended in place, no store read.
    await cache.added(KEY, 'b', unit(2), store.add('b', unit(2)));
    assert.equal(await cache.get(KEY, store.version, store.loader), first);
    assert.equal(first.count, 2);
    assert.deepEqual(store.pages, [0]);
    // Two added elsewhere: concurrent searches share one read of the faces after seq 2.
    store.add('c', unit(3));
    store.add('d', unit(4));
    const [x, y] = await Promise.all([cache.get(KEY, store.version, store.loader), cache.get(KEY, store.version, store.loader)]);
    assert.equal(x, first);
    assert.equal(y, first);
    assert.deepEqual(store.pages, [0, 2]);
    assert.equal(first.count, 4);
    assert.equal(first.search(unit(4), 1)[0].owner, 'd');
  });

  it('cache: an own add that follows an unseen add elsewhere is not appended out of order; both come from the store once', async () => {
    const cache = new FaceIndexCache();
    const store = new FakeCollection();
    store.add('a', unit(1));
    const index = await cache.get(KEY, store.version, store.loader);
    store.add('elsewhere', unit(2));
    await cache.added(KEY, 'mine', unit(3), store.add('mine', unit(3)));
    assert.equal(index.count, 1, 'seq 3 is not appended while seq 2 is missing');
    await cache.get(KEY, store.version, store.loader);
    assert.equal(index.count, 3);
    assert.deepEqual(store.pages, [0, 1]);
    // A face whose id would sort anywhere (another host's clock) is found: the order is the seq, not the id.
    assert.equal(index.search(unit(2), 1)[0].owner, 'elsewhere');
    assert.equal(index.search(unit(3), 1)[0].owner, 'mine');
  });

  it('cache: a delete elsewhere (another epoch) rebuilds from the first page; invalidate does too', async () => {
    const cache = new FaceIndexCache();
    const store = new FakeCollection();
    for (let i = 1; i <= 4; i++) store.add(`u${i}`, unit(i));
    const first = await cache.get(KEY, store.version, store.loader);
    store.remove('u1');
    store.add('u1', unit(11));
    const rebuilt = await cache.get(KEY, store.version, store.loader);
    assert.notEqual(rebuilt, first);
    assert.equal(rebuilt.count, 4);
    assert.equal(rebuilt.search(unit(11), 1)[0].owner, 'u1');
    assert.ok((rebuilt.search(unit(1), 1)[0]?.cosine ?? 0) < 0.5, 'the deleted face is gone');
    assert.deepEqual(store.pages, [0, 0]);
    cache.invalidate(KEY.collectionId);
    await cache.get(KEY, store.version, store.loader);
    assert.deepEqual(store.pages, [0, 0, 0]);
  });

  it('cache: a page loader reads the collection in pages of pageSize', async () => {
    const cache = new FaceIndexCache({ pageSize: 3 });
    const store = new FakeCollection();
    for (let i = 0; i < 8; i++) store.add(`u${i}`, unit(i + 1));
    const asked: [number, number][] = [];
    const index = await cache.get(KEY, store.version, async (afterSeq, limit) => {
      asked.push([afterSeq, limit]);
      return store.loader(afterSeq, limit);
    });
    assert.deepEqual(
      asked,
      [
        [0, 3],
        [3, 3],
        [6, 2],
      ],
      'seq ranges up to the version, none past it',
    );
    assert.equal(index.count, 8);
    assert.equal(index.search(unit(8), 1)[0].owner, 'u7');
  });

  it('grows by a quarter, not by doubling', () => {
    const idx = new CollectionIndex(512, 1000, 'js');
    for (let i = 0; i < 1001; i++) idx.add(`u${i}`, unit(i + 1));
    assert.equal(idx['vectors'].length / 512, 1250);
    assert.equal(idx.search(unit(1001), 1)[0].owner, 'u1000');
  });

  it('stores embeddings as base64 float32 without loss', () => {
    const v = unit(9);
    assert.deepEqual(decodeEmbedding(encodeEmbedding(v)), v);
    assert.throws(() => new CollectionIndex(512).add('x', new Float32Array(10)));
  });
});
