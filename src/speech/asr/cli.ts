import type { Command } from '../../platform/cli.js';

/** `saola models add asr <path>` (not built yet). */
export const asrModelsCommand: Command = async (ctx) => {
  ctx.stderr('saola models: not available yet\n');
  return 2;
};
