#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { buildApp } from './app.js';
import { usageCommands } from './usage-cli.js';
import { CommandUsageError, type Command } from './platform/cli.js';
import { openPlatform } from './platform/index.js';
import { AuthAdminError, Credentials } from './platform/auth/credentials.js';
import { ConfigError, loadConfig, type Config } from './platform/config.js';
import { purgeApplication, type PurgeReport } from './platform/purge.js';
import { migrations, purgeHooks, services } from './services.js';
import { migrateToLatest, openStore, type Store } from './platform/db/database.js';
import { migrateStoreCommand } from './platform/db/migrate-store.js';

/** The services' own commands, one help line each, from the service list. */
function serviceHelp(): string {
  return services
    .flatMap((s) => s.commands ?? [])
    .map((c) => {
      const head = `  ${c.words} ${c.usage}`;
      return head.length < 32 ? `${head.padEnd(32)}${c.summary}` : `${head}\n${' '.repeat(32)}${c.summary}`;
    })
    .join('\n');
}

export const USAGE = `Usage: saola <command> [options]

Server
  serve                         start the API server (what npm start runs)
  worker                        run job workers only (scale-out; SAOLA_RUN_WORKERS=false on the servers)
  migrate                       bring the database schema up to date
  migrate-store --to postgres://... [--blobs s3://BUCKET]
                                copy the embedded store (SQLite, blob folder) to the server engines, verified

Applications and credentials (add --json for one JSON object on stdout)
  app create --name NAME        create an application with one API key and one token
  app list                      list applications
  app revoke --app APP          revoke an application and all its credentials
  app delete --app APP --purge  delete an application and every record and blob it has, in every service
  key create --app APP          issue an API key (shown once)
  key list --app APP            list an application's keys and tokens (no secrets)
  key revoke ID|SECRET          revoke one API key or token
  token create --app APP        issue a bearer token for /api/v3 (shown once)
  token revoke ID|SECRET        revoke one token

Services
${serviceHelp()}

Usage and quotas
  usage --app APP [--json]      requests per service and endpoint: count, errors, p50/p95 latency
  quota set --app APP --service S --per-minute N [--per-day M]
  quota show --app APP          per-application request limits (saola quota --help)

APP is an application's code or name. Settings come from SAOLA_* environment
variables (see README.md): SAOLA_PORT, SAOLA_DATA_DIR, SAOLA_DATABASE_URL, ...`;

class UsageError extends Error {}

const serviceCommands: Record<string, Command> = {
  ...Object.fromEntries(services.flatMap((s) => s.commands ?? []).map((c) => [c.words, c.run])),
  ...usageCommands,
};

interface Output {
  json: boolean;
  print(object: Record<string, unknown>, text: string): void;
}

async function withStore<T>(config: Config, work: (store: Store) => Promise<T>): Promise<T> {
  const store = openStore(config.databaseUrl);
  try {
    await migrateToLatest(store, migrations);
    return await work(store);
  } finally {
    await store.close();
  }
}

function need(value: string | undefined, flag: string): string {
  if (!value) throw new UsageError(`${flag} is required`);
  return value;
}

