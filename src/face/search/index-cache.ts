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

/** Collections larger than this are scanned in int8 first (4x less memory traffic), then re-ranked. */
const INT8_FROM = 4096;
/** Candidates re-ranked in float32 after the int8 scan. */
const RERANK = 64;
/** Components of a unit 512-d embedding are small (|x| rarely above 0.125): scale to use the int8 range, clip the rest. */
const QUANT_SCALE = 1016;

export function quantize(v: Float32Array): Int8Array {
  const out = new Int8Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = Math.max(-127, Math.min(127, Math.round(v[i] * QUANT_SCALE)));
  return out;
}

/**
 * One collection's embeddings in memory, for an exact scan (brute force over
 * contiguous float32 rows: recall 1.0 by construction).
 */
export class CollectionIndex {
  private vectors: Float32Array;
  /** int8 copy (x QUANT_SCALE, clipped) that usearch scans first on large collections; candidates are re-ranked in float32. */
  private quantized: Int8Array;
  private owners: string[] = [];
  count = 0;

  constructor(
    readonly dim = 512,
    capacity = 64,
    /** Which scan to use; defaults to usearch when it loaded. */
    readonly engine: 'usearch' | 'js' = searchEngine,
  ) {
    this.vectors = new Float32Array(dim * capacity);
    this.quantized = new Int8Array(engine === 'usearch' ? dim * capacity : 0);
  }

  add(owner: string, v: Float32Array): void {
    if (v.length !== this.dim) throw new Error(`embedding has ${v.length} dimensions, expected ${this.dim}`);
    if ((this.count + 1) * this.dim > this.vectors.length) {
      const grown = new Float32Array(this.vectors.length * 2);
      grown.set(this.vectors);
      this.vectors = grown;
      if (this.engine === 'usearch') {
        const q = new Int8Array(grown.length);
        q.set(this.quantized);
        this.quantized = q;
      }
    }
    this.vectors.set(v, this.count * this.dim);
    if (this.engine === 'usearch') this.quantized.set(quantize(v), this.count * this.dim);
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
    if (simd && this.engine === 'usearch' && this.count > INT8_FROM) {
      // Large collection: int8 SIMD scan for candidates, then exact float32 scores for them.
      const pool = Math.min(this.count, Math.max(RERANK, k * 8));
      const m = simd.exactSearch(this.quantized.subarray(0, this.count * this.dim), quantize(q), this.dim, pool, simd.MetricKind.IP, 1) as { keys: BigUint64Array };
      for (const key of m.keys) {
        const i = Number(key);
        keep(i, dot(this.vectors.subarray(i * this.dim, (i + 1) * this.dim), q));
      }
    } else if (simd && this.engine === 'usearch') {
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
 * Lazily loaded per-collection indexes, each tagged with the store's
 * "count:last id" stamp of the collection. A search passes the current stamp:
 * when another process added or deleted faces, the index is rebuilt. Adds by
 * this process append in place and move the stamp along.
 */
export class FaceIndexCache {
  private readonly indexes = new Map<string, { stamp: string; index: Promise<CollectionIndex> }>();

  get(collectionId: string, stamp: string, load: () => Promise<{ owner: string; embedding: Float32Array }[]>): Promise<CollectionIndex> {
    const cached = this.indexes.get(collectionId);
    if (cached && cached.stamp === stamp) return cached.index;
    const index = load().then((rows) => {
      const idx = new CollectionIndex(512, Math.max(64, rows.length));
      for (const r of rows) idx.add(r.owner, r.embedding);
      return idx;
    });
    index.catch(() => this.indexes.delete(collectionId));
    this.indexes.set(collectionId, { stamp, index });
    return index;
  }

  /** Appends to a loaded, current index (otherwise the next search reloads from the store). */
  async added(collectionId: string, owner: string, embedding: Float32Array, faceId: string): Promise<void> {
    const cached = this.indexes.get(collectionId);
    if (!cached) return;
    const [n] = cached.stamp.split(':');
    const index = await cached.index;
    if (this.indexes.get(collectionId) !== cached) return;
    index.add(owner, embedding);
    cached.stamp = `${Number(n) + 1}:${faceId}`;
  }

  invalidate(collectionId: string): void {
    this.indexes.delete(collectionId);
  }
}

export { dot };
