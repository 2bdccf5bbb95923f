import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { applicationRecords } from '../platform/auth/app-data.js';
import { purgeApplication, type PurgeHook } from '../platform/purge.js';
import type { BlobStore } from '../platform/blobs/store.js';
import { findCardOutline } from '../platform/vision/card-outline.js';
import { AuthAdminError, type Credentials } from '../platform/auth/credentials.js';
import type { AppSettingsRegistry } from '../platform/app-settings.js';
import type { PlaygroundTools } from '../platform/playground-tools.js';
import type { Store } from '../platform/db/database.js';
import { ServiceError } from '../platform/http/errors.js';
import { useServiceErrors } from '../platform/http/service.js';
import { utcDay, type Metering } from '../platform/usage/index.js';
import { ConsoleErrors, consoleErrorShape } from './errors.js';
import { sameSecret, type ConsoleSessions } from './sessions.js';

export interface ConsoleRoutesOptions {
  sessions: ConsoleSessions;
  credentials: Credentials;
  store: Store;
  blobs: BlobStore;
  /** Each service's part of deleting an application (blobs the tables do not hold). */
  purgeHooks: readonly PurgeHook[];
  /** Services a quota can be set on (the service list's metered names). */
  meteredServices: readonly string[];
  metering: Metering;
  appSettings: AppSettingsRegistry;
  /** Functions the services offer the playgrounds (the face engine's boxes). */
  playground: PlaygroundTools;
  /** https public URL: the cookie gets Secure. */
  secureCookie: boolean;
}

export const SESSION_COOKIE = 'saola_console';

function cookieValue(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function bearer(request: FastifyRequest): string | undefined {
  const match = /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? '');
  return match?.[1].trim();
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Admin errors from the credentials module are the caller's mistakes: name them in the console's shape. */
async function admin<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof AuthAdminError) {
      const entry = /^No (application|such)/.test(err.message)
        ? ConsoleErrors.notFound
        : /already exists/.test(err.message)
          ? ConsoleErrors.conflict
          : ConsoleErrors.invalid;
      throw new ServiceError(entry, err.message);
    }
    throw err;
  }
}

function limitValue(value: unknown, name: string): number | null {
  if (value === null || value === undefined || value === '') return null;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1_000_000_000) throw new ServiceError(ConsoleErrors.invalid, `${name} must be a whole number from 1, or empty for no limit`);
  return n;
}

/**
 * The console's JSON API under /console/api. The browser signs in with the
 * admin password and then holds an HttpOnly, SameSite=Strict cookie; every
 * state-changing call also carries the session's CSRF token in a header.
 * Scripts may send the password as a bearer token instead (no cookie, no CSRF).
 */
