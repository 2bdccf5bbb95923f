import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
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

/** Bearer token auth, as /api/v3 uses. Runs on onRequest, so no body is read for a stranger. */
export function requireBearer(credentials: Credentials): onRequestAsyncHookHandler {
  return async function bearerAuth(request) {
    const token = bearerFrom(request);
    if (!token) throw new PlatformError('unauthorized', 'Missing bearer token: send Authorization: Bearer <token>');
    const appCode = await credentials.authenticate(token, 'token');
    if (!appCode) throw new PlatformError('unauthorized', 'Invalid or revoked bearer token');
    request.appCode = appCode;
  };
}

/** API key auth, as the recognition, face, speech and credit services use. */
export function requireApiKey(credentials: Credentials): onRequestAsyncHookHandler {
  return async function apiKeyAuth(request) {
    const key = apiKeyFrom(request);
    if (!key) throw new PlatformError('unauthorized', 'Missing api_key');
    const appCode = await credentials.authenticate(key, 'api_key');
    if (!appCode) throw new PlatformError('unauthorized', 'Invalid or revoked api_key');
    request.appCode = appCode;
  };
}
