import type { Command } from '../platform/cli.js';

/** `saola eval face --pairs <dir>` (not built yet). */
export const faceEvalCommand: Command = async (ctx) => {
  ctx.stderr('saola eval face: not available yet\n');
  return 2;
};