export async function consoleRoutes(scope: FastifyInstance, opts: ConsoleRoutesOptions): Promise<void> {
  const { sessions, credentials, metering } = opts;
  useServiceErrors(scope, consoleErrorShape);
  // The console's own API is not part of the public API reference.
  scope.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
  });

  // Secure when the public URL is https or this connection is TLS itself.
  const cookie = (request: FastifyRequest, value: string, maxAgeS: number) =>
    `${SESSION_COOKIE}=${value}; Path=/console; HttpOnly; SameSite=Strict; Max-Age=${maxAgeS}${opts.secureCookie || request.protocol === 'https' ? '; Secure' : ''}`;

  scope.addHook('onRequest', async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const path = request.url.split('?')[0];
    if (path === '/console/api/status' || path === '/console/api/login') return;
    if (!sessions.enabled) throw new ServiceError(ConsoleErrors.disabled);
    const password = bearer(request);
    if (password !== undefined) {
      const checked = sessions.checkPassword(request.ip, password);
      if (checked.ok) return;
      if (checked.reason === 'locked') {
        reply.header('retry-after', String(checked.retryAfterS ?? 60));
        throw new ServiceError(ConsoleErrors.lockedOut);
      }
      throw new ServiceError(ConsoleErrors.wrongPassword);
    }
    const session = await sessions.find(cookieValue(request, SESSION_COOKIE));
    if (!session) throw new ServiceError(ConsoleErrors.signedOut);
    if (!SAFE_METHODS.has(request.method)) {
      const token = request.headers['x-csrf-token'];
      if (typeof token !== 'string' || !sameSecret(token, session.csrf)) throw new ServiceError(ConsoleErrors.csrf);
    }
  });

  scope.get('/status', async (request) => {
    const session = sessions.enabled ? await sessions.find(cookieValue(request, SESSION_COOKIE)) : undefined;
    return {
      enabled: sessions.enabled,
      signed_in: session !== undefined,
      ...(session ? { csrf: session.csrf } : {}),
      ...(sessions.enabled ? {} : { how_to_enable: ConsoleErrors.disabled.message }),
      services: opts.meteredServices,
    };
  });

  scope.post('/login', async (request, reply: FastifyReply) => {
    const body = request.body as { password?: unknown } | undefined;
    const result = await sessions.signIn(request.ip, body?.password);
    if (!result.ok) {
      if (result.reason === 'disabled') throw new ServiceError(ConsoleErrors.disabled);
      if (result.reason === 'locked') {
        reply.header('retry-after', String(result.retryAfterS ?? 60));
        throw new ServiceError(ConsoleErrors.lockedOut);
      }
      throw new ServiceError(ConsoleErrors.wrongPassword);
    }
    reply.header('set-cookie', cookie(request, result.sessionId, Math.floor((result.expires.getTime() - Date.now()) / 1000)));
    return { signed_in: true, csrf: result.csrf, expires_time: result.expires.toISOString() };
  });

  scope.post('/logout', async (request, reply) => {
    await sessions.signOut(cookieValue(request, SESSION_COOKIE));
    reply.header('set-cookie', cookie(request, '', 0));
    return { signed_in: false };
  });

  scope.get('/apps', async () => {
    const apps = await credentials.listApps();
    return { applications: apps.filter((a) => !a.revoked).concat(apps.filter((a) => a.revoked)) };
  });

  scope.post('/apps', async (request, reply) => {
    const name = (request.body as { name?: unknown } | undefined)?.name;
    if (typeof name !== 'string') throw new ServiceError(ConsoleErrors.invalid, 'name is required');
    const created = await admin(async () => {
      const app = await credentials.createApp(name);
      const key = await credentials.issue(app.app_code, 'api_key');
      const token = await credentials.issue(app.app_code, 'token');
      return { application: { ...app, api_keys: 1, tokens: 1 }, api_key: key.secret, token: token.secret };
    });
    return reply.code(201).send(created);
  });

  scope.patch<{ Params: { code: string } }>('/apps/:code', async (request) => {
    const name = (request.body as { name?: unknown } | undefined)?.name;
    if (typeof name !== 'string') throw new ServiceError(ConsoleErrors.invalid, 'name is required');
    return { application: await admin(() => credentials.renameApp(request.params.code, name)) };
  });

  scope.get<{ Params: { code: string } }>('/apps/:code/records', async (request) => {
    const app = await admin(() => credentials.findApp(request.params.code));
    await metering.recorder.flush();
    return { application: app, records: await applicationRecords(opts.store, app.app_code) };
  });

  scope.delete<{ Params: { code: string } }>('/apps/:code', async (request) => {
    const app = await admin(() => credentials.findApp(request.params.code));
    await metering.recorder.flush();
    // The same purge as `saola app delete --purge`: rows of every app-scoped table and the services' blobs.
    const { rows: deleted } = await purgeApplication({ store: opts.store, blobs: opts.blobs }, app.app_code, opts.purgeHooks);
    credentials.forgetCached();
    metering.quotas.invalidate();
    return { deleted };
  });

  scope.get<{ Params: { code: string } }>('/apps/:code/credentials', async (request) => {
    // Last-use times are written with the usage batch: write this process's now.
    await metering.recorder.flush();
    return { credentials: await admin(() => credentials.listCredentials(request.params.code)) };
  });

  scope.post<{ Params: { code: string } }>('/apps/:code/credentials', async (request, reply) => {
    const kind = (request.body as { kind?: unknown } | undefined)?.kind;
    if (kind !== 'api_key' && kind !== 'token') throw new ServiceError(ConsoleErrors.invalid, 'kind must be api_key or token');
    const issued = await admin(() => credentials.issue(request.params.code, kind));
    return reply.code(201).send(issued);
  });

  scope.delete<{ Params: { id: string } }>('/credentials/:id', async (request) => {
    // By id only: a secret never travels in a console URL.
    if (!/^[0-9a-f-]{36}$/.test(request.params.id)) throw new ServiceError(ConsoleErrors.notFound);
    return { credential: await admin(() => credentials.revokeCredential(request.params.id)) };
  });

  scope.get<{ Params: { code: string } }>('/apps/:code/quotas', async (request) => {
    const app = await admin(() => credentials.findApp(request.params.code));
    return { quotas: await metering.store.quotas(app.app_code), services: opts.meteredServices };
  });

  scope.put<{ Params: { code: string } }>('/apps/:code/quotas', async (request) => {
    const app = await admin(() => credentials.findApp(request.params.code));
    const body = (request.body ?? {}) as { service?: unknown; per_minute?: unknown; per_day?: unknown };
    if (typeof body.service !== 'string' || !opts.meteredServices.includes(body.service)) {
      throw new ServiceError(ConsoleErrors.invalid, `service must be one of ${opts.meteredServices.join(', ')}`);
    }
    const quota = await metering.store.setQuota(app.app_code, body.service, limitValue(body.per_minute, 'per_minute'), limitValue(body.per_day, 'per_day'));
    metering.quotas.invalidate();
    return { quota, quotas: await metering.store.quotas(app.app_code) };
  });

  scope.get<{ Params: { code: string }; Querystring: { days?: string; service?: string } }>('/apps/:code/usage', async (request) => {
    const app = await admin(() => credentials.findApp(request.params.code));
    const days = Math.min(366, Math.max(1, Number.parseInt(request.query.days ?? '14', 10) || 14));
    const service = request.query.service;
    if (service !== undefined && !opts.meteredServices.includes(service))
      throw new ServiceError(ConsoleErrors.invalid, `service must be one of ${opts.meteredServices.join(', ')}`);
    // This process's counts not yet written, so the page shows the calls just made.
    await metering.recorder.flush();
    const to = utcDay();
    const from = utcDay(Date.now() - (days - 1) * 86_400_000);
    return metering.store.report(app.app_code, from, to, service);
  });

  /** The playgrounds send a photo as base64 (a data: URL is accepted too). */
  const photoOf = (request: FastifyRequest): Buffer => {
    const base64 = (request.body as { image_base64?: unknown } | undefined)?.image_base64;
    if (typeof base64 !== 'string' || base64.length < 16) throw new ServiceError(ConsoleErrors.invalid, 'image_base64 is required');
    return Buffer.from(base64.replace(/^data:[^,]*,/, ''), 'base64');
  };

  // The ID card playground draws the card's outline: the platform's finder (the reader's first step), console only.
  scope.post('/playground/card-outline', { bodyLimit: 16 * 1024 * 1024 }, async (request) => {
    const photo = photoOf(request);
    let outline;
    try {
      outline = await findCardOutline(photo);
    } catch {
      throw new ServiceError(ConsoleErrors.invalid, 'The image could not be decoded');
    }
    return { found: outline !== null, ...(outline ? { corners: outline.corners, score: Math.round(outline.score * 100) / 100 } : {}) };
  });

  // The face match playground boxes the face each photo's subject is (the one compared) and the others the
  // engine saw; the public answer has no boxes, so the face service offers them here through the platform.
  scope.post('/playground/faces', { bodyLimit: 16 * 1024 * 1024 }, async (request) => {
    const photo = photoOf(request);
    const find = opts.playground.faceFinder();
    if (!find) throw new ServiceError(ConsoleErrors.unavailable, 'The face service is not running on this server');
    const faces = await find(photo);
    if (!faces) throw new ServiceError(ConsoleErrors.invalid, 'The image could not be decoded');
    return faces;
  });

  // Per-application switches the services offer (the reader's features arrangement...).
  scope.get<{ Params: { code: string } }>('/apps/:code/settings', async (request) => {
    const app = await admin(() => credentials.findApp(request.params.code));
    const settings = await Promise.all(
      opts.appSettings.list().map(async (s) => ({ key: s.key, label: s.label, description: s.description, on: await s.get(app.app_code) })),
    );
    return { settings };
  });

  scope.put<{ Params: { code: string } }>('/apps/:code/settings', async (request) => {
    const app = await admin(() => credentials.findApp(request.params.code));
    const body = (request.body ?? {}) as { key?: unknown; on?: unknown };
    const entry = typeof body.key === 'string' ? opts.appSettings.find(body.key) : undefined;
    if (!entry)
      throw new ServiceError(
        ConsoleErrors.invalid,
        `key must be one of ${
          opts.appSettings
            .list()
            .map((s) => s.key)
            .join(', ') || '(none)'
        }`,
      );
    if (typeof body.on !== 'boolean') throw new ServiceError(ConsoleErrors.invalid, 'on must be true or false');
    await entry.set(app.app_code, body.on);
    return { key: entry.key, on: await entry.get(app.app_code) };
  });
}
