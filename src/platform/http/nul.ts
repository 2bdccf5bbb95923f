import type { FastifyInstance } from 'fastify';
import { PlatformError } from './errors.js';

/**
 * PostgreSQL's text cannot hold U+0000 (the store would fail and the client get a 500), and no field of any spec
 * is binary text, so a NUL in a body string, a query parameter or a path parameter is the client's error on every
 * store engine: 400 in the service's own error shape. Raw bodies (audio, TTS text bytes) are not parsed, so not
 * checked.
 */
const MESSAGE = 'Request holds a NUL character (U+0000), which no text field accepts';

/** Whether any string (key or value) in a parsed value holds U+0000. */
export function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\0');
  if (Array.isArray(value)) return value.some(holdsNul);
  if (value !== null && typeof value === 'object') return Object.entries(value).some(([k, v]) => k.includes('\0') || holdsNul(v));
  return false;
}

/** `parsed` unless it holds a NUL; only bodies whose text shows one (literal, escaped or percent-encoded) are walked. */
export function refuseNul<T>(text: string, parsed: T): T {
  if (!/\0|\\u0000|%00/i.test(text) || !holdsNul(parsed)) return parsed;
  throw new PlatformError('invalidRequest', MESSAGE);
}

/** Query and path parameters: only a URL that spells %00 is looked at. */
export function installNulGuard(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    if (/%00/i.test(request.url) && (holdsNul(request.query) || holdsNul(request.params))) done(new PlatformError('invalidRequest', MESSAGE));
    else done();
  });
}
