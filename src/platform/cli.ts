import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Migration } from 'kysely';
import { AuthAdminError, Credentials, type Application } from './auth/credentials.js';
import { migrateToLatest, openStore, type Store } from './db/database.js';
import type { Config } from './config.js';

/** What a service's CLI command receives: its own arguments (after the command words) and the configuration. */
export interface CommandContext {
  config: Config;
  /** The whole schema, from the composition root: a command that opens the store migrates it with this. */
  migrations: Readonly<Record<string, Migration>>;
  args: string[];
  /** stdout/stderr, so tests can capture them. */
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** A service command answers an exit code: 0 ok, 2 bad usage or input, 1 failure. */
export type Command = (ctx: CommandContext) => Promise<number>;

export class CommandUsageError extends Error {}

/**
 * A command's options and positionals, or the exit code to return: 2 after an unknown or malformed
 * option (the error and the usage on stderr), 0 after `--help` when the command declares it (the usage on stdout).
 */
export function parseCommandArgs<const O extends NonNullable<ParseArgsConfig['options']>>(ctx: CommandContext, usage: string, options: O) {
  let parsed;
  try {
    parsed = parseArgs({ args: ctx.args, options, allowPositionals: true });
  } catch (err) {
    ctx.stderr(`${(err as Error).message}\n${usage}`);
    return 2;
  }
  if ((parsed.values as Record<string, unknown>).help === true) {
    ctx.stdout(usage);
    return 0;
  }
  return parsed;
}

/** Opens and migrates the store, finds the application named by `appArg` (code or name) and runs `work`; CommandUsageError when it is not given or unknown. */
export async function withApplication<T>(
  ctx: CommandContext,
  appArg: string | undefined,
  help: string,
  work: (store: Store, app: Application) => Promise<T>,
): Promise<T> {
  if (!appArg) throw new CommandUsageError(`--app is required\n\n${help}`);
  const store = openStore(ctx.config.databaseUrl);
  try {
    await migrateToLatest(store, ctx.migrations);
    let app: Application;
    try {
      app = await new Credentials(store, 0).findApp(appArg);
    } catch (err) {
      if (err instanceof AuthAdminError) throw new CommandUsageError(err.message);
      throw err;
    }
    return await work(store, app);
  } finally {
    await store.close();
  }
}