async function admin(config: Config, words: string[], values: { name?: string; app?: string }, out: Output): Promise<void> {
  const [noun, verb, arg] = words;
  await withStore(config, async (store) => {
    const credentials = new Credentials(store, 0);
    switch (`${noun} ${verb}`) {
      case 'app create': {
        const app = await credentials.createApp(need(values.name, '--name'));
        const key = await credentials.issue(app.app_code, 'api_key');
        const token = await credentials.issue(app.app_code, 'token');
        out.print(
          { app_code: app.app_code, name: app.name, api_key: key.secret, token: token.secret, created_time: app.created_time },
          `Application "${app.name}" created.\n  app_code: ${app.app_code}\n  api_key:  ${key.secret}\n  token:    ${token.secret}\n` +
            'The key and token are shown only now; store them safely.',
        );
        return;
      }
      case 'app list': {
        const apps = await credentials.listApps();
        out.print(
          { applications: apps },
          apps.length === 0
            ? 'No applications yet: saola app create --name NAME'
            : apps.map((a) => `${a.app_code}  ${a.name}  keys=${a.api_keys} tokens=${a.tokens}${a.revoked ? '  (revoked)' : ''}`).join('\n'),
        );
        return;
      }
      case 'app revoke': {
        const app = await credentials.revokeApp(need(values.app ?? arg, '--app'));
        out.print({ app_code: app.app_code, revoked: true }, `Application "${app.name}" revoked.`);
        return;
      }
      case 'key create':
      case 'token create': {
        const kind = noun === 'key' ? 'api_key' : 'token';
        const issued = await credentials.issue(need(values.app ?? arg, '--app'), kind);
        out.print(
          { id: issued.id, app_code: issued.app_code, [kind]: issued.secret, created_time: issued.created_time },
          `${kind === 'api_key' ? 'API key' : 'Token'} for ${issued.app_code}: ${issued.secret}\n(id ${issued.id}; shown only now)`,
        );
        return;
      }
      case 'key list':
      case 'token list': {
        const list = await credentials.listCredentials(need(values.app ?? arg, '--app'));
        out.print(
          { credentials: list },
          list.map((c) => `${c.id}  ${c.kind}  ${c.prefix}…  ${c.created_time}${c.revoked_time ? '  (revoked)' : ''}`).join('\n') || 'None.',
        );
        return;
      }
      case 'key revoke':
      case 'token revoke': {
        const revoked = await credentials.revokeCredential(need(arg, 'ID or secret'));
        out.print({ id: revoked.id, kind: revoked.kind, revoked: true }, `Revoked ${revoked.kind} ${revoked.id}.`);
        return;
      }
      default:
        throw new UsageError(`Unknown command "${words.join(' ')}"`);
    }
  });
}

/** `app delete --purge`: the platform's purge over the real store and blob store, with each service's hook. */
async function deleteApplication(config: Config, codeOrName: string, purge: boolean): Promise<PurgeReport> {
  if (!purge) throw new UsageError('app delete removes every record of the application: confirm with --purge (app revoke keeps them)');
  const platform = await openPlatform({ ...config, runWorkers: false }, migrations);
  try {
    const app = await platform.credentials.findApp(codeOrName);
    return await purgeApplication(platform, app.app_code, purgeHooks);
  } finally {
    await platform.lifecycle.close();
  }
}

/**
 * The app over an open platform; when a service refuses to start (a setting it cannot honour), what the services
 * before it started (job workers, pools) and the platform are closed, so the process ends with the error instead of hanging.
 */
async function buildAppOrClose(platform: Awaited<ReturnType<typeof openPlatform>>): Promise<Awaited<ReturnType<typeof buildApp>>> {
  try {
    return await buildApp(platform);
  } catch (err) {
    await platform.lifecycle.close();
    throw err;
  }
}

export async function serve(config: Config): Promise<() => Promise<void>> {
  const platform = await openPlatform(config, migrations);
  const app = await buildAppOrClose(platform);
  if (platform.migrated.length) app.log.info({ migrations: platform.migrated }, 'database migrated');
  await app.listen({ host: config.host, port: config.port });
  app.log.info(
    { database: platform.store.describe, dataDir: config.dataDir, publicUrl: config.publicUrl, docs: `${config.publicUrl}/docs`, console: `${config.publicUrl}/console` },
    'Saola is ready',
  );
  if ((await platform.credentials.listApps()).length === 0) {
    app.log.info('No application yet: create one with `npx saola app create --name demo`');
  }
  let closing: Promise<void> | undefined;
  return () =>
    (closing ??= (async () => {
      await app.close();
      await platform.lifecycle.close();
    })());
}

/** Job workers and engines only, no HTTP listener: for scale-out next to `saola serve` processes. */
export async function work(config: Config): Promise<() => Promise<void>> {
  const platform = await openPlatform({ ...config, runWorkers: true }, migrations);
  const app = await buildAppOrClose(platform);
  await app.ready();
  app.log.info({ database: platform.store.describe }, 'Saola worker is running (no HTTP listener)');
  let closing: Promise<void> | undefined;
  return () =>
    (closing ??= (async () => {
      await app.close();
      await platform.lifecycle.close();
    })());
}

