import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { BlobNotFoundError, validateBlobKey, validateBlobPrefix, type BlobInfo, type BlobStore, type ByteRange } from './store.js';

const TEMP_PREFIX = '.tmp-';
/** A temp file younger than this may belong to a put still writing it. */
const TEMP_FILE_GRACE_MS = 60 * 60 * 1000;

/** Content types by extension; keys always carry their extension (`tts/<app>/<id>.mp3`). */
const CONTENT_TYPES: Record<string, string> = {
  '.mp3': 'audio/mpeg',
  '.wav': 'audio/wav',
  '.ogg': 'audio/ogg',
  '.opus': 'audio/opus',
  '.m4a': 'audio/mp4',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8',
  '.pdf': 'application/pdf',
  '.zip': 'application/zip',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
  '.webp': 'image/webp',
};

export function contentTypeOf(key: string): string | undefined {
  return CONTENT_TYPES[path.extname(key).toLowerCase()];
}

/**
 * Blobs as files under one root folder, each key a relative path.
 *
 * A put writes `.tmp-<name>-<uuid>` beside the final file, fsyncs it, renames it
 * over the final name and fsyncs the folder: a reader sees the old blob or the
 * new one, never part of one, and a crash leaves at most a temp file that
 * retention removes. Keys cannot start a segment with a dot, so temp files
 * never collide with blobs.
 *
 * Content type is derived from the key's extension (see CONTENT_TYPES), not
 * stored: a sidecar file could disagree with its blob after a crash, and the
 * extension already says it. `meta.contentType` is for stores with object
 * metadata (S3); this store ignores it.
 */
export class FsBlobStore implements BlobStore {
  readonly root: string;

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  async put(key: string, data: Buffer | NodeJS.ReadableStream, _meta?: { contentType?: string }): Promise<{ key: string; size: number }> {
    const file = this.fileOf(key);
    const folder = path.dirname(file);
    await fs.mkdir(folder, { recursive: true });
    const temp = path.join(folder, `${TEMP_PREFIX}${path.basename(file)}-${randomUUID()}`);
    let size = 0;
    try {
      const handle = await fs.open(temp, 'wx');
      try {
        if (Buffer.isBuffer(data)) {
          await writeAll(handle, data);
          size = data.length;
        } else {
          for await (const chunk of data) {
            const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
            await writeAll(handle, bytes);
            size += bytes.length;
          }
        }
        await handle.sync();
      } finally {
        await handle.close();
      }
      await fs.rename(temp, file);
    } catch (error) {
      await fs.rm(temp, { force: true });
      throw error;
    }
    await syncFolder(folder);
    return { key, size };
  }

  async stat(key: string): Promise<BlobInfo | undefined> {
    const file = this.fileOf(key);
    try {
      const stats = await fs.stat(file);
      if (!stats.isFile()) return undefined;
      return { size: stats.size, contentType: contentTypeOf(key), modified: stats.mtime };
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    const file = this.fileOf(key);
    if (range && !(Number.isSafeInteger(range.start) && Number.isSafeInteger(range.end) && 0 <= range.start && range.start <= range.end)) {
      throw new RangeError(`invalid byte range ${range.start}-${range.end}`);
    }
    let handle: fs.FileHandle;
    try {
      // Opening first pins this version: a put renaming over it meanwhile does not mix contents.
      handle = await fs.open(file, 'r');
    } catch (error) {
      if (isMissing(error)) throw new BlobNotFoundError(key);
      throw error;
    }
    // A folder opens too (the start of longer keys): it is not a blob.
    let isFile = false;
    try {
      isFile = (await handle.stat()).isFile();
    } finally {
      if (!isFile) await handle.close();
    }
    if (!isFile) throw new BlobNotFoundError(key);
    return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
  }

  async delete(key: string): Promise<boolean> {
    try {
      await fs.unlink(this.fileOf(key));
      return true;
    } catch (error) {
      // EISDIR: a folder (the start of longer keys) is not a blob.
      if (isMissing(error) || (error as NodeJS.ErrnoException).code === 'EISDIR') return false;
      throw error;
    }
  }

  /**
   * Also removes temp files left by crashed puts (not counted). Keys are meant
   * to be unique (ids), so a blob rewritten during the sweep is not protected.
   */
  async deleteOlderThan(prefix: string, before: Date): Promise<number> {
    validateBlobPrefix(prefix);
    const cut = prefix.lastIndexOf('/');
    const startKey = cut < 0 ? '' : prefix.slice(0, cut);
    const tempCutoff = Math.min(before.getTime(), Date.now() - TEMP_FILE_GRACE_MS);
    let deleted = 0;

    const sweep = async (folderKey: string): Promise<void> => {
      const folder = folderKey === '' ? this.root : path.join(this.root, ...folderKey.split('/'));
      let entries;
      try {
        entries = await fs.readdir(folder, { withFileTypes: true });
      } catch (error) {
        if (isMissing(error)) return;
        throw error;
      }
      for (const entry of entries) {
        const key = folderKey === '' ? entry.name : `${folderKey}/${entry.name}`;
        const file = path.join(folder, entry.name);
        if (entry.isDirectory()) {
          if (!entry.name.startsWith('.') && `${key}/`.startsWith(prefix.slice(0, key.length + 1))) await sweep(key);
        } else if (entry.isFile()) {
          if (entry.name.startsWith(TEMP_PREFIX)) {
            if (await modifiedBefore(file, tempCutoff)) await fs.rm(file, { force: true });
          } else if (!entry.name.startsWith('.') && key.startsWith(prefix)) {
            if ((await modifiedBefore(file, before.getTime())) && (await this.delete(key))) deleted++;
          }
        }
      }
    };
    await sweep(startKey);
    return deleted;
  }

  private fileOf(key: string): string {
    validateBlobKey(key);
    return path.join(this.root, ...key.split('/'));
  }
}

async function writeAll(handle: fs.FileHandle, bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset);
    offset += bytesWritten;
  }
}

/** Makes the rename itself durable; some platforms cannot fsync a folder, which is fine there. */
async function syncFolder(folder: string): Promise<void> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(folder, 'r');
    await handle.sync();
  } catch {
    /* best effort */
  } finally {
    await handle?.close();
  }
}

async function modifiedBefore(file: string, time: number): Promise<boolean> {
  try {
    return (await fs.stat(file)).mtimeMs < time;
  } catch (error) {
    if (isMissing(error)) return false;
    throw error;
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
