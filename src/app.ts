import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import scalar from '@scalar/fastify-api-reference';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { sql } from 'kysely';
import type { ServiceDeps } from './platform/deps.js';
import { installLenientParsers } from './platform/http/body.js';
import { installNulGuard } from './platform/http/nul.js';
import { installRequestLog } from './platform/http/request-log.js';
import { indexRoutes } from './platform/http/route-index.js';
import { securityHeaders } from './platform/http/security-headers.js';
import { platformErrorShape, sendRouteNotFound, sendServiceError } from './platform/http/service.js';
import { installMetering } from './platform/usage/index.js';
import { installOverloadGuard } from './platform/http/overload.js';
import { services } from './services.js';
import { ServicePaths, type ServiceContext, type ServiceModule } from './platform/service-module.js';
import { AppSettingsRegistry } from './platform/app-settings.js';
import { PlaygroundTools } from './platform/playground-tools.js';
import { CorsOrigins, installCors } from './platform/http/cors.js';
import { setImageThreads } from './platform/vision/image-threads.js';
import { setPoolIdleTimeout } from './platform/pool/index.js';

/**
 * Keeps secrets out of logs: `?api_key=` is the one credential the API takes in
 * a URL, and anything shaped like one of our keys or tokens (`sk_`/`st_` + 43
 * characters) is masked wherever a client put it (test/system/security/logs.test.ts).
 * Both patterns hold an underscore: a URL without one (most requests) is returned as it is.
 */
export function redactUrl(url: string): string {
  if (!url.includes('_')) return url;
  return url.replace(/([?&]api_key=)[^&]*/gi, '$1***').replace(/\b(sk|st)_[A-Za-z0-9_-]{16,}/g, '$1_***');
}

/**
 * The request serializer is the only way a request reaches a log line (the request log writes `{req: request}`,
 * fastify does with errors), and it keeps the method, the URL (redacted) and the address: no header,
 * hence no `authorization` or `api_key` header, is ever written. (pino's `redact` on `req.headers.*` ran on
 * every request line after this serializer had dropped the headers, and so never matched anything.)
 */
export function loggerOptions(level: string): FastifyServerOptions['logger'] {
  return {
    level,
    serializers: {
      req: (req: { method: string; url: string; ip?: string; id?: string }) => ({ method: req.method, url: redactUrl(req.url), ip: req.ip }),
    },
  };
}

/** Builds the HTTP application: every service's routes over the shared platform (`modules`: the service list, or another in tests). */
export async function buildApp(deps: ServiceDeps, modules: readonly ServiceModule[] = services): Promise<FastifyInstance> {
  const { config } = deps;
  const servicePaths = new ServicePaths(modules);
  const purgeHooks = modules.flatMap((s) => (s.purge ? [s.purge] : []));
  setImageThreads(config.imageThreads);
  setPoolIdleTimeout(config.poolIdleMs);
  const app = Fastify({
    logger: loggerOptions(config.logLevel),
    bodyLimit: config.jsonBodyLimit,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    // Form bodies carry numbers as text; coerce them to the schema's types.
    ajv: { customOptions: { coerceTypes: 'array', removeAdditional: true, useDefaults: true } },
    // `/cmt/` and `/cmt` are one route, as the route index behind 405 answers already assumes (real clients add the slash).
    routerOptions: { ignoreTrailingSlash: true },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // One line a request instead of fastify's two (installRequestLog).
    disableRequestLogging: true,
  });
  installRequestLog(app);
  // The request id goes out with the security headers: one onSend hook for both.
  securityHeaders(app);
  indexRoutes(app);
  installLenientParsers(app);
  installNulGuard(app);
  app.setErrorHandler((err, request, reply) => sendServiceError(platformErrorShape, err, request, reply));
  app.setNotFoundHandler((request, reply) => sendRouteNotFound(platformErrorShape, request, reply));

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Saola API',
        version: '0.1.0',
        description: 'Self-hosted Vietnamese AI platform speaking the public cloud API. /api/v3 uses a bearer token; the other services take an api_key header.',
      },
      servers: [{ url: config.publicUrl }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer' },
          apiKey: { type: 'apiKey', in: 'header', name: 'api_key' },
        },
      },
    },
  });
  // Scalar ships its JavaScript in the package; no fonts from the internet.
  await app.register(scalar, {
    routePrefix: '/docs',
    logLevel: 'warn',
    configuration: { withDefaultFonts: false, title: 'Saola API' },
  });

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    const checks: Record<string, unknown> = {};
    let ready = true;
    try {
      await sql`select 1`.execute(deps.store.db);
      checks.database = { ok: true, engine: deps.store.dialect };
    } catch (err) {
      ready = false;
      checks.database = { ok: false, engine: deps.store.dialect, error: (err as Error).message };
    }
    Object.assign(checks, await deps.lifecycle.readiness());
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not ready', checks });
  });

  // Load shedding and metering first: their route hooks then cover every service registered below.
  const overload = installOverloadGuard(app, deps.config, servicePaths);
  app.addHook('onClose', (_instance, done) => {
    overload.close();
    done();
  });
  const metering = await installMetering(app, deps, servicePaths);
  deps.appSettings ??= new AppSettingsRegistry();
  deps.playground ??= new PlaygroundTools();
  deps.corsOrigins ??= new CorsOrigins(deps.store.db);
  installCors(app, deps.corsOrigins, deps.credentials);
  const context: ServiceContext = { metering, purgeHooks, meteredServices: servicePaths.names };
  for (const service of modules) await service.register(app, deps, context);
  return app;
}
