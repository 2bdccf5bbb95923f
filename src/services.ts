/**
 * Every service of Saola, once. The HTTP app (src/app.ts), the CLI and its
 * help (src/main.ts), the migrations, application purge, metering, quotas and
 * load shedding are all driven from this list: adding a service is its own
 * folder and one line here (ARCHITECTURE.md, "Adding a service").
 */
import { consoleService } from './console/module.js';
import { creditService } from './credit/module.js';
import { ekycService } from './ekyc/module.js';
import { faceService } from './face/module.js';
import { livenessService } from './liveness/module.js';
import { nluService } from './nlu/module.js';
import { platformMigrations } from './platform/index.js';
import type { ServiceModule } from './platform/service-module.js';
import { joinMigrations, ServicePaths } from './platform/service-module.js';
import { readerService } from './reader/module.js';
import { asrService } from './speech/asr/module.js';
import { ttsService } from './speech/tts/module.js';

/** In registration order: the console first, so it can read what the services offer it (settings, playground tools) per request. */
export const services: readonly ServiceModule[] = [consoleService, nluService, readerService, faceService, livenessService, ekycService, ttsService, asrService, creditService];

/** The whole schema: the platform's tables and every service's. */
export const migrations = joinMigrations([platformMigrations, ...services.map((s) => s.migrations)]);

export const servicePaths = new ServicePaths(services);

export const purgeHooks = services.flatMap((s) => (s.purge ? [s.purge] : []));
