/**
 * `npm run eval:liveness [-- --faces DIR --antispoof DIR --quick --photos N --set tune|held-out]`: liveness on
 * generated videos. With `--real DIR [--conform]`: on a folder of real videos instead (liveness-real.ts). Per code of the table, how many generated error cases got
 * their code; APCER / BPCER on generated attacks (a photo moved by pan, zoom,
 * tilt and hand shake; printed paper; a phone screen with moiré and glare)
 * and on the live proxy (different photos of one person joined by
 * cross-fades: not a live person, see docs/face.md); CPU per 6 s 720p clip;
 * and the shipped anti-spoof model against MiniFASNet V2 / V1SE on the same
 * frames and on the three labelled photos of ../shared/data/antispoof.
 *
 * Sets: "tune" (the test fixtures and two people of the faces folder) is what
 * the fusion weights were looked at on; "held-out" (the other people) was not.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { loadFaceConfig } from '../../src/face/config.js';
import { loadLivenessConfig, type AntispoofInput } from '../../src/liveness/config.js';
import { FaceEngine } from '../../src/face/engine/index.js';
import { analyze } from '../../src/face/engine/worker.js';
import { LivenessEngine } from '../../src/liveness/engine/index.js';
import type { LivenessResult } from '../../src/liveness/responses.js';
import { LivenessService, type LivenessTrace, type LivenessVersion } from '../../src/liveness/service.js';
import { locateFfmpeg } from '../../src/platform/media/ffmpeg.js';
import { withSunglasses } from '../../fixtures/faces/photos.js';
import { animate, crossFade, onScreen, printed, scene, turned, type Motion, type VideoOptions } from '../../fixtures/videos/liveness.js';

const { values } = parseArgs({
  options: {
    faces: { type: 'string', default: path.resolve('../shared/data/faces') },
    antispoof: { type: 'string', default: path.resolve('../shared/data/antispoof') },
    quick: { type: 'boolean', default: false },
    /** Photos used for attacks (fixtures and tuning people first). */
    photos: { type: 'string' },
    /** Write every attack/proxy row's cues and per-frame analysis (JSON) for offline study. */
    dump: { type: 'string' },
    /** Run only one set ("tune" while tuning; the held-out set is run once at the end). */
    set: { type: 'string' },
    /** A folder of real videos with truth.jsonl (file, label live/print/replay/mask): evaluated instead of the generated set. */
    real: { type: 'string' },
    /** With --real: send spec-conforming copies (5.5 s, 1280x720 / 720x1280, 30 fps, H.264) made here. */
    conform: { type: 'boolean', default: false },
    /** With --real --conform: every 5.5 s window of each video. */
    windows: { type: 'boolean', default: false },
    /** With --real: the versions checked (comma-separated; default 2,3). */
    versions: { type: 'string', default: '2,3' },
  },
});
const fixtures = path.resolve('test/fixtures/face');
const facesDir = values.faces!;
const haveFaces = fs.existsSync(path.join(facesDir, 'pairs.csv'));
const read = (file: string) => fs.readFileSync(file);

/** People of the faces folder: groups joined by pairs.csv's same-person pairs. */
function people(): string[][] {
  if (!haveFaces) return [];
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    if (!parent.has(x)) parent.set(x, x);
    const p = parent.get(x)!;
    return p === x ? x : find(p);
  };
  for (const line of fs.readFileSync(path.join(facesDir, 'pairs.csv'), 'utf8').split(/\r?\n/).slice(1)) {
    const [x, y, same] = line.split(',').map((s) => s?.trim());
    if (!x || !y) continue;
    const rx = find(x);
    const ry = find(y);
    if (/^(yes|true|1)$/i.test(same) && rx !== ry) parent.set(rx, ry);
  }
  const groups = new Map<string, string[]>();
  for (const k of parent.keys()) groups.set(find(k), [...(groups.get(find(k)) ?? []), k]);
  return [...groups.values()].map((g) => g.sort((a, b) => Number(a.replace(/\D/g, '')) - Number(b.replace(/\D/g, ''))));
}

