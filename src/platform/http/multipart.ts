import type { FastifyRequest } from 'fastify';
import { PlatformError } from './errors.js';

export type BufferedPart =
  { type: 'file'; fieldname: string; filename: string; mimetype: string; data: Buffer } | { type: 'field'; fieldname: string; value: unknown; valueTruncated: boolean };

/**
 * The parts of a multipart request, files read into memory. A body the parser
 * cannot read (no closing boundary, broken part headers, not multipart at all
 * under a multipart type) is the caller's mistake: it becomes the service's
 * bad-request answer, not a 500. Limit errors (@fastify/multipart's, with
 * their own status, e.g. 413) pass through unchanged.
 */
export async function* bufferedParts(request: FastifyRequest): AsyncGenerator<BufferedPart> {
  const parts = request.parts()[Symbol.asyncIterator]();
  for (;;) {
    let next: Awaited<ReturnType<typeof parts.next>>;
    try {
      next = await parts.next();
    } catch (err) {
      throw malformed(err);
    }
    if (next.done) return;
    const part = next.value;
    if (part.type === 'file') {
      let data: Buffer;
      try {
        data = await part.toBuffer();
      } catch (err) {
        throw malformed(err);
      }
      yield { type: 'file', fieldname: part.fieldname, filename: part.filename ?? '', mimetype: part.mimetype ?? '', data };
    } else {
      yield { type: 'field', fieldname: part.fieldname, value: part.value, valueTruncated: part.valueTruncated };
    }
  }
}

function malformed(err: unknown): unknown {
  if (typeof (err as { statusCode?: unknown })?.statusCode === 'number' || err instanceof PlatformError) return err;
  return new PlatformError('invalidRequest', `The multipart body cannot be read: ${(err as Error)?.message ?? 'malformed'}`);
}
