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