type Kind = 'error' | 'attack' | 'live';
interface Case {
  name: string;
  set: 'tune' | 'held-out';
  kind: Kind;
  /** Expected code per version (error cases), or 200. */
  expect: Partial<Record<LivenessVersion, string>>;
  filename?: string;
  make: () => Promise<Buffer>;
}

const HD: VideoOptions = { width: 1280, height: 720, fps: 25, seconds: 6 };
const SD: VideoOptions = { width: 640, height: 360, fps: 25, seconds: 5.5 };
const cases: Case[] = [];
const groups = people();
// Two people are the tuning set; the rest are held out.
const tunePeople = new Set(
  groups
    .filter((g) => g.length === 2)
    .slice(0, 2)
    .flat(),
);
const setOf = (file: string): Case['set'] => (file.startsWith(fixtures) || tunePeople.has(path.basename(file)) ? 'tune' : 'held-out');
const photos = [path.join(fixtures, 'grace_hopper.jpg'), path.join(fixtures, 'person-a.jpg'), ...groups.flat().map((f) => path.join(facesDir, f))];
// Attacks on the fixtures, the tuning people, then held-out people alternately, up to --photos.
const heldOut = photos.filter((f) => setOf(f) === 'held-out');
const tuned = photos.filter((f) => setOf(f) === 'tune');
const attackPhotos: string[] = [];
for (let i = 0; attackPhotos.length < photos.length; i++) {
  if (tuned[i]) attackPhotos.push(tuned[i]);
  if (heldOut[i]) attackPhotos.push(heldOut[i]);
  if (!tuned[i] && !heldOut[i]) break;
}
const limit = values.photos ? Number(values.photos) : values.quick ? 4 : attackPhotos.length;

