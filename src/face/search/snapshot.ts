import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { BlobNotFoundError, type BlobStore } from '../../platform/blobs/store.js';
import { CollectionIndex, type CollectionKey, type IndexVersion, type SnapshotStore } from './index-cache.js';
import { CODE_BYTES } from './sign-code.js';

/*
 * A loaded collection index as one blob, so a new process reads it in one
 * sequential pass instead of decoding every face from the store (1M faces:
 * over 2 minutes from PostgreSQL, bench/face-index-scale.ts).
 *
 * Layout (little-endian):
 *   0   8 bytes  MAGIC
 *   8   u32      FORMAT (bump it whenever this layout or the sign-code scheme changes)
 *   12  u32      dim
 *   16  u32      count
 *   20  u32      bytes per sign code (0: none; they are computed on load)
 *   24  f64      epoch, 32 f64 seq: the collection's version the rows are
 *   40  u32      meta length M, then M bytes of JSON {app, collection, tag}
 *       u32      owners length O, then O bytes: the owners joined by "\n"
 *       count * dim float32 rows, then count * code bytes
 *       32 bytes SHA-256 of everything before it
 *
 * A snapshot is used only when every check passes: magic, format, dim, the
 * application, collection and embedding model it was written for, a size that
 * adds up, the store's epoch (a delete since makes it stale), a seq not ahead
 * of the store, and the checksum. Anything else is ignored (reported through
 * `onReject`) and the index is built from the store, which then writes a
 * fresh snapshot over it.
 */

const MAGIC = Buffer.from('SAOLAFIX', 'latin1');
const FORMAT = 1;
const FIXED = 44;
/** Rows are streamed in slices of this many bytes (views of the index's memory, not copies). */
const SLICE = 8 << 20;

export class BlobIndexSnapshots implements SnapshotStore {
  constructor(
    private readonly blobs: BlobStore,
    /** The embedding model the rows come from: a snapshot of another model's rows is never used. */
    private readonly tag: string,
    private readonly onReject: (key: CollectionKey, reason: string) => void = () => {},
  ) {}

  /** Per application, then per collection id (ids are unique; the header is checked as well). */
  key(k: CollectionKey): string {
    return `face-index/${k.appCode.replace(/[^A-Za-z0-9_-]/g, '_')}/${k.collectionId.replace(/[^A-Za-z0-9_-]/g, '_')}.idx`;
  }

  async write(k: CollectionKey, version: IndexVersion, index: CollectionIndex): Promise<void> {
    const { owners, vectors, codes } = index.parts();
    const meta = Buffer.from(JSON.stringify({ app: k.appCode, collection: k.collectionId, tag: this.tag }), 'utf8');
    const ownerBytes = Buffer.from(owners.join('\n'), 'utf8');
    const head = Buffer.alloc(FIXED);
    MAGIC.copy(head, 0);
    head.writeUInt32LE(FORMAT, 8);
    head.writeUInt32LE(index.dim, 12);
    head.writeUInt32LE(owners.length, 16);
    head.writeUInt32LE(codes ? CODE_BYTES : 0, 20);
    head.writeDoubleLE(version.epoch, 24);
    head.writeDoubleLE(version.seq, 32);
    head.writeUInt32LE(meta.length, 40);
    const ownersLength = Buffer.alloc(4);
    ownersLength.writeUInt32LE(ownerBytes.length);
    const rows = Buffer.from(vectors.buffer, vectors.byteOffset, vectors.byteLength);
    function* pieces(): Generator<Buffer> {
      const hash = createHash('sha256');
      const emit = (b: Buffer) => {
        hash.update(b);
        return b;
      };
      yield emit(head);
      yield emit(meta);
      yield emit(ownersLength);
      yield emit(ownerBytes);
      for (let at = 0; at < rows.length; at += SLICE) yield emit(rows.subarray(at, Math.min(rows.length, at + SLICE)));
      if (codes) yield emit(Buffer.from(codes.buffer, codes.byteOffset, codes.byteLength));
      yield hash.digest();
    }
    await this.blobs.put(this.key(k), Readable.from(pieces(), { objectMode: false }), { contentType: 'application/octet-stream' });
  }

