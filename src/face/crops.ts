import type { BlobStore } from '../platform/blobs/store.js';
import type { PurgeHook } from '../platform/purge.js';

/**
 * Enrolled faces' aligned crops in the blob store, one PNG per face under
 * `face-crops/<application>/<collection id>/<face id>.png`, so a collection or
 * an application is deleted by its prefix. An application code outside
 * [A-Za-z0-9-] is written as `_` and its hex (no two codes share a folder).
 */
const ROOT = 'face-crops';

function segment(value: string): string {
  return /^[A-Za-z0-9-]+$/.test(value) ? value : `_${Buffer.from(value, 'utf8').toString('hex')}`;
}

export function cropKey(appCode: string, collectionId: string, faceId: string): string {
  return `${ROOT}/${segment(appCode)}/${segment(collectionId)}/${segment(faceId)}.png`;
}

/** Deletes everything under a prefix (the blob store's retention call with a cut-off in the future). */
async function deletePrefix(blobs: BlobStore, prefix: string): Promise<number> {
  return blobs.deleteOlderThan(prefix, new Date(Date.now() + 24 * 3600_000));
}

export class FaceCrops {
  constructor(private readonly blobs: BlobStore) {}

  async put(key: string, png: Uint8Array): Promise<void> {
    await this.blobs.put(key, Buffer.from(png.buffer, png.byteOffset, png.byteLength), { contentType: 'image/png' });
  }

  async read(key: string): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of await this.blobs.read(key)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  /** Crops of deleted faces; one that is already gone is not an error. */
  async delete(keys: readonly string[]): Promise<void> {
    for (const key of keys) await this.blobs.delete(key);
  }

  deleteCollection(appCode: string, collectionId: string): Promise<number> {
    return deletePrefix(this.blobs, `${ROOT}/${segment(appCode)}/${segment(collectionId)}/`);
  }
}

/** An application's purge: its faces' crops and its collections' index snapshots (the rows go with the table purge). */
export const purgeFaceBlobs: PurgeHook = async (appCode, { blobs }) => {
  const crops = await deletePrefix(blobs, `${ROOT}/${segment(appCode)}/`);
  // Index snapshots are keyed by the application's code with other characters as `_` (search/snapshot.ts).
  const snapshots = await deletePrefix(blobs, `face-index/${appCode.replace(/[^A-Za-z0-9_-]/g, '_')}/`);
  return { blobs: crops + snapshots };
};
