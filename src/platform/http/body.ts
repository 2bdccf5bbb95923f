import { errorCodes, type FastifyContentTypeParser, type FastifyInstance, type FastifyRequest } from 'fastify';
import sjson from 'secure-json-parse';
import { PlatformError } from './errors.js';
import { refuseNul } from './nul.js';

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

export function parseLenientBody(request: FastifyRequest, body: Buffer, kind: BodyKind | undefined = request.routeOptions.config?.body): unknown {
  if (kind === 'raw') return body;
  if (body.length === 0) return undefined;
  const text = body.toString('utf8').replace(/^\uFEFF/, '');
  if (text.trim() === '') return undefined;
  let parsed: unknown;
  try {
    // secure-json-parse drops __proto__ / constructor.prototype keys.
    parsed = sjson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' });
  } catch {
    const type = request.headers['content-type'] ?? '';
    if (type.includes('application/x-www-form-urlencoded') || looksLikeForm(text)) return refuseNul(text, parseForm(text));
    throw new PlatformError('invalidRequest', 'Body is not valid JSON');
  }
  return refuseNul(text, parsed);
}

/**
 * The whole body as one Buffer, held to `limit` bytes and to the declared
 * Content-Length (fastify's own errors, so they answer 413 and 400 as before).
 */
function readBody(request: FastifyRequest, payload: NodeJS.ReadableStream, limit: number): Promise<Buffer> {
  const declared = Number(request.headers['content-length']);
  if (declared > limit) return Promise.reject(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const cleanup = () => {
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', onError);
    };
    const onData = (chunk: Buffer | string) => {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      received += buf.length;
      if (received > limit) {
        cleanup();
        reject(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
        return;
      }
      chunks.push(buf);
    };
    const onEnd = () => {
      cleanup();
      if (!Number.isNaN(declared) && received !== declared) reject(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
      // One chunk (a small body) is the body: no copy.
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received));
    };
    const onError = (err: Error & { statusCode?: number }) => {
      cleanup();
      if (!(typeof err.statusCode === 'number' && err.statusCode >= 400)) err.statusCode = 400;
      reject(err);
    };
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onError);
    payload.resume();
  });
}

/**
 * Real clients send JSON as form-urlencoded, text/plain, octet-stream or with
 * no Content-Type at all; none of them may get a 415. One catch-all parser
 * reads the bytes and lets the route decide what they are. Services that take
 * multipart register @fastify/multipart in their own scope, which wins over '*'.
 * A request no route matched is not parsed at all: its answer is the 404 (or
 * 405), never "Body is not valid JSON" or "too large" about a body no route
 * would read; Node discards the unread bytes after the answer.
 */
export function installLenientParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  const lenient: FastifyContentTypeParser = (request, payload, done) => {
    if (request.is404) {
      done(null, undefined);
      return;
    }
    // routeOptions is a getter that builds its object on every read: read once.
    const route = request.routeOptions;
    readBody(request, payload, route.bodyLimit ?? app.initialConfig.bodyLimit ?? 1024 * 1024).then(
      (body) => {
        try {
          done(null, parseLenientBody(request, body, route.config?.body));
        } catch (err) {
          done(err as Error, undefined);
        }
      },
      (err: Error) => done(err, undefined),
    );
  };
  app.addContentTypeParser('*', lenient);
  // The same parser under the usual type: fastify remembers the parser of a Content-Type it found by name,
  // while the catch-all is looked for again (the header parsed) on every request.
  app.addContentTypeParser('application/json', lenient);
}
