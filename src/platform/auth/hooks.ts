import type { FastifyRequest, HookHandlerDoneFunction, onRequestHookHandler } from 'fastify';
import type { CredentialKind } from '../db/schema.js';
import { PlatformError } from '../http/errors.js';
import type { Credentials } from './credentials.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The application the caller authenticated as; set by an auth hook. */
    appCode: string;
  }
}

function bearerFrom(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : undefined;
}

const KEY_HEADERS = ['api_key', 'api-key', 'apikey'] as const;

/** Real clients spell the key four ways, sometimes in one program. */
export function apiKeyFrom(request: FastifyRequest): string | undefined {
  for (const name of KEY_HEADERS) {
    const value = request.headers[name];
    if (typeof value === 'string' && value.trim()) return value.trim();
  }
  const query = request.query as Record<string, unknown> | undefined;
  const fromQuery = query?.api_key;
  return typeof fromQuery === 'string' && fromQuery.trim() ? fromQuery.trim() : undefined;
}

/**
 * A request hook that names the application of a secret taken from the request. Callback style: a cached
 * secret is answered in the same call, with no promise per request.
 */
function authHook(
  credentials: Credentials,
  kind: CredentialKind,
  secretOf: (request: FastifyRequest) => string | undefined,
  missing: string,
  refused: string,
): onRequestHookHandler {
  const settle = (request: FastifyRequest, appCode: string | null, done: HookHandlerDoneFunction) => {
    if (!appCode) return done(new PlatformError('unauthorized', refused));
    request.appCode = appCode;
    done();
  };
  return function authenticate(request, _reply, done) {
    const secret = secretOf(request);
    if (!secret) return done(new PlatformError('unauthorized', missing));
    let answer: ReturnType<Credentials['authenticateSoon']>;
    try {
      answer = credentials.authenticateSoon(secret, kind);
    } catch (err) {
      // A callback hook that throws leaves the request unanswered: the client would wait for ever.
      return done(err as Error);
    }
    if (answer === null || typeof answer === 'string') return settle(request, answer, done);
    answer.then((appCode) => settle(request, appCode, done), done);
  };
}

/** Bearer token auth, as /api/v3 uses. Runs on onRequest, so no body is read for a stranger. */
export function requireBearer(credentials: Credentials): onRequestHookHandler {
  return authHook(credentials, 'token', bearerFrom, 'Missing bearer token: send Authorization: Bearer <token>', 'Invalid or revoked bearer token');
}

/** API key auth, as the recognition, face, speech and credit services use. */
export function requireApiKey(credentials: Credentials): onRequestHookHandler {
  return authHook(credentials, 'api_key', apiKeyFrom, 'Missing api_key', 'Invalid or revoked api_key');
}
