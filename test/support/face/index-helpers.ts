import type { CollectionKey, FacePageLoader, FaceRow, IndexVersion } from '../../../src/face/search/index-cache.js';

export const KEY: CollectionKey = { appCode: 'app1', collectionId: '0190aaaa-0000-7000-8000-000000000001' };

/** A collection as the store keeps it (migration 0004_face_search_02): faces numbered by seq, an epoch moved by every delete. */
export class FakeCollection {
  faces: FaceRow[] = [];
  seq = 0;
  epoch = 0;
  /** The afterSeq of every page read. */
  readonly pages: number[] = [];

  add(owner: string, embedding: Float32Array): IndexVersion {
    this.faces.push({ seq: ++this.seq, owner, embedding });
    return this.version;
  }

  remove(owner: string): void {
    this.epoch++;
    this.faces = this.faces.filter((f) => f.owner !== owner);
  }

  get version(): IndexVersion {
    return { epoch: this.epoch, seq: this.seq };
  }

  readonly loader: FacePageLoader = async (afterSeq, span) => {
    this.pages.push(afterSeq);
    return this.faces.filter((f) => f.seq > afterSeq && f.seq <= afterSeq + span);
  };
}
