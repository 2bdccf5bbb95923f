import { createRequire } from 'node:module';
import { dot } from '../engine/similarity.js';

type Usearch = typeof import('usearch');

/** usearch's SIMD exact search when its native addon loads; a plain scan otherwise (SAOLA_FACE_SEARCH_ENGINE=js forces it). */
function loadUsearch(): Usearch | undefined {
  if (process.env.SAOLA_FACE_SEARCH_ENGINE?.trim().toLowerCase() === 'js') return undefined;
  try {
    return createRequire(import.meta.url)('usearch') as Usearch;
  } catch {
    return undefined;
  }
}

const simd = loadUsearch();

/** Which scan searches run on: 'usearch' (SIMD) or 'js'. */
export const searchEngine: 'usearch' | 'js' = simd ? 'usearch' : 'js';

/**
 * One collection's embeddings in memory, for an exact scan (brute force over
 * contiguous float32 rows: recall 1.0 by construction).
 */
export class CollectionIndex {
  private vectors: Float32Array;
  private owners: string[] = [];
  count = 0;

  constructor(
    readonly dim = 512,
    capacity = 64,
    /** Which scan to use; defaults to usearch when it loaded. */
    readonly engine: 'usearch' | 'js' = searchEngine,
  ) {
    this.vectors = new Float32Array(dim * capacity);
  }

  add(owner: string, v: Float32Array): void {
    if (v.length !== this.dim) throw new Error(`embedding has ${v.length} dimensions, expected ${this.dim}`);
    if ((this.count + 1) * this.dim > this.vectors.length) {
      const grown = new Float32Array(this.vectors.length * 2);
      grown.set(this.vectors);
      this.vectors = grown;
    }
    this.vectors.set(v, this.count * this.dim);
    this.owners[this.count] = owner;
    this.count++;
  }

  /** Best cosine per owner (a user may have several faces), best first, at most `k`. */
  search(q: Float32Array, k = 1): { owner: string; cosine: number }[] {
    if (this.count === 0) return [];
    // The best face overall belongs to the best user, so asking for a few more faces than users suffices.
    const want = Math.min(this.count, Math.max(16, k * 8));
    const best = new Map<string, number>();
    const keep = (i: number, cosine: number) => {
      const owner = this.owners[i];
      const prev = best.get(owner);
      if (prev === undefined || cosine > prev) best.set(owner, cosine);
    };
    if (simd && this.engine === 'usearch') {
      const m = simd.exactSearch(this.vectors.subarray(0, this.count * this.dim), q, this.dim, want, simd.MetricKind.IP, 1) as {
        keys: BigUint64Array;
        distances: Float32Array;
      };
      // usearch's inner-product "distance" is 1 - dot.
      for (let j = 0; j < m.keys.length; j++) keep(Number(m.keys[j]), 1 - m.distances[j]);
    } else {
      const d = this.dim;
      const vs = this.vectors;
      const scores = new Float32Array(this.count);
      for (let i = 0; i < this.count; i++) {
        const base = i * d;
        let s = 0;
        for (let j = 0; j < d; j++) s += vs[base + j] * q[j];
        scores[i] = s;
      }
      const order = Array.from(scores.keys()).sort((a, b) => scores[b] - scores[a]).slice(0, want);
      for (const i of order) keep(i, scores[i]);
    }
    return [...best.entries()]
      .map(([owner, cosine]) => ({ owner, cosine }))
      .sort((a, b) => b.cosine - a.cosine)
      .slice(0, k);
  }
}

/**
 * Lazily loaded per-collection indexes. Adds append in place; deletes drop the
 * collection's index, which is rebuilt from the store on the next search.
 * Process-local: correct when this process is the only writer of a collection.
 */
export class FaceIndexCache {
  private readonly indexes = new Map<string, Promise<CollectionIndex>>();

  get(collectionId: string, load: () => Promise<{ owner: string; embedding: Float32Array }[]>): Promise<CollectionIndex> {
    let p = this.indexes.get(collectionId);
    if (!p) {
      p = load().then((rows) => {
        const idx = new CollectionIndex(512, Math.max(64, rows.length));
        for (const r of rows) idx.add(r.owner, r.embedding);
        return idx;
      });
      p.catch(() => this.indexes.delete(collectionId));
      this.indexes.set(collectionId, p);
    }
    return p;
  }

  /** Appends to a loaded index (a not-yet-loaded one will read the row from the store). */
  async added(collectionId: string, owner: string, embedding: Float32Array): Promise<void> {
    const p = this.indexes.get(collectionId);
    if (p) (await p).add(owner, embedding);
  }

  invalidate(collectionId: string): void {
    this.indexes.delete(collectionId);
  }
}

export { dot };
