import { createRequire } from 'node:module';
import { dot, similarityToCosine } from '../engine/similarity.js';
import { SignCodeTable } from './code-table.js';
import { CODE_DIMENSIONS, hammingCut } from './sign-code.js';

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

/** Collections larger than this get sign codes and a two-stage search (below it one float32 scan is already cheap). */
const CODES_FROM = 4096;
/** Codes nearest the query that are always scored exactly, whatever the guarantee cut admits (the best match below it). */
const POOL = 64;
/** When the cut admits more than this share of the rows, one exact scan of everything is cheaper than scoring them one by one. */
const FULL_SCAN_SHARE = 0.5;

/**
 * The lowest cosine for which a search is exact by default: the one the API's
 * default similarity threshold (0.85) maps to. A face at or above it is never
 * missed; below it the answer is the best of the nearest codes (the API
 * answers "not found" there anyway). Callers with a lower threshold pass its
 * cosine to `search`.
 */
export const EXACT_FROM_COSINE = similarityToCosine(0.85);

/**
 * One collection's embeddings in memory. Small collections are scanned in
 * float32 (exact). Large ones are searched in two stages: a Hamming scan of
 * 1024-bit sign codes (sign-code.ts, code-table.ts) keeps every face whose
 * code is within the cut that a face at cosine >= `minCosine` passes except
 * with probability MISS_PROBABILITY (1e-12 per face), plus the POOL nearest
 * codes; those candidates are then scored exactly on the float32 rows.
 */
export class CollectionIndex {
  private vectors: Float32Array;
  /** Sign codes, built once the collection passes CODES_FROM (undefined without WebAssembly SIMD). */
  private codes: SignCodeTable | undefined;
  private owners: string[] = [];
  count = 0;

  constructor(
    readonly dim = 512,
    capacity = 64,
    /** Which scan to use; defaults to usearch when it loaded. 'js' is the plain scan everything is checked against. */
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
    if (this.codes) this.codes.add(v);
    else if (this.count > CODES_FROM && this.engine === 'usearch' && this.dim === CODE_DIMENSIONS) this.buildCodes();
  }

  private buildCodes(): void {
    this.codes = SignCodeTable.create(this.vectors.length / this.dim);
    for (let i = 0; this.codes && i < this.count; i++) this.codes.add(this.row(i));
  }

  private row(i: number): Float32Array {
    return this.vectors.subarray(i * this.dim, (i + 1) * this.dim);
  }

  /** Row i . q in float64; four running sums let the products overlap. */
  private score(i: number, q: Float32Array): number {
    const vs = this.vectors;
    const d = this.dim;
    const base = i * d;
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let j = 0;
    for (; j + 4 <= d; j += 4) {
      s0 += vs[base + j] * q[j];
      s1 += vs[base + j + 1] * q[j + 1];
      s2 += vs[base + j + 2] * q[j + 2];
      s3 += vs[base + j + 3] * q[j + 3];
    }
    for (; j < d; j++) s0 += vs[base + j] * q[j];
    return s0 + s1 + (s2 + s3);
  }

  /**
   * Best cosine per owner (a user may have several faces), best first, at
   * most `k`. Exact for every face at cosine >= `minCosine` (see the class);
   * a small collection or the 'js' engine is exact for all.
   */
  search(q: Float32Array, k = 1, minCosine = EXACT_FROM_COSINE): { owner: string; cosine: number }[] {
    if (this.count === 0) return [];
    if (q.length !== this.dim) throw new Error(`query has ${q.length} dimensions, expected ${this.dim}`);
    // The best face overall belongs to the best user, so asking for a few more faces than users suffices.
    const want = Math.min(this.count, Math.max(16, k * 8));
    const best = new Map<string, number>();
    const keep = (i: number, cosine: number) => {
      const owner = this.owners[i];
      const prev = best.get(owner);
      if (prev === undefined || cosine > prev) best.set(owner, cosine);
    };
    const near = this.codes?.near(q, hammingCut(minCosine), Math.max(POOL, k * 8));
    if (near && near.length <= this.count * FULL_SCAN_SHARE) {
      // Only the best `want` faces matter (as in the other scans), so most candidates cost one comparison after scoring.
      const top = new BestFaces(want);
      for (let c = 0; c < near.length; c++) top.offer(near[c], this.score(near[c], q));
      top.forEach(keep);
    } else if (simd && this.engine === 'usearch') {
      const m = simd.exactSearch(this.vectors.subarray(0, this.count * this.dim), q, this.dim, want, simd.MetricKind.IP, 1) as {
        keys: BigUint64Array;
        distances: Float32Array;
      };
      // usearch's inner-product "distance" is 1 - dot: score the winners again for the exact float32 value.
      for (const key of m.keys) keep(Number(key), this.score(Number(key), q));
    } else {
      const scores = new Float32Array(this.count);
      for (let i = 0; i < this.count; i++) scores[i] = this.score(i, q);
      const order = Array.from(scores.keys()).sort((a, b) => scores[b] - scores[a]).slice(0, want);
      for (const i of order) keep(i, scores[i]);
    }
    return [...best.entries()]
      .map(([owner, cosine]) => ({ owner, cosine }))
      .sort((a, b) => b.cosine - a.cosine)
      .slice(0, k);
  }
}

/** The `size` highest-scoring rows offered, kept sorted in small arrays (size is a few dozen). */
class BestFaces {
  private readonly rows: Int32Array;
  private readonly scores: Float64Array;
  private filled = 0;

  constructor(private readonly size: number) {
    this.rows = new Int32Array(size);
    this.scores = new Float64Array(size);
  }

  offer(row: number, score: number): void {
    if (this.filled === this.size && score <= this.scores[this.size - 1]) return;
    let at = this.filled < this.size ? this.filled++ : this.size - 1;
    for (; at > 0 && this.scores[at - 1] < score; at--) {
      this.scores[at] = this.scores[at - 1];
      this.rows[at] = this.rows[at - 1];
    }
    this.scores[at] = score;
    this.rows[at] = row;
  }

  forEach(f: (row: number, score: number) => void): void {
    for (let i = 0; i < this.filled; i++) f(this.rows[i], this.scores[i]);
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
