import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { BlobNotFoundError, type BlobInfo, type BlobStore, type ByteRange } from './store.js';

/** What a Range header asks of a blob of a given size. */
export type RangeRequest = { kind: 'whole' } | { kind: 'partial'; range: ByteRange } | { kind: 'unsatisfiable' };

/**
 * Reads a single `bytes=` range (RFC 9110 section 14). Headers this server does
 * not handle (several ranges, other units, bad syntax) are ignored, which the
 * RFC allows: the client gets the whole blob.
 */
export function parseRange(header: string | undefined, size: number): RangeRequest {
  if (header === undefined) return { kind: 'whole' };
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!match) return { kind: 'whole' };
  const [, first, last] = match;
  if (first === '' && last === '') return { kind: 'whole' };
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', range: { start: Math.max(0, size - suffix), end: size - 1 } };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return { kind: 'whole' };
  if (start >= size) return { kind: 'unsatisfiable' };
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  return { kind: 'partial', range: { start, end } };
}

function entityTag(info: BlobInfo): string {
  return `"${info.size.toString(16)}-${Math.floor(info.modified.getTime()).toString(16)}"`;
}

function matchesAnyTag(header: string, tag: string): boolean {
  return header.trim() === '*' || header.split(',').some((t) => t.trim().replace(/^W\//, '') === tag);
}

/**
 * Answers a GET or HEAD for a blob, with Range, ETag and Last-Modified.
 * Returns false, having sent nothing, when the blob does not exist, so the
 * caller answers 404 in its own service's shape.
 */
export async function sendBlob(request: FastifyRequest, reply: FastifyReply, store: BlobStore, key: string, contentType: string): Promise<boolean> {
  const info = await store.stat(key);
  if (!info) return false;
  const tag = entityTag(info);
  const validators = { etag: tag, 'last-modified': info.modified.toUTCString(), 'accept-ranges': 'bytes' };

  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch !== undefined && matchesAnyTag(ifNoneMatch, tag)) {
    reply.code(304).headers(validators).send();
    return true;
  }

  // If-Range: a client resuming a download of a blob that changed since gets the new one whole.
  const ifRange = [request.headers['if-range']].flat()[0];
  const rangeHeader = ifRange === undefined || ifRange.trim() === tag ? request.headers.range : undefined;
  const wanted = parseRange(rangeHeader, info.size);
  if (wanted.kind === 'unsatisfiable') {
    reply.code(416).headers(validators).header('content-range', `bytes */${info.size}`).send();
    return true;
  }
  const range = wanted.kind === 'partial' ? wanted.range : undefined;

  // HEAD gets an empty stream, not an empty body: fastify's automatic HEAD route
  // rewrites Content-Length to 0 for an empty body but leaves it alone for streams.
  let body = Readable.from([]);
  if (request.method !== 'HEAD') {
    try {
      body = await store.read(key, range);
    } catch (error) {
      if (error instanceof BlobNotFoundError) return false; // deleted between stat and read
      throw error;
    }
  }
  reply.code(range ? 206 : 200).headers({
    ...validators,
    'content-type': contentType,
    'content-length': String(range ? range.end - range.start + 1 : info.size),
  });
  if (range) reply.header('content-range', `bytes ${range.start}-${range.end}/${info.size}`);
  // Not awaited: awaiting a reply waits for the whole body to be streamed out.
  reply.send(body);
  return true;
}
