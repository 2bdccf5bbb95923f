import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CollectionIndex, searchEngine } from '../../src/face/search/index-cache.js';
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

  it('stores embeddings as base64 float32 without loss', () => {
    const v = unit(9);
    assert.deepEqual(decodeEmbedding(encodeEmbedding(v)), v);
    assert.throws(() => new CollectionIndex(512).add('x', new Float32Array(10)));
  });
});
