import { Readable } from 'node:stream';
import type { S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { contentTypeOf } from './fs-store.js';
import { BlobNotFoundError, validateBlobKey, validateBlobPrefix, type BlobInfo, type BlobStore, type ByteRange } from './store.js';

/** S3 allows at most 10,000 parts; 8 MiB parts allow blobs up to ~80 GB. */
const DEFAULT_PART_SIZE = 8 * 1024 * 1024;
/** ListObjectsV2 and DeleteObjects take at most 1000 keys. */
const MAX_PAGE_SIZE = 1000;

export interface S3BlobStoreOptions {
  bucket: string;
  /** An S3-compatible server (MinIO, Ceph, R2, s3rver ...); AWS when absent. */
  endpoint?: string;
  region: string;
  /** Both or neither: without them the SDK's default chain (env, profile, instance role) is used. */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** `<endpoint>/<bucket>/<key>` instead of `<bucket>.<endpoint>/<key>`; most self-hosted servers need it. */
  forcePathStyle?: boolean;
  /**
   * A streamed put is buffered up to this many bytes; a longer stream becomes a
   * multipart upload in parts of this size. S3 requires at least 5 MiB.
   */
  partSize?: number;
  /** Keys per list and per batch delete during retention (at most 1000). */
  pageSize?: number;
}

type S3Sdk = typeof import('@aws-sdk/client-s3');

/**
 * Blobs as objects in one S3 bucket, the object key being the blob key.
 *
 * The SDK is big, so it is imported on first use: a process on the embedded
 * filesystem store never loads it.
 *
 * Atomicity comes from S3 itself: a PUT, or the completion of a multipart
 * upload, makes the whole new object visible at once. A put never starts the
 * PUT before it holds the whole body (or, for a long stream, before every part
 * is uploaded), so a source stream that fails midway leaves the previous blob
 * untouched; a failed multipart upload is aborted.
 *
 * Content type: `meta.contentType`, else the key's extension, stored as the
 * object's Content-Type. Objects written without either report whatever the
 * server defaults to (usually `binary/octet-stream`).
 *
 * `delete` answers whether something was there with a HEAD before the DELETE
 * (S3's DELETE does not say), so two concurrent deletes may both answer true.
 */
export class S3BlobStore implements BlobStore {
  readonly bucket: string;
  private readonly partSize: number;
  private readonly pageSize: number;
  private connection: Promise<{ sdk: S3Sdk; client: S3Client }> | undefined;

  constructor(private readonly options: S3BlobStoreOptions) {
    if (!options.bucket) throw new TypeError('S3 bucket is empty');
    if ((options.accessKeyId === undefined) !== (options.secretAccessKey === undefined)) {
      throw new TypeError('S3 access key id and secret access key go together');
    }
    this.bucket = options.bucket;
    this.partSize = options.partSize ?? DEFAULT_PART_SIZE;
    this.pageSize = options.pageSize ?? MAX_PAGE_SIZE;
    if (!Number.isSafeInteger(this.partSize) || this.partSize < 1) throw new TypeError(`partSize must be a positive integer`);
    if (!Number.isInteger(this.pageSize) || this.pageSize < 1 || this.pageSize > MAX_PAGE_SIZE) {
      throw new TypeError(`pageSize must be an integer from 1 to ${MAX_PAGE_SIZE}`);
    }
  }

  /** Where the blobs go, for logs and /readyz (never the credentials). */
  describe(): string {
    return `s3://${this.bucket}${this.options.endpoint ? ` at ${this.options.endpoint}` : ''}`;
  }

  /** Resolves when the bucket answers (readiness). */
  async check(): Promise<void> {
    const { sdk, client } = await this.connect();
    await client.send(new sdk.HeadBucketCommand({ Bucket: this.bucket }));
  }

  async put(key: string, data: Buffer | NodeJS.ReadableStream, meta?: { contentType?: string }): Promise<{ key: string; size: number }> {
    validateBlobKey(key);
    const contentType = meta?.contentType ?? contentTypeOf(key);
    if (Buffer.isBuffer(data)) {
      await this.putObject(key, data, contentType);
      return { key, size: data.length };
    }

    const iterator = (data as AsyncIterable<Buffer | string>)[Symbol.asyncIterator]();
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let ended = false;
    /** Reads until a part is full or the stream ends. */
    const fill = async () => {
      while (pendingBytes < this.partSize) {
        const next = await iterator.next();
        if (next.done) {
          ended = true;
          return;
        }
        const bytes = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
        pending.push(bytes);
        pendingBytes += bytes.length;
      }
    };
    const takePart = (): Buffer => {
      const all = Buffer.concat(pending, pendingBytes);
      const part = all.subarray(0, Math.min(this.partSize, all.length));
      const rest = all.subarray(part.length);
      pending = rest.length > 0 ? [rest] : [];
      pendingBytes = rest.length;
      return part;
    };

    await fill();
    if (ended && pendingBytes <= this.partSize) {
      const body = Buffer.concat(pending, pendingBytes);
      await this.putObject(key, body, contentType);
      return { key, size: body.length };
    }

    // Longer than one part: a multipart upload, visible only once completed.
    const { sdk, client } = await this.connect();
    const { UploadId } = await client.send(new sdk.CreateMultipartUploadCommand({ Bucket: this.bucket, Key: key, ContentType: contentType }));
    if (!UploadId) throw new Error(`S3 gave no upload id for "${key}"`);
    const parts: { ETag: string | undefined; PartNumber: number }[] = [];
    let size = 0;
    try {
      for (;;) {
        if (!ended) await fill();
        if (pendingBytes === 0 && parts.length > 0) break;
        const part = takePart();
        const PartNumber = parts.length + 1;
        const { ETag } = await client.send(
          new sdk.UploadPartCommand({
            Bucket: this.bucket,
            Key: key,
            UploadId,
            PartNumber,
            Body: part,
            ContentLength: part.length,
          }),
        );
        parts.push({ ETag, PartNumber });
        size += part.length;
        if (ended && pendingBytes === 0) break;
      }
      await client.send(
        new sdk.CompleteMultipartUploadCommand({
          Bucket: this.bucket,
          Key: key,
          UploadId,
          MultipartUpload: { Parts: parts },
        }),
      );
    } catch (error) {
      await Promise.resolve(iterator.return?.()).catch(() => undefined);
      await client.send(new sdk.AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId })).catch(() => undefined); // the bucket's lifecycle rule for incomplete uploads is the backstop
      throw error;
    }
    return { key, size };
  }

  async stat(key: string): Promise<BlobInfo | undefined> {
    validateBlobKey(key);
    const { sdk, client } = await this.connect();
    try {
      const head = await client.send(new sdk.HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return {
        size: head.ContentLength ?? 0,
        contentType: head.ContentType,
        modified: head.LastModified ?? new Date(0),
      };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    validateBlobKey(key);
    if (range && !(Number.isSafeInteger(range.start) && Number.isSafeInteger(range.end) && 0 <= range.start && range.start <= range.end)) {
      throw new RangeError(`invalid byte range ${range.start}-${range.end}`);
    }
    const { sdk, client } = await this.connect();
    try {
      const object = await client.send(
        new sdk.GetObjectCommand({
          Bucket: this.bucket,
          Key: key,
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      );
      const body = (object.Body as Readable | undefined) ?? Readable.from([]);
      if (!range) return body;
      // Some S3-compatible servers answer a range with more than was asked
      // (s3rver serves all of "bytes=0-0"); cut their answer to the range.
      const served = parseContentRange(object.ContentRange) ?? { start: 0, end: Infinity };
      if (served.start === range.start && served.end <= range.end) return body;
      if (served.start > range.start) {
        body.destroy();
        throw new Error(`S3 served bytes from ${served.start} of "${key}" for a range from ${range.start}`);
      }
      return Readable.from(slice(body, range.start - served.start, range.end - range.start + 1), { objectMode: false });
    } catch (error) {
      if (isNotFound(error)) throw new BlobNotFoundError(key);
      // The blob exists but the range starts past its end: nothing to read, as on a file.
      if (range && statusOf(error) === 416) return Readable.from([]);
      throw error;
    }
  }

  async delete(key: string): Promise<boolean> {
    if (!(await this.stat(key))) return false;
    const { sdk, client } = await this.connect();
    await client.send(new sdk.DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
    return true;
  }

  /**
   * Lists the prefix a page at a time and deletes each page's old objects in
   * one batch. Objects whose names are not valid blob keys were not written by
   * this store and are left alone.
   *
   * Pages with ListObjects (v1) and the last key as the marker: every
   * S3-compatible server has it, where some fail on v2's continuation tokens
   * (s3rver builds them with DES, which Node's OpenSSL 3 no longer has).
   */
  async deleteOlderThan(prefix: string, before: Date): Promise<number> {
    validateBlobPrefix(prefix);
    const { sdk, client } = await this.connect();
    let deleted = 0;
    let Marker: string | undefined;
    for (;;) {
      const page = await client.send(
        new sdk.ListObjectsCommand({
          Bucket: this.bucket,
          Prefix: prefix === '' ? undefined : prefix,
          MaxKeys: this.pageSize,
          Marker,
        }),
      );
      const listed = page.Contents ?? [];
      const old = listed.filter(
        (object) =>
          object.Key !== undefined &&
          object.Key.startsWith(prefix) &&
          isBlobKey(object.Key) &&
          object.LastModified !== undefined &&
          object.LastModified.getTime() < before.getTime(),
      );
      if (old.length > 0) {
        const result = await client.send(
          new sdk.DeleteObjectsCommand({
            Bucket: this.bucket,
            Delete: { Objects: old.map((object) => ({ Key: object.Key })), Quiet: false },
          }),
        );
        deleted += result.Deleted?.length ?? 0;
        const failure = result.Errors?.[0];
        if (failure) {
          throw new Error(`S3 refused to delete "${failure.Key}": ${failure.Code} ${failure.Message} (${deleted} deleted so far)`);
        }
      }
      const last = listed.at(-1)?.Key;
      if (!page.IsTruncated || last === undefined) return deleted;
      Marker = last;
    }
  }

  /** Releases the client's sockets. */
  async close(): Promise<void> {
    const connection = this.connection;
    this.connection = undefined;
    if (connection) (await connection.catch(() => undefined))?.client.destroy();
  }

  private async putObject(key: string, body: Buffer, contentType: string | undefined): Promise<void> {
    const { sdk, client } = await this.connect();
    await client.send(
      new sdk.PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Body: body,
        ContentLength: body.length,
        ContentType: contentType,
      }),
    );
  }

  private connect(): Promise<{ sdk: S3Sdk; client: S3Client }> {
    this.connection ??= (async () => {
      const sdk = await import('@aws-sdk/client-s3');
      const { endpoint, region, accessKeyId, secretAccessKey, forcePathStyle } = this.options;
      const client = new sdk.S3Client({
        region,
        endpoint,
        forcePathStyle,
        credentials: accessKeyId !== undefined && secretAccessKey !== undefined ? { accessKeyId, secretAccessKey } : undefined,
        // Checksums only where S3 demands them: many S3-compatible servers reject
        // the SDK's default trailing checksums (aws-chunked uploads).
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      });
      return { sdk, client };
    })();
    // A failed import is not cached: the next call tries again.
    this.connection.catch(() => (this.connection = undefined));
    return this.connection;
  }
}

/** `bytes <start>-<end>/<size>` of a 206 answer. */
function parseContentRange(header: string | undefined): { start: number; end: number } | undefined {
  const match = header ? /^bytes (\d+)-(\d+)\//.exec(header) : null;
  return match ? { start: Number(match[1]), end: Number(match[2]) } : undefined;
}

/** `length` bytes of `source` after skipping `skip`; stops reading (and closes the source) once it has them. */
async function* slice(source: Readable, skip: number, length: number): AsyncGenerator<Buffer> {
  let toSkip = skip;
  let left = length;
  for await (const chunk of source) {
    let bytes: Buffer = chunk;
    if (toSkip > 0) {
      const skipped = Math.min(toSkip, bytes.length);
      bytes = bytes.subarray(skipped);
      toSkip -= skipped;
    }
    if (bytes.length === 0) continue;
    const piece = bytes.subarray(0, left);
    left -= piece.length;
    yield piece;
    if (left === 0) return;
  }
}

function statusOf(error: unknown): number | undefined {
  return (error as Partial<S3ServiceException> | undefined)?.$metadata?.httpStatusCode;
}

/** No such object. A HEAD cannot tell a missing bucket from a missing key; check() can. */
function isNotFound(error: unknown): boolean {
  const name = (error as { name?: string } | undefined)?.name;
  return name === 'NotFound' || name === 'NoSuchKey' || (statusOf(error) === 404 && name !== 'NoSuchBucket');
}

function isBlobKey(key: string): boolean {
  try {
    validateBlobKey(key);
    return true;
  } catch {
    return false;
  }
}
