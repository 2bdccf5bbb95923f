import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { ServiceError } from '../platform/http/errors.js';
import { useServiceErrors } from '../platform/http/service.js';
import type { ReviewDesk } from '../ekyc/index.js';
import { ekycDeskRoutes } from './ekyc-routes.js';
import { ConsoleErrors, consoleErrorShape } from './errors.js';
import type { ConsoleService } from './service.js';
import { sameSecret, type ConsoleSessions } from './sessions.js';

export interface ConsoleRoutesOptions {
  sessions: ConsoleSessions;
  service: ConsoleService;
  /** https public URL: the cookie gets Secure. */
  secureCookie: boolean;
  /** The eKYC review desk and webhook settings. */
  ekycDesk: ReviewDesk;
}

// The request bodies. A sign-in's password is checked (and a wrong one counted) whatever its type.
const SignIn = Type.Object({ password: Type.Optional(Type.Unknown()) });
const AppName = Type.Object({ name: Type.String() });
const NewCredential = Type.Object({ kind: Type.Union([Type.Literal('api_key'), Type.Literal('token')]) });
const Limit = Type.Optional(Type.Union([Type.Integer(), Type.String(), Type.Null()]));
const Quota = Type.Object({ service: Type.String(), per_minute: Limit, per_day: Limit });
const Setting = Type.Object({ key: Type.String(), on: Type.Boolean() });
/** A settings section's overrides; the section's own schema checks them (AppSection.check). */
const SectionValues = Type.Object({ values: Type.Unknown() });
/** Checked by the platform's CORS rules (originsError), which name the wrong origin. */
const Origins = Type.Object({ allowed_origins: Type.Unknown() });
/** The playgrounds send a photo as base64 (a data: URL is accepted too). */
const Photo = Type.Object({ image_base64: Type.String({ minLength: 16 }) });
const UsageQuery = Type.Object({ days: Type.Optional(Type.String()), service: Type.Optional(Type.String()) });
type AppParams = { Params: { code: string } };

const photoBytes = (body: Static<typeof Photo>): Buffer => Buffer.from(body.image_base64.replace(/^data:[^,]*,/, ''), 'base64');

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

/**
 * The console's JSON API under /console/api. The browser signs in with the
 * admin password and then holds an HttpOnly, SameSite=Strict cookie; every
 * state-changing call also carries the session's CSRF token in a header.
 * Scripts may send the password as a bearer token instead (no cookie, no CSRF).
 */
export async function consoleRoutes(scope: FastifyInstance, opts: ConsoleRoutesOptions): Promise<void> {
  const { sessions, service } = opts;
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
      services: service.meteredServices,
    };
  });

  scope.post<{ Body: Static<typeof SignIn> }>('/login', { schema: { body: SignIn } }, async (request, reply: FastifyReply) => {
    const result = await sessions.signIn(request.ip, request.body.password);
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

  scope.get('/apps', async () => service.listApps());

  scope.post<{ Body: Static<typeof AppName> }>('/apps', { schema: { body: AppName } }, async (request, reply) =>
    reply.code(201).send(await service.createApp(request.body.name)),
  );

  scope.patch<AppParams & { Body: Static<typeof AppName> }>('/apps/:code', { schema: { body: AppName } }, async (request) =>
    service.renameApp(request.params.code, request.body.name),
  );

  scope.get<AppParams>('/apps/:code/records', async (request) => service.appRecords(request.params.code));

  scope.delete<AppParams>('/apps/:code', async (request) => service.deleteApp(request.params.code));

  scope.get<AppParams>('/apps/:code/credentials', async (request) => service.listCredentials(request.params.code));

  scope.post<AppParams & { Body: Static<typeof NewCredential> }>('/apps/:code/credentials', { schema: { body: NewCredential } }, async (request, reply) =>
    reply.code(201).send(await service.issueCredential(request.params.code, request.body.kind)),
  );

  scope.delete<{ Params: { id: string } }>('/credentials/:id', async (request) => service.revokeCredential(request.params.id));

  scope.get<AppParams>('/apps/:code/quotas', async (request) => service.quotas(request.params.code));

  scope.put<AppParams & { Body: Static<typeof Quota> }>('/apps/:code/quotas', { schema: { body: Quota } }, async (request) =>
    service.setQuota(request.params.code, request.body),
  );

  scope.get<AppParams & { Querystring: Static<typeof UsageQuery> }>('/apps/:code/usage', { schema: { querystring: UsageQuery } }, async (request) => {
    const days = Math.min(366, Math.max(1, Number.parseInt(request.query.days ?? '14', 10) || 14));
    return service.usage(request.params.code, days, request.query.service);
  });

  scope.post<{ Body: Static<typeof Photo> }>('/playground/card-outline', { bodyLimit: 16 * 1024 * 1024, schema: { body: Photo } }, async (request) =>
    service.cardOutline(photoBytes(request.body)),
  );

  scope.post<{ Body: Static<typeof Photo> }>('/playground/faces', { bodyLimit: 16 * 1024 * 1024, schema: { body: Photo } }, async (request) =>
    service.facesInPhoto(photoBytes(request.body)),
  );

  scope.get<AppParams>('/apps/:code/face-collections', async (request) => service.faceCollections(request.params.code));

  scope.get<AppParams>('/apps/:code/settings', async (request) => service.appSettings(request.params.code));

  scope.put<AppParams & { Body: Static<typeof Setting> }>('/apps/:code/settings', { schema: { body: Setting } }, async (request) =>
    service.setAppSetting(request.params.code, request.body.key, request.body.on),
  );

  await scope.register(ekycDeskRoutes, { desk: opts.ekycDesk, service });

  scope.get<AppParams>('/apps/:code/origins', async (request) => service.appOrigins(request.params.code));

  scope.put<AppParams & { Body: Static<typeof Origins> }>('/apps/:code/origins', { schema: { body: Origins } }, async (request) =>
    service.setAppOrigins(request.params.code, request.body.allowed_origins),
  );

  scope.get<AppParams>('/apps/:code/sections', async (request) => service.appSections(request.params.code));

  scope.put<{ Params: { code: string; key: string }; Body: Static<typeof SectionValues> }>(
    '/apps/:code/sections/:key',
    { schema: { body: SectionValues } },
    async (request) => service.setAppSection(request.params.code, request.params.key, request.body.values),
  );
}
