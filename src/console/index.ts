import type { FastifyInstance } from 'fastify';
import { ekycReviewDesk } from '../ekyc/index.js';
import type { ServiceDeps } from '../platform/deps.js';
import { AppSettingsRegistry } from '../platform/app-settings.js';
import { PlaygroundTools } from '../platform/playground-tools.js';
import { CorsOrigins } from '../platform/http/cors.js';
import type { ServiceContext } from '../platform/service-module.js';
import { loadConsoleConfig } from './config.js';
import { consoleRoutes } from './routes.js';
import { ConsoleService } from './service.js';
import { ConsoleSessions } from './sessions.js';
import { CONSOLE_UI_DIR, serveConsoleFiles } from './static.js';
import { ConsoleSessionStore } from './store.js';

/** The web console: its JSON API under /console/api and the built front end under /console. */
export async function registerConsole(app: FastifyInstance, deps: ServiceDeps, ctx: ServiceContext): Promise<void> {
  const config = loadConsoleConfig();
  const sessions = new ConsoleSessions(new ConsoleSessionStore(deps.store), config);
  if (!sessions.enabled) app.log.info('console: off (set SAOLA_ADMIN_PASSWORD to turn it on)');
  const service = new ConsoleService({
    credentials: deps.credentials,
    store: deps.store,
    blobs: deps.blobs,
    purgeHooks: ctx.purgeHooks,
    metering: ctx.metering,
    meteredServices: ctx.meteredServices,
    // Filled by the services registered after the console; read per request.
    appSettings: (deps.appSettings ??= new AppSettingsRegistry()),
    // Likewise: the face service offers its engine's boxes for the face match playground.
    playground: (deps.playground ??= new PlaygroundTools()),
    corsOrigins: (deps.corsOrigins ??= new CorsOrigins(deps.store.db)),
  });
  await app.register(consoleRoutes, {
    prefix: '/console/api',
    sessions,
    service,
    secureCookie: deps.config.publicUrl.startsWith('https:'),
    ekycDesk: ekycReviewDesk(deps),
  });
  serveConsoleFiles(app, CONSOLE_UI_DIR);
}