  async read(k: CollectionKey, version: IndexVersion, dim: number): Promise<{ index: CollectionIndex; seq: number } | undefined> {
    const key = this.key(k);
    const info = await this.blobs.stat(key);
    if (!info) return undefined;
    const reject = (reason: string) => {
      this.onReject(k, reason);
      return undefined;
    };
    if (info.size < FIXED + 32) return reject('shorter than a header');
    let stream;
    try {
      stream = await this.blobs.read(key);
    } catch (err) {
      if (err instanceof BlobNotFoundError) return undefined;
      throw err;
    }
    const input = new Pull(stream);
    try {
      const head = await input.bytes(FIXED);
      if (!head.subarray(0, 8).equals(MAGIC)) return reject('not a face index snapshot');
      if (head.readUInt32LE(8) !== FORMAT) return reject(`format ${head.readUInt32LE(8)}, expected ${FORMAT}`);
      if (head.readUInt32LE(12) !== dim) return reject(`dimension ${head.readUInt32LE(12)}, expected ${dim}`);
      const count = head.readUInt32LE(16);
      const codeBytes = head.readUInt32LE(20);
      const epoch = head.readDoubleLE(24);
      const seq = head.readDoubleLE(32);
      const metaLength = head.readUInt32LE(40);
      if (codeBytes !== 0 && codeBytes !== CODE_BYTES) return reject(`sign codes of ${codeBytes} bytes`);
      if (metaLength > 4096) return reject('header too long');
      // Checked before the rows are read: a stale snapshot costs one small read.
      if (epoch !== version.epoch) return reject(`stale: epoch ${epoch}, the store is at ${version.epoch}`);
      if (!(seq <= version.seq) || !(count <= seq)) return reject(`seq ${seq} with ${count} faces does not fit the store's seq ${version.seq}`);
      let meta: { app?: unknown; collection?: unknown; tag?: unknown };
      try {
        meta = JSON.parse((await input.bytes(metaLength)).toString('utf8'));
      } catch {
        return reject('header is not JSON');
      }
      if (meta.app !== k.appCode || meta.collection !== k.collectionId) return reject('written for another application or collection');
      if (meta.tag !== this.tag) return reject(`rows of model ${String(meta.tag)}, expected ${this.tag}`);
      const ownersLength = (await input.bytes(4)).readUInt32LE(0);
      const expected = FIXED + metaLength + 4 + ownersLength + count * dim * 4 + count * codeBytes + 32;
      if (info.size !== expected) return reject(`${info.size} bytes where the header says ${expected}`);
      const ownerText = (await input.bytes(ownersLength)).toString('utf8');
      const owners = count === 0 ? [] : ownerText.split('\n');
      if (owners.length !== count) return reject(`${owners.length} owners for ${count} rows`);
      // Room for an eighth more faces, as a build from the store leaves.
      const vectors = new Float32Array((count + Math.max(64, count >> 3)) * dim);
      await input.into(new Uint8Array(vectors.buffer, 0, count * dim * 4));
      let codes: Uint8Array | undefined;
      if (codeBytes) {
        codes = new Uint8Array(count * codeBytes);
        await input.into(codes);
      }
      const digest = input.digest();
      const trailer = await input.bytes(32, false);
      if (!trailer.equals(digest)) return reject('checksum does not match');
      return { index: CollectionIndex.restore(dim, owners, vectors, codes), seq };
    } catch (err) {
      if (err instanceof TruncatedError) return reject(err.message);
      throw err;
    } finally {
      stream.destroy();
    }
  }

  async delete(k: CollectionKey): Promise<void> {
    await this.blobs.delete(this.key(k));
  }
}

class TruncatedError extends Error {}

/** Exact-length reads from a byte stream, hashing what they consume. */
class Pull {
  private readonly chunks: AsyncIterator<Buffer>;
  private pending: Buffer = Buffer.alloc(0);
  private readonly hash = createHash('sha256');

  constructor(stream: NodeJS.ReadableStream) {
    this.chunks = (stream as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  }

  /** Fills `out` completely. */
  async into(out: Uint8Array, hashed = true): Promise<void> {
    let at = 0;
    while (at < out.length) {
      if (this.pending.length === 0) {
        const next = await this.chunks.next();
        if (next.done) throw new TruncatedError('truncated');
        this.pending = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value);
      }
      const n = Math.min(out.length - at, this.pending.length);
      const piece = this.pending.subarray(0, n);
      out.set(piece, at);
      if (hashed) this.hash.update(piece);
      this.pending = this.pending.subarray(n);
      at += n;
    }
  }

  async bytes(n: number, hashed = true): Promise<Buffer> {
    const out = Buffer.alloc(n);
    await this.into(out, hashed);
    return out;
  }

  digest(): Buffer {
    return this.hash.digest();
  }
}
