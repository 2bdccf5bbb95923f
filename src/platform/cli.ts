import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Migration } from 'kysely';
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