const attackMotions: [string, Motion, (p: Buffer) => Promise<Buffer>, number][] = [
  ['photo-shake', 'shake', async (p) => p, 0.9],
  ['photo-pan', 'pan', async (p) => p, 0.9],
  ['photo-zoom', 'zoom', async (p) => p, 0.9],
  ['photo-tilt', 'tilt', async (p) => p, 0.9],
  ['print-shake', 'shake', printed, 0.95],
  ['print-tilt', 'tilt', printed, 0.95],
  ['screen-pan', 'pan', onScreen, 0.95],
  ['screen-zoom', 'zoom', onScreen, 0.95],
];
for (const file of attackPhotos.slice(0, limit)) {
  const name = path.basename(file, '.jpg');
  for (const [label, motion, render, share] of attackMotions) {
    cases.push({
      name: `${name} ${label}`,
      set: setOf(file),
      kind: 'attack',
      expect: { 3: '200' },
      make: async () => animate(await scene(await render(read(file)), { ...HD, faceShare: share }), motion, HD),
    });
  }
}
for (const g of groups) {
  if (g.length < 2) continue;
  const files = g.map((f) => path.join(facesDir, f));
  const orders = g.length >= 4 ? [files.slice(0, 3), files.slice(3, 6), files.slice(-3).reverse()] : [files, [...files].reverse()];
  for (const o of orders.slice(0, values.quick ? 1 : 3)) {
    if (o.length < 2) continue;
    cases.push({
      name: `proxy ${o.map((f) => path.basename(f, '.jpg')).join('+')}`,
      set: setOf(o[0]),
      kind: 'live',
      expect: { 3: '200' },
      make: async () => crossFade(o.map(read), HD),
    });
  }
}
// Error cases on a few photos (each fault on its own, with hand shake so the still rule stays out of it).
const errorPhotos = photos.slice(0, values.quick ? 1 : 3);
for (const file of errorPhotos) {
  const photo = read(file);
  const name = path.basename(file, '.jpg');
  const set = setOf(file);
  const e = (label: string, expect: Case['expect'], make: () => Promise<Buffer>, filename?: string) =>
    cases.push({ name: `${name} ${label}`, set, kind: 'error', expect, make, ...(filename ? { filename } : {}) });
  const sceneOf = (p: Buffer, extra: { faceShare?: number; wide?: boolean } = {}) => scene(p, { ...SD, ...extra });
  e('still', { 2: '413', 3: '413' }, async () => animate(await sceneOf(photo), 'still', SD));
  e('small', { 2: '411', 3: '411' }, async () => animate(await sceneOf(photo, { faceShare: 0.3 }), 'shake', SD));
  e('blurred', { 2: '412', 3: '412' }, async () => animate(await sceneOf(photo), 'shake', { ...SD, filter: 'boxblur=4' }));
  e('leaves', { 2: '410', 3: '423' }, async () => animate(await sceneOf(photo, { wide: true }), 'leave', SD));
  // Darkened below the 406 limit (median brightness of the aligned face under 30), as the HTTP suite's dark video.
  e('dark', { 3: '406' }, async () => animate(await sceneOf(photo), 'shake', { ...SD, filter: 'eq=brightness=-0.5' }));
  e('turned', { 3: '422' }, async () => {
    const r = await analyze({ image: photo, detectThreshold: 0.7, checkCard: false });
    if (!r.ok || !r.primary) throw new Error(`${name}: no face to turn`);
    const scale = (await sharp(photo).rotate().metadata()).width! / r.width;
    // Turned 50 degrees further the way the photo's face already looks (about its own vertical axis).
    const yaw = (r.primary.pose.yaw >= 0 ? 1 : -1) * 50;
    return animate(
      await sceneOf(
        await turned(
          photo,
          r.primary.landmarks.map((v) => v * scale),
          yaw,
        ),
      ),
      'shake',
      SD,
    );
  });
  e('dark glasses', { 3: '406' }, async () => {
    const r = await analyze({ image: photo, detectThreshold: 0.7, checkCard: false });
    if (!r.ok || !r.primary) throw new Error(`${name}: no face to draw glasses on`);
    const lm = r.primary.landmarks;
    const scale = (await sharp(photo).rotate().metadata()).width! / r.width;
    const eye = (from: number): [number, number] => [0, 1].map((k) => [0, 1, 2, 3, 4, 5].reduce((sum, i) => sum + lm[2 * (from + i) + k] / 6, 0)) as [number, number];
    return animate(await sceneOf(await withSunglasses(photo, { left: eye(36), right: eye(42) }, scale)), 'shake', SD);
  });
  e('two faces', { 2: '408', 3: '408' }, async () => {
    const other = read(photos[(photos.indexOf(file) + 3) % photos.length]);
    const pair = await sharp({ create: { width: 1300, height: 700, channels: 3, background: '#6b7a88' } })
      .composite([
        { input: await sharp(photo).rotate().resize({ height: 640, width: 620, fit: 'inside' }).toBuffer(), left: 20, top: 30 },
        { input: await sharp(other).rotate().resize({ height: 640, width: 620, fit: 'inside' }).toBuffer(), left: 660, top: 30 },
      ])
      .jpeg()
      .toBuffer();
    return animate(await sceneOf(pair), 'shake', SD);
  });
  e('too short', { 2: '409', 3: '409' }, async () => animate(await sceneOf(photo), 'shake', { ...SD, seconds: 3 }));
  e('too long', { 2: '409', 3: '409' }, async () => animate(await sceneOf(photo), 'shake', { ...SD, seconds: 11, fps: 10 }));
  e('12 fps', { 3: '409' }, async () => animate(await sceneOf(photo), 'shake', { ...SD, fps: 12 }));
  e('flv container', { 2: '409', 3: '409' }, async () => animate(await sceneOf(photo), 'shake', { ...SD, format: 'flv' }), 'selfie.mp4');
  e('corrupted', { 2: '409', 3: '409' }, async () => {
    const v = await animate(await sceneOf(photo), 'shake', SD);
    const bad = Buffer.from(v);
    for (let i = Math.floor(bad.length * 0.1); i < bad.length; i += 97) bad[i] ^= 0x5a;
    return bad.subarray(0, Math.floor(bad.length * 0.6));
  });
}
const empty = async () =>
  animate(
    await sharp({ create: { width: 900, height: 600, channels: 3, background: '#8a7a6b' } })
      .png()
      .toBuffer(),
    'shake',
    SD,
  );
