/**
 * Browser access (CORS), closed unless an application lists its origins
 * (docs/api-contract.md#browser-access). A preflight carries no key, so it is
 * answered (204) when some application allows the origin (or, with
 * `?api_key=`, when that key's application does) and the path has the method
 * asked for; the request itself gets `Access-Control-Allow-Origin` only when
 * the application its key names allows the origin. Anything else gets no CORS
 * header, and the console (cookie sessions) never does.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Credentials } from '../auth/credentials.js';
import { apiKeyFrom } from '../auth/hooks.js';
import type { Database } from '../db/schema.js';

/** How long a process answers from what it read (another process's change applies within this). */
const CACHE_MS = 5_000;
/** Origins per application, at most. */
export const MAX_ORIGINS = 50;
const PREFLIGHT_MAX_AGE_S = 600;
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** `scheme://host[:port]`, http or https, as a browser sends it in `Origin`; undefined when `text` is not one. */
export function normaliseOrigin(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  // An origin has no path, query, fragment or credentials: the text is its origin (a final slash aside).
  return url.origin === text.trim().replace(/\/$/, '').toLowerCase() ? url.origin : undefined;
}

/** Why `origins` is not a valid list of allowed origins, or undefined. */
export function originsError(origins: unknown): string | undefined {
  if (!Array.isArray(origins)) return 'allowed_origins must be an array of origins';
  if (origins.length > MAX_ORIGINS) return `allowed_origins holds at most ${MAX_ORIGINS} origins`;
  const wrong = origins.find((o) => typeof o !== 'string' || normaliseOrigin(o) === undefined);
  if (wrong !== undefined) return `allowed_origins: ${JSON.stringify(wrong)} is not an origin (scheme://host[:port], http or https)`;
  return undefined;
}

/** The origins each application allows, in `app_cors_origins` (one row per application that allows any). */
export class CorsOrigins {
  private readonly byApp = new Map<string, { at: number; origins: Set<string> }>();
  private union: { at: number; origins: Set<string> } | undefined;

  constructor(private readonly db: Kysely<Database>) {}

  async list(appCode: string): Promise<string[]> {
    const row = await this.db.selectFrom('app_cors_origins').select('origins').where('app_code', '=', appCode).executeTakeFirst();
    return row ? (JSON.parse(row.origins) as string[]) : [];
  }

  /** Replaces the application's origins (checked with `originsError` first); an empty list closes it again. */
  async replace(appCode: string, origins: string[]): Promise<string[]> {
    const list = [...new Set(origins.map((o) => normaliseOrigin(o)!))].sort();
    if (list.length === 0) {
      await this.db.deleteFrom('app_cors_origins').where('app_code', '=', appCode).execute();
    } else {
      const row = { app_code: appCode, origins: JSON.stringify(list), updated_time: new Date().toISOString() };
      await this.db
        .insertInto('app_cors_origins')
        .values(row)
        .onConflict((oc) => oc.column('app_code').doUpdateSet({ origins: row.origins, updated_time: row.updated_time }))
        .execute();
    }
    this.byApp.delete(appCode);
    this.union = undefined;
    return list;
  }

  async allows(appCode: string, origin: string): Promise<boolean> {
    let found = this.byApp.get(appCode);
    if (!found || Date.now() - found.at > CACHE_MS) {
      found = { at: Date.now(), origins: new Set(await this.list(appCode)) };
      this.byApp.set(appCode, found);
    }
    return found.origins.has(origin);
  }

  /** Whether any application allows the origin (a preflight without a key). */
  async anyAllows(origin: string): Promise<boolean> {
    if (!this.union || Date.now() - this.union.at > CACHE_MS) {
      const rows = await this.db.selectFrom('app_cors_origins').select('origins').execute();
      this.union = { at: Date.now(), origins: new Set(rows.flatMap((r) => JSON.parse(r.origins) as string[])) };
    }
    return this.union.origins.has(origin);
  }
}

const isConsole = (path: string) => path === '/console' || path.startsWith('/console/');
const pathOf = (request: FastifyRequest) => request.url.split('?')[0];

/** The application a key names, or undefined (unknown, revoked, none). */
async function appOfKey(credentials: Credentials, key: string): Promise<string | undefined> {
  const answer = credentials.authenticateSoon(key, 'api_key');
  const appCode = answer === null || typeof answer === 'string' ? answer : await answer;
  return appCode ?? undefined;
}

/** Root hooks: preflights answered for allowed origins, allowed origins named on the answers. */
export function installCors(app: FastifyInstance, origins: CorsOrigins, credentials: Credentials): void {
  // Callback style with the common case first: a request without an Origin costs no promise.
  app.addHook('onRequest', (request, reply, done) => {
    const origin = request.headers.origin;
    const asked = request.headers['access-control-request-method'];
    if (request.method !== 'OPTIONS' || typeof origin !== 'string' || typeof asked !== 'string') return done();
    preflight(request, reply, origin, asked).then((answered) => {
      if (!answered) done();
    }, done);
  });

  /** Answers a preflight for an allowed origin (204 with the CORS headers; true); leaves any other request alone (false). */
  async function preflight(request: FastifyRequest, reply: FastifyReply, origin: string, asked: string): Promise<boolean> {
    const path = pathOf(request);
    if (isConsole(path)) return false;
    const method = asked.toUpperCase();
    if (!METHODS.includes(method) || !app.allowedMethods(path).includes(method)) return false;
    const key = apiKeyFrom(request);
    const appCode = key ? await appOfKey(credentials, key) : undefined;
    const allowed = key ? appCode !== undefined && (await origins.allows(appCode, origin)) : await origins.anyAllows(origin);
    if (!allowed) return false;
    const headers = request.headers['access-control-request-headers'];
    reply
      .code(204)
      .header('access-control-allow-origin', origin)
      .header('access-control-allow-methods', method)
      .header('access-control-max-age', String(PREFLIGHT_MAX_AGE_S))
      .header('vary', 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers');
    if (typeof headers === 'string' && headers.trim()) reply.header('access-control-allow-headers', headers);
    reply.send();
    return true;
  }

  app.addHook('onSend', (request, reply, payload, done) => {
    const origin = request.headers.origin;
    if (typeof origin !== 'string' || isConsole(pathOf(request)) || reply.hasHeader('access-control-allow-origin')) return done(null, payload);
    reply.header('vary', 'Origin');
    // The service's auth hook named the application; an unauthenticated answer opens nothing.
    const appCode = (request as { appCode?: string }).appCode;
    if (!appCode) return done(null, payload);
    origins.allows(appCode, origin).then((allowed) => {
      if (allowed) reply.header('access-control-allow-origin', origin).header('access-control-expose-headers', 'x-request-id, retry-after');
      done(null, payload);
    }, done);
  });
}
