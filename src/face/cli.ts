import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Command } from '../platform/cli.js';
import { evaluateFacePairs, formatEvaluation } from './evaluation.js';

/** `saola eval face --pairs <dir>`: TAR at FAR 1e-3/1e-4, EER and a refit of the similarity map from labelled pairs. */
export const faceEvalCommand: Command = async (ctx) => {
  let values: { pairs?: string; json?: boolean };
  try {
    ({ values } = parseArgs({ args: ctx.args, options: { pairs: { type: 'string' }, json: { type: 'boolean' } }, allowPositionals: false }));
  } catch (err) {
    ctx.stderr(`${(err as Error).message}\nusage: saola eval face --pairs <dir with pairs.csv (file_x,file_y,same_person) and the images> [--json]\n`);
    return 2;
  }
  if (!values.pairs) {
    ctx.stderr('usage: saola eval face --pairs <dir with pairs.csv (file_x,file_y,same_person) and the images> [--json]\n');
    return 2;
  }
  if (!fs.existsSync(path.join(values.pairs, 'pairs.csv'))) {
    ctx.stderr(`no pairs.csv in ${values.pairs}\n`);
    return 1;
  }
  const result = await evaluateFacePairs(values.pairs);
  ctx.stdout(values.json ? `${JSON.stringify(result, null, 2)}\n` : `${formatEvaluation(result)}\n`);
  return 0;
};
