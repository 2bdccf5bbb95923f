import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { AuthAdminError, Credentials } from '../platform/auth/credentials.js';
import { CommandUsageError, type Command } from '../platform/cli.js';
import { migrateToLatest, openStore } from '../platform/db/database.js';
import { locateFfmpeg } from '../platform/media/ffmpeg.js';
import { loadLivenessConfig } from './config.js';
import { FaceEngine, loadFaceConfig } from '../face/index.js';
import { LivenessEngine } from './engine/index.js';
import { LivenessService, type LivenessVersion } from './service.js';
import { GLOBAL_SCOPE, LivenessThresholds } from './store.js';
import { VIDEO_EXTENSIONS } from './engine/video.js';

const USAGE = `Usage: saola eval liveness --live DIR --attack DIR [--version 2|3] [--max-apcer 0.05] [--write global|APP] [--json]

  --live DIR     the operator's own videos of live people (mov, mp4, mkv, webm, avi)
  --attack DIR   videos of attacks (prints, screens, replays, masks)
  --version      which endpoint's rules to apply (default 3)
  --max-apcer    the chosen threshold is the one with the fewest live videos
                 refused while at most this share of attacks pass (default 0.05)
  --write        store the chosen threshold for every application ("global")
                 or for one (its code or name); a running server uses it
                 within 10 s. Without --write nothing is changed.

Prints APCER (attacks answered live) and BPCER (live videos not answered
live; a video refused with an error code counts as not live) per threshold.`;

/** One video's outcome: the live probability when every check passed, else the code it got. */
export interface ScoredVideo {
  file: string;
  live: boolean;
  prob?: number;
  code: string;
}

export interface CurvePoint {
  threshold: number;
  apcer: number;
  bpcer: number;
}

/** APCER and BPCER at thresholds 0.05, 0.10, ..., 0.95. */
export function thresholdCurve(videos: ScoredVideo[]): CurvePoint[] {
  const attacks = videos.filter((v) => !v.live);
  const lives = videos.filter((v) => v.live);
  const points: CurvePoint[] = [];
  for (let k = 1; k <= 19; k++) {
    const t = k / 20;
    points.push({
      threshold: t,
      apcer: attacks.filter((v) => v.prob !== undefined && v.prob >= t).length / Math.max(1, attacks.length),
      bpcer: lives.filter((v) => v.prob === undefined || v.prob < t).length / Math.max(1, lives.length),
    });
  }
  return points;
}

/** The threshold with the lowest BPCER among those whose APCER is at most `maxApcer` (the highest threshold when none is). */
export function chooseThreshold(curve: CurvePoint[], maxApcer: number): CurvePoint {
  const ok = curve.filter((p) => p.apcer <= maxApcer);
  if (ok.length === 0) return curve[curve.length - 1];
  return ok.reduce((best, p) => (p.bpcer < best.bpcer || (p.bpcer === best.bpcer && p.threshold < best.threshold) ? p : best));
}

function videosIn(dir: string): string[] {
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) throw new CommandUsageError(`${dir} is not a folder\n\n${USAGE}`);
  return fs
    .readdirSync(dir)
    .filter((f) => VIDEO_EXTENSIONS.includes(path.extname(f).slice(1).toLowerCase()))
    .sort()
    .map((f) => path.join(dir, f));
}