cases.push({ name: 'no face', set: 'tune', kind: 'error', expect: { 2: '410', 3: '410' }, make: empty });

if (values.set) {
  const keep = cases.filter((c) => c.set === values.set);
  cases.length = 0;
  cases.push(...keep);
}

// --- run -------------------------------------------------------------------
const cfg = loadFaceConfig(process.env, 1);
const lcfg = loadLivenessConfig(process.env, 1);
const faces = new FaceEngine(cfg, { maxQueue: 16, timeoutMs: 120_000 });
const engines: LivenessEngine[] = [];
const service = (antispoofModel?: string, antispoofInput: AntispoofInput = lcfg.antispoofInput) => {
  // No analysis cache: each check's CPU is measured, v2 and v3 of one video included.
  const l = { ...lcfg, ...(antispoofModel ? { antispoofModel } : {}), antispoofInput, threads: 1, analysisCache: 0 };
  const engine = new LivenessEngine(cfg, l, { maxQueue: 16, timeoutMs: 120_000 });
  engines.push(engine);
  // Located once, as the server does: each search runs `ffmpeg -version` (about 0.08 s of CPU), which a check does not pay.
  const ffmpeg = locateFfmpeg(l.ffmpeg);
  return { svc: new LivenessService(cfg, l, faces, engine, () => ffmpeg), engine };
};
const main = service(lcfg.antispoofModel, lcfg.antispoofInput);

if (values.real) {
  const { evalReal } = await import('./real.js');
  const rows = await evalReal({
    dir: path.resolve(values.real),
    conform: values.conform!,
    windows: values.windows!,
    ffmpeg: (await locateFfmpeg('auto')).binary,
    svc: main.svc,
    versions: values.versions!.split(',').map(Number) as LivenessVersion[],
    cpuSeconds,
  });
  if (values.dump)
    fs.writeFileSync(
      values.dump,
      JSON.stringify(
        rows
          .filter((r) => r.version === 3)
          .map((r) => ({
            file: r.video.file,
            start: r.start,
            label: r.video.label,
            code: r.result.entry.code,
            cues: r.trace.verdict?.cues,
            analysis: r.trace.analysis && { ...r.trace.analysis, embedding: undefined },
          })),
      ),
    );
  for (const e of engines) await e.close();
  await faces.close();
  process.exit(0);
}

/** CPU seconds of this process and its finished children (ffmpeg), from /proc. */
function cpuSeconds(): number {
  const f = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / 100;
}

interface Row {
  c: Case;
  version: LivenessVersion;
  result: LivenessResult;
  trace: LivenessTrace;
  cpu: number;
  video: Buffer;
}
const rows: Row[] = [];
const started = Date.now();
for (const c of cases) {
  const video = await c.make();
  for (const version of Object.keys(c.expect).map(Number) as LivenessVersion[]) {
    const trace: LivenessTrace = {};
    const cpu0 = cpuSeconds();
    const result = await main.svc.check(version, [{ field: 'video', filename: c.filename ?? 'selfie.mp4', mimetype: 'video/mp4', data: video }], trace);
    rows.push({ c, version, result, trace, cpu: cpuSeconds() - cpu0, video });
  }
}
console.log(
  `${cases.length} generated videos, ${rows.length} checks in ${((Date.now() - started) / 1000).toFixed(0)} s (faces folder: ${haveFaces ? facesDir : 'absent'})\n`,
);

