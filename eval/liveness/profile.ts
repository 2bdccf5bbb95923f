/**
 * Where a liveness check's CPU goes, stage by stage
 * (`npx tsx eval/liveness/profile.ts [--real DIR] [--generated N] --clips DIR [--json OUT] [--compare OLD]`).
 *
 * Each clip goes through what a v3 check runs: the header read and the decoding by ffmpeg (CPU of the finished
 * child; the clip's raw frames are written beside it and removed), then the analysis in this process's main thread (the worker's own code, with its stage clock) and the
 * verdict. CPU is process-wide (`process.cpuUsage`: the onnxruntime and libvips threads included), so nothing
 * else runs meanwhile. Clips: the spec-conforming copies of every 5.5 s window of each real video of DIR (as
 * `--real DIR --conform --windows`) and N generated 6 s 1280x720 25 fps clips (moved photos, prints, screens of
 * the test photos); they are made once into `--clips` and reused, so two runs (before and after a change) see the
 * same bytes. `--json` writes each clip's stages and answer; `--compare` lists every answer that differs from an
 * earlier `--json` (code, is_live, review; spoof_prob beyond 0.01).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadFaceConfig } from '../../src/face/config.js';
import { loadLivenessConfig } from '../../src/liveness/config.js';
import { judge } from '../../src/liveness/engine/verdict.js';
import { readVideo } from '../../src/liveness/engine/video.js';
import { analyzeVideo } from '../../src/liveness/engine/worker.js';
import { locateFfmpeg } from '../../src/platform/media/ffmpeg.js';
import { animate, onScreen, printed, scene, type Motion } from '../../fixtures/videos/liveness.js';
import { conform, readTruth, windowStarts } from './real.js';

const { values } = parseArgs({
  options: {
    real: { type: 'string' },
    generated: { type: 'string', default: '0' },
    clips: { type: 'string' },
    json: { type: 'string' },
    compare: { type: 'string' },
  },
});
if (!values.clips) throw new Error('--clips DIR is required (the clips are made there once and reused)');
const clipsDir = path.resolve(values.clips);
fs.mkdirSync(clipsDir, { recursive: true });
const ffmpeg = await locateFfmpeg('auto');
const cfg = loadFaceConfig(process.env, 1);
const lcfg = loadLivenessConfig(process.env, 1);

interface Clip {
  name: string;
  set: 'real' | 'generated';
  file: string;
}
const clips: Clip[] = [];
if (values.real) {
  const dir = path.resolve(values.real);
  for (const v of readTruth(dir)) {
    const src = path.join(dir, v.file);
    for (const start of await windowStarts(ffmpeg.binary, src, true)) {
      const file = path.join(clipsDir, `real-${path.basename(v.file).replace(/\.\w+$/, '')}-${start}.mp4`);
      if (!fs.existsSync(file)) await conform(ffmpeg.binary, src, file, start);
      clips.push({ name: `${v.file}@${start}`, set: 'real', file });
    }
  }
}
const photos = ['grace_hopper.jpg', 'person-a.jpg', 'person-b.jpg', 'person-c.jpg'].map((f) => path.resolve('test/fixtures/face', f));
const kinds: [string, Motion, (p: Buffer) => Promise<Buffer>][] = [
  ['photo-shake', 'shake', async (p) => p],
  ['photo-pan', 'pan', async (p) => p],
  ['print-tilt', 'tilt', printed],
  ['screen-zoom', 'zoom', onScreen],
];
const HD = { width: 1280, height: 720, fps: 25, seconds: 6 };
for (let k = 0; k < Number(values.generated); k++) {
  const photo = photos[k % photos.length];
  const [label, motion, render] = kinds[Math.floor(k / photos.length) % kinds.length];
  const file = path.join(clipsDir, `gen-${k}-${path.basename(photo, '.jpg')}-${label}.mp4`);
  if (!fs.existsSync(file)) fs.writeFileSync(file, await animate(await scene(await render(fs.readFileSync(photo)), { ...HD, faceShare: 0.9 }), motion, HD));
  clips.push({ name: `${path.basename(photo, '.jpg')} ${label}`, set: 'generated', file });
}

const own = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
/** CPU seconds of this process's finished children (ffmpeg). */
const children = () => {
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[13]) + Number(f[14])) / 100;
};

