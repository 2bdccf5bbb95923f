import type { Readable } from 'node:stream';

/**
 * Generated files (TTS audio, exports) live in a blob store under keys like
 * `tts/<app>/<id>.mp3`. One interface, a filesystem and an S3 implementation.
 */

export interface BlobInfo {
  size: number;
  contentType?: string;
  modified: Date;
}

/** Both ends inclusive, as in an HTTP Range header. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface BlobStore {
  /** Stores the whole blob or nothing: readers never see a partial one. */
  put(key: string, data: Buffer | NodeJS.ReadableStream, meta?: { contentType?: string }): Promise<{ key: string; size: number }>;
  stat(key: string): Promise<BlobInfo | undefined>;
  /** Rejects with BlobNotFoundError when there is no such blob. */
  read(key: string, range?: ByteRange): Promise<Readable>;
  /** False when there was nothing to delete. */
  delete(key: string): Promise<boolean>;
  /** Retention: deletes blobs under `prefix` last written before `before`; answers how many. */
  deleteOlderThan(prefix: string, before: Date): Promise<number>;
}

export class BlobKeyError extends Error {
  override name = 'BlobKeyError';
}

export class BlobNotFoundError extends Error {
  override name = 'BlobNotFoundError';
  constructor(readonly key: string) {
    super(`no blob "${key}"`);
  }
}

const MAX_KEY_LENGTH = 1024;
const KEY_CHARACTERS = /^[A-Za-z0-9._/-]+$/;

/**
 * Keys become file paths and object names, so anything that could climb out of
 * the store or mean different things on different systems is refused. Segments
 * starting with a dot are refused too: stores keep their temporary files there.
 */
export function validateBlobKey(key: string): string {
  if (typeof key !== 'string' || key === '') throw new BlobKeyError('blob key is empty');
  if (key.length > MAX_KEY_LENGTH) throw new BlobKeyError(`blob key is longer than ${MAX_KEY_LENGTH} characters`);
  if (key.includes('\0')) throw new BlobKeyError('blob key contains NUL');
  if (key.includes('\\')) throw new BlobKeyError('blob key contains a backslash');
  if (key.startsWith('/')) throw new BlobKeyError('blob key is an absolute path');
  if (!KEY_CHARACTERS.test(key)) throw new BlobKeyError('blob key may only contain A-Z a-z 0-9 . _ / -');
  for (const segment of key.split('/')) {
    if (segment === '') throw new BlobKeyError('blob key has an empty path segment');
    if (segment === '.' || segment === '..') throw new BlobKeyError('blob key contains a relative path segment');
    if (segment.startsWith('.')) throw new BlobKeyError('blob key segments may not start with a dot');
  }
  return key;
}

/** A retention prefix: a key, or the start of one (`tts/`, `tts/app1/`). Empty means everything. */
export function validateBlobPrefix(prefix: string): string {
  if (prefix === '') return prefix;
  validateBlobKey(prefix.endsWith('/') ? prefix.slice(0, -1) : prefix);
  return prefix;
}