if (values.dump) {
  const dump = rows
    .filter((r) => r.c.kind !== 'error' && r.version === 3)
    .map((r) => ({
      name: r.c.name,
      kind: r.c.kind,
      set: r.c.set,
      code: r.result.entry.code,
      cues: r.trace.verdict?.cues,
      prob: r.result.decision?.prob,
      frames: r.trace.analysis?.frames.map((f) =>
        f.face ? { lm: f.face.landmarks.map((v) => Math.round(v * 10) / 10), eyes: f.face.eyeClosed, pose: f.face.pose, yaw: f.face.yaw, cover: f.face.cover } : null,
      ),
      best: r.trace.analysis?.best,
    }));
  fs.writeFileSync(values.dump, JSON.stringify(dump));
}

// Per code.
console.log('Error cases: expected code -> got it');
const byCode = new Map<string, { ok: number; n: number; misses: string[] }>();
for (const r of rows.filter((x) => x.c.kind === 'error')) {
  const want = r.c.expect[r.version]!;
  const got = String(r.result.entry.code);
  const k = `v${r.version} ${want}`;
  const e = byCode.get(k) ?? { ok: 0, n: 0, misses: [] };
  e.n++;
  if (got === want) e.ok++;
  else e.misses.push(`${r.c.name} -> ${got} (${r.trace.verdict?.reason ?? r.result.detail})`);
  byCode.set(k, e);
}
for (const [k, e] of [...byCode].sort()) console.log(`  ${k}: ${e.ok}/${e.n}${e.misses.length ? `  misses: ${e.misses.join('; ')}` : ''}`);

// APCER / BPCER.
const rate = (xs: Row[], f: (r: Row) => boolean) =>
  xs.length ? `${xs.filter(f).length}/${xs.length} (${((100 * xs.filter(f).length) / xs.length).toFixed(1)}%)` : 'n/a';
const live = (r: Row) => r.result.decision?.isLive === true;
const sure = (r: Row) => live(r) && r.result.decision?.needToReview === false;
console.log('\nAttacks and live proxies (v3, 1280x720, 6 s, 25 fps)');
for (const set of ['tune', 'held-out'] as const) {
  const attacks = rows.filter((r) => r.c.kind === 'attack' && r.c.set === set);
  const lives = rows.filter((r) => r.c.kind === 'live' && r.c.set === set);
  console.log(
    `  ${set}: APCER ${rate(attacks, live)} answered live, of which without review ${rate(attacks, sure)}; not code 200: ${rate(attacks, (r) => !r.result.decision)}`,
  );
  console.log(
    `  ${set}: BPCER ${rate(lives, (r) => !!r.result.decision && !live(r))} answered not live, need_to_review ${rate(lives, (r) => r.result.decision?.needToReview === true)}, live without review ${rate(lives, sure)}; not code 200: ${rate(lives, (r) => !r.result.decision)}`,
  );
}
const misses = rows.filter((r) => (r.c.kind === 'attack' && sure(r)) || (r.c.kind !== 'error' && !r.result.decision));
for (const r of misses) console.log(`  ! ${r.c.name}: ${r.result.entry.code} ${r.trace.verdict?.reason ?? r.result.detail}`);

// Cue distributions, for the documentation of the weights.
const cueRows = rows.filter((r) => r.c.kind !== 'error' && r.trace.verdict?.cues);
for (const key of ['antispoof', 'nonRigidity', 'blinks', 'moire', 'glare', 'border', 'scene'] as const) {
  const line = (['attack', 'live'] as const).map((k) => {
    const v = cueRows
      .filter((r) => r.c.kind === k)
      .map((r) => r.trace.verdict!.cues![key])
      .sort((a, b) => a - b);
    const q = (p: number) => (v.length ? v[Math.min(v.length - 1, Math.floor(p * v.length))].toFixed(3) : '-');
    return `${k} p10 ${q(0.1)} median ${q(0.5)} p90 ${q(0.9)}`;
  });
  console.log(`  cue ${key}: ${line.join(' | ')}`);
}