interface Row {
  name: string;
  set: Clip['set'];
  stages: Record<string, number>;
  total: number;
  code: string;
  isLive?: boolean;
  review?: boolean;
  spoof?: number;
}
const rows: Row[] = [];
// One unmeasured run first: the models load once per worker thread, not per check.
for (const [k, clip] of [clips[0], ...clips].entries()) {
  if (!clip) break;
  const stages: Record<string, number> = {};
  const add = (stage: string, s: number) => (stages[stage] = (stages[stage] ?? 0) + s);
  const c0 = children();
  let t = own();
  const read = await readVideo(ffmpeg, clip.file, { fps: lcfg.sampleFps, side: lcfg.frameSide, maxSeconds: lcfg.v3Seconds[1] + 0.05, timeoutMs: 60_000 });
  add('ffmpeg: header + decoding', children() - c0);
  add('frames into memory', own() - t);
  t = own();
  const frames = await read.frames();
  add('frames into memory', own() - t);
  t = own();
  const analysis = await analyzeVideo(
    {
      frames: frames.data,
      width: frames.width,
      height: frames.height,
      count: frames.count,
      detectThreshold: cfg.detectThreshold,
      antispoofInput: lcfg.antispoofInput,
      topFrames: 3,
      embed: false,
    },
    (stage) => {
      const now = own();
      add(stage, now - t);
      t = now;
    },
  );
  const verdict = judge(analysis, {
    version: 3,
    minFaceRatio: lcfg.minFaceRatio,
    minBlurVariance: lcfg.minBlurVariance,
    secondFaceRatio: cfg.secondFaceRatio,
    liveThreshold: lcfg.liveThreshold,
    reviewMargin: lcfg.reviewMargin,
  });
  add('verdict', own() - t);
  if (k === 0) continue;
  delete stages['load models'];
  const d = verdict.decision;
  rows.push({
    name: clip.name,
    set: clip.set,
    stages,
    total: Object.values(stages).reduce((a, b) => a + b, 0),
    code: verdict.outcome,
    ...(d ? { isLive: d.isLive, review: d.needToReview, spoof: 1 - d.prob } : {}),
  });
  console.error(`${clip.name}: ${rows.at(-1)!.total.toFixed(2)} s, ${verdict.outcome}${d ? ` spoof ${(1 - d.prob).toFixed(4)}` : ''}`);
}

const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)] ?? 0;
const q = (v: number[], p: number) => [...v].sort((a, b) => a - b)[Math.min(v.length - 1, Math.floor(p * v.length))] ?? 0;
console.log('CPU seconds per check, by stage (median over the clips | mean)');
for (const set of ['real', 'generated'] as const) {
  const rs = rows.filter((r) => r.set === set);
  if (!rs.length) continue;
  const totals = rs.map((r) => r.total);
  console.log(`\n${set}: ${rs.length} clips; total median ${median(totals).toFixed(3)} s, p90 ${q(totals, 0.9).toFixed(3)} s, max ${Math.max(...totals).toFixed(3)} s`);
  const names = [...new Set(rs.flatMap((r) => Object.keys(r.stages)))];
  for (const n of names) {
    const v = rs.map((r) => r.stages[n] ?? 0);
    console.log(`  ${n.padEnd(30)} ${median(v).toFixed(3)} | ${(v.reduce((a, b) => a + b, 0) / v.length).toFixed(3)}`);
  }
}
if (values.json) fs.writeFileSync(values.json, JSON.stringify(rows, null, 1));
if (values.compare) {
  const old = new Map((JSON.parse(fs.readFileSync(values.compare, 'utf8')) as Row[]).map((r) => [r.name, r]));
  let differ = 0;
  let maxDelta = 0;
  for (const r of rows) {
    const o = old.get(r.name);
    if (!o) continue;
    const delta = r.spoof !== undefined && o.spoof !== undefined ? Math.abs(r.spoof - o.spoof) : 0;
    maxDelta = Math.max(maxDelta, delta);
    if (o.code !== r.code || o.isLive !== r.isLive || o.review !== r.review || delta > 0.01) {
      differ++;
      console.log(
        `  differs: ${r.name}: ${o.code} ${o.isLive ?? '-'} ${o.review ?? '-'} ${o.spoof?.toFixed(4) ?? '-'} -> ${r.code} ${r.isLive ?? '-'} ${r.review ?? '-'} ${r.spoof?.toFixed(4) ?? '-'}`,
      );
    }
  }
  console.log(`\nAgainst ${values.compare}: ${differ} of ${rows.length} answers differ; largest spoof_prob change ${maxDelta.toFixed(4)}`);
}
process.exit(0);
