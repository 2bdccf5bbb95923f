/**
 * What a service is to the platform: one value per service, listed once in
 * `src/services.ts`. The HTTP app, the CLI and its help, the migrations,
 * application purge, metering, quotas and load shedding are all driven from
 * that list, so adding a service touches its own folder and one line there.
 *
 *   export const echoService: ServiceModule = {
 *     name: 'echo',
 *     prefixes: ['/echo/'],
 *     register: async (app) => void app.post('/echo/v1', async (req) => req.body),
 *   };
 */
import type { FastifyInstance } from 'fastify';
import type { Migration } from 'kysely';
import type { Command } from './cli.js';
import type { ServiceDeps } from './deps.js';
import type { PurgeHook } from './purge.js';
import type { Metering } from './usage/index.js';

export { ServicePaths } from './service-paths.js';

/** A CLI command of a service: the words that start it, its help line, and the command. */
export interface ServiceCommand {
  /** Leading words, e.g. `eval face`; the command gets the arguments after them. */
  words: string;
  /** The arguments shown in `saola --help` after the words, e.g. `--pairs DIR`. */
  usage: string;
  summary: string;
  run: Command;
}

/** What the app hands every module beyond `ServiceDeps`: the parts made from the whole list. */
export interface ServiceContext {
  metering: Metering;
  /** Every module's purge hook (the console's application delete runs them). */
  purgeHooks: readonly PurgeHook[];
  /** Names of the metered services (quotas are set per name). */
  meteredServices: readonly string[];
}

export interface ServiceModule {
  /** The name operators type: `saola quota set --service NAME`, usage rows, `/readyz`. */
  name: string;
  /**
   * Path prefixes of the service's public routes. A request under one is metered, counted
   * against the application's quota and the in-flight cap under this name. Empty: not metered.
   */
  prefixes: readonly string[];
  /** Routes, engines (closed through `deps.lifecycle`) and readiness facts. */
  register(app: FastifyInstance, deps: ServiceDeps, ctx: ServiceContext): Promise<void>;
  /** The service's tables. Names start with the service's own number, so sets never collide. */
  migrations?: Readonly<Record<string, Migration>>;
  commands?: readonly ServiceCommand[];
  /** What `app delete --purge` must remove beyond the rows with an `app_code` (blobs, keyed rows). */
  purge?: PurgeHook;
}

/** Every module's migrations as one set; a name two modules both define is a mistake caught at start. */
export function joinMigrations(sets: readonly (Readonly<Record<string, Migration>> | undefined)[]): Readonly<Record<string, Migration>> {
  const all: Record<string, Migration> = {};
  for (const set of sets) {
    for (const [name, migration] of Object.entries(set ?? {})) {
      if (name in all) throw new Error(`Migration ${name} is defined twice`);
      all[name] = migration;
    }
  }
  return all;
}
