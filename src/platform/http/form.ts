import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { bufferedParts } from './multipart.js';

export interface UploadedFile {
  field: string;
  filename: string;
  mimetype: string;
  data: Buffer;
}

export interface FormInput {
  fields: Record<string, string>;
  files: UploadedFile[];
}

function scalar(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (Array.isArray(v)) return scalar(v[0]);
  if (typeof v === 'object') return undefined;
  return String(v);
}

/**
 * The request's form: multipart parts (fields and files), or a urlencoded /
 * JSON body, merged over the query string. Files are read whole (each is
 * capped by the multipart fileSize limit, which answers 413).
 */
export async function readForm(request: FastifyRequest): Promise<FormInput> {
  const fields: Record<string, string> = {};
  const files: UploadedFile[] = [];
  const query = (request.query ?? {}) as Record<string, unknown>;
  for (const [k, v] of Object.entries(query)) {
    const s = scalar(v);
    if (s !== undefined) fields[k] = s;
  }
  if (request.isMultipart()) {
    for await (const part of bufferedParts(request)) {
      if (part.type === 'file') {
        files.push({ field: part.fieldname, filename: part.filename, mimetype: part.mimetype, data: part.data });
      } else {
        const s = scalar(part.value);
        if (s !== undefined) fields[part.fieldname] = s;
      }
    }
  } else if (request.body && typeof request.body === 'object' && !Buffer.isBuffer(request.body)) {
    for (const [k, v] of Object.entries(request.body as Record<string, unknown>)) {
      const s = scalar(v);
      if (s !== undefined) fields[k] = s;
    }
  }
  return { fields, files };
}

/** Multipart parsing for a route scope whose files are at most `maxFileBytes` each (larger: the service's 413). */
export async function useMultipart(scope: FastifyInstance, maxFileBytes: number): Promise<void> {
  await scope.register(multipart, {
    limits: { fileSize: maxFileBytes, files: 4, fields: 40, fieldSize: 64 * 1024, parts: 50, headerPairs: 200 },
    throwFileSizeLimit: true,
  });
}
