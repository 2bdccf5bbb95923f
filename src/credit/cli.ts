import type { Command } from '../platform/cli.js';

/** `saola credit import|train|eval ...` (not built yet). */
export const creditCommand: Command = async (ctx) => {
  ctx.stderr('saola credit: not available yet\n');
  return 2;
};
