import type { FastifyInstance, FastifyRequest } from 'fastify';
import sjson from 'secure-json-parse';
import { PlatformError } from './errors.js';

/**
 * How a route wants its body. `json`: parsed as JSON whatever the
 * Content-Type says (a form-urlencoded body that is not JSON becomes an object
 * of its fields). `raw`: the bytes as a Buffer (TTS text, ASR audio).
 */
export type BodyKind = 'json' | 'raw';

declare module 'fastify' {
  interface FastifyContextConfig {
    body?: BodyKind;
  }
}

function parseForm(text: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null);
  for (const [key, value] of new URLSearchParams(text)) {
    const prev = out[key];
    if (prev === undefined) out[key] = value;
    else out[key] = Array.isArray(prev) ? [...prev, value] : [prev, value];
  }
  return { ...out };
}

function looksLikeForm(text: string): boolean {
  return /^[^=&\s{}[\]"]+=/.test(text);
}

export function parseLenientBody(request: FastifyRequest, body: Buffer): unknown {
  if (request.routeOptions.config?.body === 'raw') return body;
  if (body.length === 0) return undefined;
  const text = body.toString('utf8').replace(/^\uFEFF/, '');
  if (text.trim() === '') return undefined;
  try {
    // secure-json-parse drops __proto__ / constructor.prototype keys.
    return sjson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' });
  } catch {
    const type = request.headers['content-type'] ?? '';
    if (type.includes('application/x-www-form-urlencoded') || looksLikeForm(text)) return parseForm(text);
    throw new PlatformError('invalidRequest', 'Body is not valid JSON');
  }
}

/**
 * Real clients send JSON as form-urlencoded, text/plain, octet-stream or with
 * no Content-Type at all; none of them may get a 415. One catch-all parser
 * reads the bytes and lets the route decide what they are. Services that take
 * multipart register @fastify/multipart in their own scope, which wins over '*'.
 */
export function installLenientParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => {
    try {
      done(null, parseLenientBody(request, body as Buffer));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
}