/** Dispatches `saola <service words> ...` to the service's own command, which parses its own flags. */
async function runServiceCommand(argv: string[]): Promise<number | undefined> {
  // Platform commands that take their own flags go through the same dispatch.
  const commands: Record<string, Command> = { ...serviceCommands, 'migrate-store': migrateStoreCommand };
  const words = Object.keys(commands).sort((a, b) => b.length - a.length);
  const match = words.find((w) => {
    const parts = w.split(' ');
    return parts.every((p, i) => argv[i] === p);
  });
  if (!match) return undefined;
  try {
    return await commands[match]({
      config: loadConfig(),
      migrations,
      args: argv.slice(match.split(' ').length),
      stdout: (t) => process.stdout.write(t),
      stderr: (t) => process.stderr.write(t),
    });
  } catch (err) {
    const usage = err instanceof CommandUsageError || err instanceof ConfigError;
    process.stderr.write(`${usage ? '' : 'Unexpected error: '}${usage ? (err as Error).message : ((err as Error).stack ?? err)}\n`);
    return usage ? 2 : 1;
  }
}

async function main(argv: string[]): Promise<number> {
  const viaService = await runServiceCommand(argv);
  if (viaService !== undefined) return viaService;
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      app: { type: 'string' },
      json: { type: 'boolean', default: false },
      purge: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const out: Output = {
    json: values.json ?? false,
    print(object, text) {
      process.stdout.write((this.json ? JSON.stringify(object) : text) + '\n');
    },
  };
  const command = positionals[0] ?? 'serve';
  if (values.help || command === 'help') {
    process.stdout.write(USAGE + '\n');
    return 0;
  }
  try {
    const config = loadConfig();
    if (command === 'serve' || command === 'worker') {
      const stop = command === 'serve' ? await serve(config) : await work(config);
      const shutdown = (signal: string) => {
        process.stderr.write(`${signal}: shutting down\n`);
        const force = setTimeout(() => process.exit(1), 10_000);
        force.unref();
        stop().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.once('SIGINT', () => shutdown('SIGINT'));
      process.once('SIGTERM', () => shutdown('SIGTERM'));
      return -1;
    }
    if (command === 'migrate') {
      const applied = await withStore(config, async () => []);
      out.print({ migrated: true, applied }, 'Database is up to date.');
      return 0;
    }
    if (positionals[0] === 'app' && positionals[1] === 'delete') {
      const report = await deleteApplication(config, need(values.app ?? positionals[2], '--app'), values.purge ?? false);
      const total = Object.values(report.rows).reduce((a, b) => a + b, 0);
      out.print({ ...report, deleted: true }, `Application ${report.app_code} deleted: ${total} records and ${report.blobs} files.`);
      return 0;
    }
    await admin(config, positionals, values, out);
    return 0;
  } catch (err) {
    const known = err instanceof UsageError || err instanceof AuthAdminError || err instanceof ConfigError;
    const message = known ? (err as Error).message : `Unexpected error: ${(err as Error).stack ?? err}`;
    if (out.json) process.stdout.write(JSON.stringify({ error: (err as Error).message }) + '\n');
    else process.stderr.write(message + '\n');
    if (err instanceof UsageError) process.stderr.write('\n' + USAGE + '\n');
    return known ? 2 : 1;
  }
}

/** True when this file is the program (directly, through the npx/bin symlink, or under tsx). */
function isEntry(): boolean {
  if (!process.argv[1]) return false;
  try {
    return import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href;
  } catch {
    return false;
  }
}

if (isEntry()) {
  // main() answers every failure with an exit code; a rejection left would be a bug, and Node prints it and exits 1.
  void main(process.argv.slice(2)).then((code) => {
    if (code >= 0) process.exitCode = code;
  });
}
