import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CollectionIndex, FaceIndexCache, searchEngine } from '../../src/face/search/index-cache.js';
import { decodeEmbedding, encodeEmbedding } from '../../src/face/store.js';

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

  it('usearch on a large collection (int8 scan + float32 rerank) agrees with the plain scan', () => {
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

  it('cache: reuses an index while the store stamp holds, rebuilds when another writer changed it', async () => {
    const cache = new FaceIndexCache();
    let loads = 0;
    const rows = [{ owner: 'a', embedding: unit(1) }];
    const load = async () => {
      loads++;
      return rows.slice();
    };
    const first = await cache.get('c', '1:x', load);
    assert.equal(await cache.get('c', '1:x', load), first);
    assert.equal(loads, 1);
    // This process adds a face: appended in place, the stamp moves along, no reload.
    await cache.added('c', 'b', unit(2), 'y');
    assert.equal(await cache.get('c', '2:y', load), first);
    assert.equal(first.count, 2);
    assert.equal(loads, 1);
    // Another process added one (the store's stamp differs): rebuilt from the store.
    rows.push({ owner: 'b', embedding: unit(2) }, { owner: 'c', embedding: unit(3) });
    const second = await cache.get('c', '3:z', load);
    assert.notEqual(second, first);
    assert.equal(second.count, 3);
    assert.equal(second.search(unit(3), 1)[0].owner, 'c');
    cache.invalidate('c');
    await cache.get('c', '3:z', load);
    assert.equal(loads, 3);
  });

  it('stores embeddings as base64 float32 without loss', () => {
    const v = unit(9);
    assert.deepEqual(decodeEmbedding(encodeEmbedding(v)), v);
    assert.throws(() => new CollectionIndex(512).add('x', new Float32Array(10)));
  });
});