/** `saola eval liveness`: APCER/BPCER and the threshold curve from an operator's labelled videos; optionally stores the chosen threshold. */
export const livenessEvalCommand: Command = async (ctx) => {
  let values;
  try {
    ({ values } = parseArgs({
      args: ctx.args,
      options: {
        live: { type: 'string' },
        attack: { type: 'string' },
        version: { type: 'string', default: '3' },
        'max-apcer': { type: 'string', default: '0.05' },
        write: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
      allowPositionals: false,
    }));
  } catch (err) {
    throw new CommandUsageError(`${(err as Error).message}\n\n${USAGE}`);
  }
  if (!values.live || !values.attack) throw new CommandUsageError(`--live and --attack are required\n\n${USAGE}`);
  const version = Number(values.version) as LivenessVersion;
  if (version !== 2 && version !== 3) throw new CommandUsageError(`--version must be 2 or 3\n\n${USAGE}`);
  const maxApcer = Number(values['max-apcer']);
  if (!(maxApcer >= 0 && maxApcer <= 1)) throw new CommandUsageError(`--max-apcer must be a number from 0 to 1\n\n${USAGE}`);
  const files = [...videosIn(values.live).map((f) => ({ f, live: true })), ...videosIn(values.attack).map((f) => ({ f, live: false }))];
  if (files.length === 0) throw new CommandUsageError(`no videos (${VIDEO_EXTENSIONS.join(', ')}) in ${values.live} or ${values.attack}`);

  const store = openStore(ctx.config.databaseUrl);
  const cfg = loadFaceConfig(process.env, ctx.config.poolThreads);
  const lcfg = loadLivenessConfig(process.env, ctx.config.poolThreads);
  const faces = new FaceEngine(cfg, { maxQueue: 4, timeoutMs: ctx.config.poolTaskTimeoutMs });
  const engine = new LivenessEngine(cfg, lcfg, { maxQueue: 4, timeoutMs: ctx.config.poolTaskTimeoutMs });
  try {
    await migrateToLatest(store, ctx.migrations);
    let scope: string | undefined;
    if (values.write !== undefined) {
      if (values.write === 'global') scope = GLOBAL_SCOPE;
      else {
        try {
          scope = (await new Credentials(store, 0).findApp(values.write)).app_code;
        } catch (err) {
          if (err instanceof AuthAdminError) throw new CommandUsageError(err.message);
          throw err;
        }
      }
    }
    const ffmpeg = locateFfmpeg(lcfg.ffmpeg);
    const service = new LivenessService(cfg, lcfg, faces, engine, () => ffmpeg);
    const scored: ScoredVideo[] = [];
    for (const { f, live } of files) {
      const r = await service.check(version, [{ field: 'video', filename: path.basename(f), mimetype: '', data: fs.readFileSync(f) }]);
      scored.push({ file: f, live, code: String(r.entry.code), ...(r.decision ? { prob: r.decision.prob } : {}) });
    }
    const curve = thresholdCurve(scored);
    const chosen = chooseThreshold(curve, maxApcer);
    if (scope !== undefined) await new LivenessThresholds(store.db).set(scope, chosen.threshold);
    if (values.json) {
      ctx.stdout(JSON.stringify({ videos: scored, curve, chosen, written: scope ?? null }, null, 2) + '\n');
      return 0;
    }
    const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
    const lines = [
      `${scored.filter((v) => v.live).length} live and ${scored.filter((v) => !v.live).length} attack videos, v${version} rules`,
      ...scored.filter((v) => v.prob === undefined).map((v) => `  ${path.basename(v.file)} (${v.live ? 'live' : 'attack'}): code ${v.code}, no probability`),
      'threshold  APCER   BPCER',
      ...curve.map((p) => `  ${p.threshold.toFixed(2)}     ${pct(p.apcer).padStart(6)}  ${pct(p.bpcer).padStart(6)}${p === chosen ? '   <- chosen' : ''}`),
      `chosen threshold ${chosen.threshold.toFixed(2)} (APCER ${pct(chosen.apcer)} <= ${pct(maxApcer)} allowed, BPCER ${pct(chosen.bpcer)})` +
        (scope === undefined ? '; not written (add --write global|APP)' : `; written for ${scope === GLOBAL_SCOPE ? 'every application' : scope}`),
    ];
    ctx.stdout(lines.join('\n') + '\n');
    return 0;
  } finally {
    await engine.close();
    await faces.close();
    await store.close();
  }
};
