import { createRequire } from 'node:module';
import { dot, similarityToCosine } from '../engine/similarity.js';
import { SignCodeTable } from './code-table.js';
import { CODE_BYTES, CODE_DIMENSIONS, hammingCut } from './sign-code.js';

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
      // A quarter more, not double: at 1M faces doubling would allocate and copy 4 GB for one added face.
      const rows = this.vectors.length / this.dim;
      const grown = new Float32Array(Math.max(rows + 64, Math.ceil(rows * 1.25)) * this.dim);
      grown.set(this.vectors);
      this.vectors = grown;
    }
    this.vectors.set(v, this.count * this.dim);
    this.owners[this.count] = owner;
    this.count++;
    if (this.codes) this.codes.add(v);
    else if (this.count > CODES_FROM && this.engine === 'usearch' && this.dim === CODE_DIMENSIONS) this.buildCodes();
  }

  /**
   * An index over rows already in memory (a snapshot's): `vectors` holds
   * `owners.length` rows and is taken over, not copied; `codes` are the sign
   * codes of those rows when the snapshot had them (computed otherwise).
   */
  static restore(dim: number, owners: string[], vectors: Float32Array, codes?: Uint8Array, engine: 'usearch' | 'js' = searchEngine): CollectionIndex {
    if (vectors.length < owners.length * dim) throw new Error('fewer rows than owners');
    const idx = new CollectionIndex(dim, 1, engine);
    idx.vectors = vectors;
    idx.owners = owners;
    idx.count = owners.length;
    if (idx.count > CODES_FROM && engine === 'usearch' && dim === CODE_DIMENSIONS) {
      if (codes && codes.length === idx.count * CODE_BYTES) {
        idx.codes = SignCodeTable.create(vectors.length / dim);
        idx.codes?.importCodes(codes);
      } else {
        idx.buildCodes();
      }
    }
    return idx;
  }

  /**
   * What a snapshot stores, taken at once: the owners and codes are copied;
   * `vectors` is a view of the first `count` rows, which later adds never
   * write (they go after them, or into a grown copy).
   */
  parts(): { owners: string[]; vectors: Float32Array; codes: Uint8Array | undefined } {
    return { owners: this.owners.slice(0, this.count), vectors: this.vectors.subarray(0, this.count * this.dim), codes: this.codes?.exportCodes() };
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
      const order = Array.from(scores.keys())
        .sort((a, b) => scores[b] - scores[a])
        .slice(0, want);
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

/** A stored face as the index loads it: `seq` numbers the collection's faces in commit order. */
export interface FaceRow {
  seq: number;
  owner: string;
  embedding: Float32Array;
}

/**
 * The store's faces of one collection with afterSeq < seq <= afterSeq + span,
 * in seq order. A seq range rather than "the next n after": the query then
 * touches only that range's rows whatever plan the database picks (with
 * "after n, limit n" PostgreSQL's bitmap plan read every later row per page).
 * Deletes leave holes, so a range may hold fewer than `span` faces.
 */
export type FacePageLoader = (afterSeq: number, span: number) => Promise<FaceRow[]>;

/** A collection and the application that owns it (snapshots are kept and checked per application). */
export interface CollectionKey {
  appCode: string;
  collectionId: string;
}

/** The store's counters of a collection: `seq` of its latest face, `epoch` moved by every delete. */
export interface IndexVersion {
  epoch: number;
  seq: number;
}

/** Where snapshots of loaded indexes are kept (snapshot.ts: the blob store). */
export interface SnapshotStore {
  /** A snapshot at `version.epoch` with a seq at most `version.seq`, or undefined (none, corrupt, stale: the reason is reported). */
  read(key: CollectionKey, version: IndexVersion, dim: number): Promise<{ index: CollectionIndex; seq: number } | undefined>;
  write(key: CollectionKey, version: IndexVersion, index: CollectionIndex): Promise<void>;
  delete(key: CollectionKey): Promise<void>;
}

export interface FaceIndexCacheOptions {
  /** Faces read from the store per query. */
  pageSize?: number;
  snapshots?: SnapshotStore;
  /** Collections with at least this many faces get a snapshot after a load from the store. */
  snapshotFrom?: number;
  /** A snapshot is written again once this share of its faces were added after it (and at least 1000). */
  resnapshotShare?: number;
  /** Background snapshot writes report failures here (a failed write only costs the next process a slower start). */
  onError?: (err: unknown) => void;
}

interface State {
  index: CollectionIndex;
  epoch: number;
  /** Every face with a seq up to this one is in the index. */
  seq: number;
  /** Seq of the snapshot this index came from or last wrote; undefined: none. */
  snapshotSeq: number | undefined;
}

/**
 * Lazily loaded per-collection indexes, each tagged with the store's version
 * of the collection (its faces_epoch and faces_seq, migration 0004_face_search_02). A
 * search passes the current version: at the same epoch the faces with a seq
 * after the index's are appended (another process added them); at another
 * epoch (a delete anywhere) the index is built again. Seqs are given in commit
 * order under the collection's row lock, so no face is skipped whatever the
 * hosts' clocks say. Adds by this process append in place.
 *
 * A build reads the snapshot first when there is one at the current epoch
 * (then only the faces added after it), else the store in pages of
 * `pageSize` faces (each decoded, indexed and dropped before the next). A
 * build from the store of at least `snapshotFrom` faces writes a snapshot in
 * the background, as does a catch-up that appended many faces since the last.
 *
 * Every step on one collection's index is chained on the previous one, so
 * concurrent searches share a load and appends never interleave.
 */
export class FaceIndexCache {
  private readonly states = new Map<string, { epoch: number; ready: Promise<State> }>();
  private readonly writing = new Map<string, Promise<void>>();
  private readonly pageSize: number;
  private readonly snapshotFrom: number;
  private readonly resnapshotShare: number;

  constructor(private readonly options: FaceIndexCacheOptions = {}) {
    this.pageSize = options.pageSize ?? 10_000;
    this.snapshotFrom = options.snapshotFrom ?? 50_000;
    this.resnapshotShare = options.resnapshotShare ?? 0.1;
  }

  /** The collection's index at `version`; `dim` is its recogniser's embedding size. */
  async get(key: CollectionKey, version: IndexVersion, loadPage: FacePageLoader, dim = 512): Promise<CollectionIndex> {
    const cached = this.states.get(key.collectionId);
    let entry: { epoch: number; ready: Promise<State> };
    if (cached && cached.epoch === version.epoch) {
      entry = cached;
      entry.ready = entry.ready.then((state) => (state.seq >= version.seq ? state : this.catchUp(key, state, loadPage, version.seq)));
    } else {
      entry = { epoch: version.epoch, ready: this.build(key, version, loadPage, dim) };
      this.states.set(key.collectionId, entry);
    }
    const ready = entry.ready;
    ready.catch(() => {
      if (this.states.get(key.collectionId) === entry && entry.ready === ready) this.states.delete(key.collectionId);
    });
    return (await ready).index;
  }

  private async build(key: CollectionKey, version: IndexVersion, loadPage: FacePageLoader, dim: number): Promise<State> {
    const snap = await this.options.snapshots?.read(key, version, dim).catch((err) => {
      this.options.onError?.(err);
      return undefined;
    });
    if (snap) return this.catchUp(key, { index: snap.index, epoch: version.epoch, seq: snap.seq, snapshotSeq: snap.seq }, loadPage, version.seq);
    // Room for an eighth more faces: adds right after a load do not copy the whole collection.
    const index = new CollectionIndex(dim, Math.max(64, version.seq + (version.seq >> 3)));
    const state: State = { index, epoch: version.epoch, seq: 0, snapshotSeq: undefined };
    await this.eachPage(loadPage, 0, version.seq, (rows) => this.append(state, rows));
    // Every face up to the version is in (a delete may have left the last seqs empty).
    state.seq = Math.max(state.seq, version.seq);
    if (index.count >= this.snapshotFrom) this.snapshot(key, state);
    return state;
  }

  private async catchUp(key: CollectionKey, state: State, loadPage: FacePageLoader, upTo: number): Promise<State> {
    await this.eachPage(loadPage, state.seq, upTo, (rows) => this.append(state, rows));
    state.seq = Math.max(state.seq, upTo);
    const since = state.seq - (state.snapshotSeq ?? 0);
    if (state.snapshotSeq !== undefined && since >= Math.max(1000, state.index.count * this.resnapshotShare)) this.snapshot(key, state);
    return state;
  }

  private append(state: State, rows: FaceRow[]): void {
    for (const r of rows) {
      // A row at or below the index's seq is already in it (an add by this process raced the page read).
      if (r.seq <= state.seq) continue;
      state.index.add(r.owner, r.embedding);
      state.seq = r.seq;
    }
  }

  /** Writes a snapshot of the index as it is now, in the background; one write per collection at a time. */
  private snapshot(key: CollectionKey, state: State): void {
    const store = this.options.snapshots;
    if (!store || this.writing.has(key.collectionId)) return;
    const version = { epoch: state.epoch, seq: state.seq };
    state.snapshotSeq = state.seq;
    const done = store
      .write(key, version, state.index)
      .catch((err) => this.options.onError?.(err))
      .finally(() => this.writing.delete(key.collectionId));
    this.writing.set(key.collectionId, done);
  }

  /** Resolves when the background snapshot writes started so far have finished (tests, shutdown). */
  async idle(): Promise<void> {
    await Promise.all([...this.writing.values()]);
  }

  /** The faces with afterSeq < seq <= upTo, a range of pageSize seqs per query. */
  private async eachPage(loadPage: FacePageLoader, afterSeq: number, upTo: number, use: (rows: FaceRow[]) => void): Promise<void> {
    for (let after = afterSeq; after < upTo; after += this.pageSize) use(await loadPage(after, Math.min(this.pageSize, upTo - after)));
  }

  /**
   * A face this process just added, with the collection's version after the
   * add: appended in place when the index holds every face before it;
   * otherwise the next search catches up from the store.
   */
  async added(key: CollectionKey, owner: string, embedding: Float32Array, version: IndexVersion): Promise<void> {
    const entry = this.states.get(key.collectionId);
    if (!entry || entry.epoch !== version.epoch) return;
    entry.ready = entry.ready.then((state) => {
      if (state.seq === version.seq - 1) {
        state.index.add(owner, embedding);
        state.seq = version.seq;
      }
      return state;
    });
    await entry.ready.catch(() => undefined);
  }

  invalidate(collectionId: string): void {
    this.states.delete(collectionId);
  }

  /** The collection is gone: its index and its snapshot. */
  async dropped(key: CollectionKey): Promise<void> {
    this.states.delete(key.collectionId);
    await this.writing.get(key.collectionId);
    // The collection is already gone from the store; a snapshot left behind is only unused bytes.
    await this.options.snapshots?.delete(key).catch((err) => this.options.onError?.(err));
  }
}

export { dot };