// CPU per 6 s 720p clip (header + decode + analysis; generation excluded).
const hd = rows
  .filter((r) => r.c.kind !== 'error')
  .map((r) => r.cpu)
  .sort((a, b) => a - b);
if (hd.length)
  console.log(
    `\nCPU per 6 s 1280x720 25 fps clip (process + ffmpeg): median ${hd[Math.floor(hd.length / 2)].toFixed(2)} s, p90 ${hd[Math.floor(hd.length * 0.9)].toFixed(2)} s, max ${hd[hd.length - 1].toFixed(2)} s over ${hd.length} clips`,
  );

// Anti-spoof models on the same frames.
const antispoofDir = values.antispoof!;
const models: [string, string | undefined, AntispoofInput][] = [
  ['MiniFASNet V2+V1SE (shipped)', undefined, 'minifasnet'],
  ['MiniFASNetV2', undefined, 'minifasnet-v2'],
  ['MiniFASNetV1SE', undefined, 'minifasnet-v1se'],
  ['fr_liveness (shipped before)', undefined, 'faceplugin'],
];
console.log('\nAnti-spoof models (live probability; median over every frame with a face of each video)');
const { decodeFrames } = await import('../../src/liveness/engine/video.js');
const { withTempFile } = await import('../../src/platform/media/ffmpeg.js');
const ffmpeg = await locateFfmpeg('auto');
const scored = rows.filter((r) => r.c.kind !== 'error' && r.version === 3 && r.result.decision);
const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)] ?? 0.5;
// One at a time: a shared machine times out dozens of parallel decodes.
const frameSets = [];
for (const r of scored) {
  frameSets.push(
    await withTempFile('saola-live-eval-', r.video, async (f) =>
      decodeFrames(ffmpeg, f, { fps: lcfg.sampleFps, side: lcfg.frameSide, maxSeconds: 7, timeoutMs: 120_000 }),
    ),
  );
}
const labelled = ['live_T1.jpg', 'print_F1.jpg', 'screen_F2.jpg'].filter((f) => fs.existsSync(path.join(antispoofDir, f)));
for (const [label, file, input] of models) {
  const { engine } = service(file, input);
  const scores: { kind: Kind; p: number }[] = [];
  for (let i = 0; i < scored.length; i++) {
    const a = await engine.analyze(frameSets[i], { embed: false });
    scores.push({ kind: scored[i].c.kind, p: median(a.antispoofAll) });
  }
  const att = scores.filter((s) => s.kind === 'attack').map((s) => s.p);
  const liv = scores.filter((s) => s.kind === 'live').map((s) => s.p);
  let auc = 0;
  for (const l of liv) for (const a of att) auc += l > a ? 1 : l === a ? 0.5 : 0;
  auc /= Math.max(1, liv.length * att.length);
  const photosOut: string[] = [];
  for (const f of labelled) {
    const { data, info } = await sharp(path.join(antispoofDir, f)).rotate().removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const frames = new Uint8Array(new SharedArrayBuffer(data.length));
    frames.set(data);
    const a = await engine.analyze({ data: frames, width: info.width, height: info.height, count: 1, interval: 1 }, { embed: false });
    photosOut.push(`${f} ${a.antispoof[0]?.toFixed(3) ?? 'no face'}`);
  }
  const mean = (v: number[]) => (v.length ? (v.reduce((x, y) => x + y, 0) / v.length).toFixed(3) : '-');
  console.log(
    `  ${label}: AUC live-proxy vs attack ${auc.toFixed(3)}; mean on attacks ${mean(att)}, on proxies ${mean(liv)}; attacks >= 0.5: ${att.filter((p) => p >= 0.5).length}/${att.length}; proxies < 0.5: ${liv.filter((p) => p < 0.5).length}/${liv.length}; photos: ${photosOut.join(', ')}`,
  );
}

for (const e of engines) await e.close();
await faces.close();
