import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Command } from '../platform/cli.js';
import { migrateToLatest, openStore } from '../platform/db/database.js';
import { EMBEDDING_MODEL } from './engine/similarity.js';
import { FaceStore } from './store.js';
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

const REINDEX_USAGE = 'usage: saola face reindex [--collection NAME]\n';

/**
 * `saola face reindex [--collection C]`: which stored faces were embedded by
 * another model than the running one (search ignores them). Recomputing them
 * needs the photos, which Saola does not keep, so such faces are listed and the
 * command fails, telling the operator to add them again; with none it says so.
 */
export const faceReindexCommand: Command = async (ctx) => {
  let values: { collection?: string };
  try {
    ({ values } = parseArgs({ args: ctx.args, options: { collection: { type: 'string' } }, allowPositionals: false }));
  } catch (err) {
    ctx.stderr(`${(err as Error).message}\n${REINDEX_USAGE}`);
    return 2;
  }
  const store = openStore(ctx.config.databaseUrl);
  try {
    await migrateToLatest(store, ctx.migrations);
    const rows = await new FaceStore(store).facesPerModel(values.collection);
    const stale = rows.filter((r) => r.model !== EMBEDDING_MODEL);
    const current = rows.filter((r) => r.model === EMBEDDING_MODEL).reduce((a, r) => a + r.faces, 0);
    const scope = values.collection === undefined ? 'all collections' : `collection "${values.collection}"`;
    if (stale.length === 0) {
      ctx.stdout(`${scope}: ${current} face(s), all embedded by ${EMBEDDING_MODEL}: nothing to reindex\n`);
      return 0;
    }
    for (const r of stale) ctx.stdout(`application ${r.appCode}, collection "${r.collection}": ${r.faces} face(s) embedded by ${r.model}\n`);
    ctx.stderr(
      `${stale.reduce((a, r) => a + r.faces, 0)} face(s) in ${scope} were embedded by another model than ${EMBEDDING_MODEL}; search ignores them. ` +
        "They cannot be recomputed: Saola does not keep the photos. Add those users' photos again (/delete_faces, then /add).\n",
    );
    return 1;
  } finally {
    await store.close();
  }
};
