/**
 * Liveness on a folder of real videos (`npm run eval:liveness -- --real DIR [--conform]`).
 * DIR holds `truth.jsonl` (one line per video: `file`, `label` live/print/replay/mask).
 * With `--conform` each video is first copied as the spec asks a client to send it
 * (5.5 s from 0.5 s in, 1280x720 or 720x1280 scaled and centre-cropped, 30 fps,
 * H.264); a video shorter than that is played forward then backward until it is
 * long enough (a jump cut would look like a new scene). Without it the originals
 * are sent as they are, to see what a client sending them unchanged is answered.
 * The copies live in a temp folder and are removed at the end.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { LivenessService, LivenessTrace, LivenessVersion } from '../../src/liveness/service.js';
import type { LivenessResult } from '../../src/liveness/responses.js';

const run = promisify(execFile);

export interface RealVideo {
  file: string;
  label: 'live' | 'print' | 'replay' | 'mask';
}

export interface RealRow {
  video: RealVideo;
  /** Seconds into the original where the conforming copy starts. */
  start: number;
  version: LivenessVersion;
  result: LivenessResult;
  trace: LivenessTrace;
  cpu: number;
}

export function readTruth(dir: string): RealVideo[] {
  return fs
    .readFileSync(path.join(dir, 'truth.jsonl'), 'utf8')
    .split(/\r?\n/)
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as RealVideo);
}

async function probe(ffmpeg: string, file: string): Promise<{ seconds: number; width: number; height: number }> {
  // Decoding counts the real length: some containers carry no duration (WebM from a browser).
  const { stderr } = await run(ffmpeg, ['-hide_banner', '-nostdin', '-i', file, '-f', 'null', '-'], { maxBuffer: 1 << 24 }).catch((e) => e);
  const times = [...String(stderr).matchAll(/time=(\d+):(\d+):(\d+(?:\.\d+)?)/g)];
  const t = times.at(-1);
  const seconds = t ? Number(t[1]) * 3600 + Number(t[2]) * 60 + Number(t[3]) : 0;
  const size = /Video: .*?[ ,](\d{2,5})x(\d{2,5})[ ,]/.exec(String(stderr));
  let width = size ? Number(size[1]) : 0;
  let height = size ? Number(size[2]) : 0;
  if (/rotat\w*\s*:?\s*(?:of )?-?90/.test(String(stderr))) [width, height] = [height, width];
  return { seconds, width, height };
}

/** Seconds of each spec-conforming copy. */
const WANT = 5.5;

/** Start times of the spec-conforming copies of a video: 0.5 s, then (with `windows`) every 5.5 s that still fits a whole copy. */
export async function windowStarts(ffmpeg: string, src: string, windows: boolean): Promise<number[]> {
  if (!windows) return [0.5];
  const { seconds } = await probe(ffmpeg, src);
  const starts = [0.5];
  while (starts.at(-1)! + 2 * WANT <= seconds) starts.push(starts.at(-1)! + WANT);
  return starts;
}

/** The spec-conforming copy of one video (see the file's comment), from `start` seconds in. */
export async function conform(ffmpeg: string, src: string, dst: string, start = 0.5): Promise<void> {
  const p = await probe(ffmpeg, src);
  const portrait = p.height > p.width;
  const [w, h] = portrait ? [720, 1280] : [1280, 720];
  const want = WANT;
  const fit = `scale=${w}:${h}:force_original_aspect_ratio=increase,crop=${w}:${h},setsar=1,fps=30`;
  const encode = ['-an', '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '20', '-pix_fmt', 'yuv420p', '-r', '30'];
  if (p.seconds >= start + want) {
    // Seeking the input (not a trim filter) starts the copy's timestamps at 0, so its container says 5.5 s.
    await run(ffmpeg, ['-hide_banner', '-nostdin', '-y', '-ss', String(start), '-i', src, '-t', String(want), '-vf', fit, ...encode, dst], {
      maxBuffer: 1 << 24,
    });
    return;
  }
  // Forward then backward once (a loop point then joins two equal frames), looped until long enough.
  const from = p.seconds >= want ? p.seconds - want : 0;
  const pingPong = `${dst}.pp.mp4`;
  await run(
    ffmpeg,
    [
      '-hide_banner',
      '-nostdin',
      '-y',
      '-i',
      src,
      '-filter_complex',
      `[0:v]trim=start=${from},setpts=PTS-STARTPTS,${fit},split[a][b];[b]reverse[r];[a][r]concat=n=2:v=1:a=0[v]`,
      '-map',
      '[v]',
      ...encode,
      pingPong,
    ],
    { maxBuffer: 1 << 24 },
  );
  await run(ffmpeg, ['-hide_banner', '-nostdin', '-y', '-stream_loop', '-1', '-i', pingPong, '-t', String(want), ...encode, dst], { maxBuffer: 1 << 24 });
  fs.rmSync(pingPong, { force: true });
}

const isLive = (r: RealRow) => r.result.decision?.isLive === true;
const sure = (r: RealRow) => isLive(r) && r.result.decision?.needToReview === false;
const review = (r: RealRow) => r.result.decision?.needToReview === true;
const frac = (n: number, d: number) => `${n}/${d}${d ? ` (${((100 * n) / d).toFixed(0)}%)` : ''}`;

/**
 * Runs every video of DIR through `svc` in each version and prints the answers.
 * APCER: attacks answered live (with or without review: a live answer is what a
 * flow that ignores review acts on); BPCER: live people not answered live
 * without review (refused, sent to review, or any error code).
 */
export async function evalReal(opts: {
  dir: string;
  conform: boolean;
  /** With `conform`: every 5.5 s window of each video, not only the first (more real frames, the same people). */
  windows?: boolean;
  ffmpeg: string;
  svc: LivenessService;
  versions: LivenessVersion[];
  cpuSeconds: () => number;
}): Promise<RealRow[]> {
  const truth = readTruth(opts.dir);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-live-real-'));
  const rows: RealRow[] = [];
  try {
    for (const v of truth) {
      const original = path.join(opts.dir, v.file);
      for (const start of opts.conform ? await windowStarts(opts.ffmpeg, original, opts.windows === true) : [0]) {
        let file = original;
        if (opts.conform) {
          file = path.join(tmp, `${rows.length}-${path.basename(v.file).replace(/\.\w+$/, '')}.mp4`);
          await conform(opts.ffmpeg, original, file, start);
        }
        const data = fs.readFileSync(file);
        for (const version of opts.versions) {
          const trace: LivenessTrace = {};
          const c0 = opts.cpuSeconds();
          const result = await opts.svc.check(version, [{ field: 'video', filename: path.basename(file), mimetype: 'video/mp4', data }], trace);
          rows.push({ video: v, start, version, result, trace, cpu: opts.cpuSeconds() - c0 });
        }
      }
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  console.log(
    `Real videos: ${opts.dir} (${truth.length} videos, ${opts.conform ? `spec-conforming copies${opts.windows ? ', every 5.5 s window' : ''}` : 'as they are'})\n`,
  );
  for (const version of opts.versions) {
    const vr = rows.filter((r) => r.version === version);
    const live = vr.filter((r) => r.video.label === 'live');
    const att = vr.filter((r) => r.video.label !== 'live');
    const codes = new Map<string, number>();
    for (const r of vr) codes.set(String(r.result.entry.code), (codes.get(String(r.result.entry.code)) ?? 0) + 1);
    console.log(
      `v${version}: APCER ${frac(att.filter(isLive).length, att.length)} (attacks answered live; without review ${att.filter(sure).length}); BPCER ${frac(live.filter((r) => !sure(r)).length, live.length)} (live not accepted without review); review rate ${frac(vr.filter(review).length, vr.length)}; live accepted without review ${live.filter(sure).length}/${live.length}; codes ${[...codes].map(([c, n]) => `${c}x${n}`).join(' ')}`,
    );
  }
  console.log('\nvideo | label | version | code | is_live | review | prob | cues | reason | near limits | CPU s');
  for (const r of rows) {
    const c = r.trace.verdict?.cues;
    const cues = c
      ? `as ${c.antispoof.toFixed(2)} nr ${c.nonRigidity.toFixed(1)} bl ${c.blinks} mo ${c.moire.toFixed(2)} gl ${c.glare.toFixed(3)} bo ${c.border.toFixed(2)} sc ${c.scene.toFixed(2)}`
      : '-';
    const d = r.result.decision;
    console.log(
      `${r.video.file}@${r.start} | ${r.video.label} | v${r.version} | ${r.result.entry.code} | ${d ? d.isLive : '-'} | ${d ? d.needToReview : '-'} | ${d ? d.prob.toFixed(3) : '-'} | ${cues} | ${r.trace.verdict?.reason ?? r.result.detail} | ${r.trace.verdict?.near.join('; ') || '-'} | ${r.cpu.toFixed(2)}`,
    );
  }
  const cpu = rows.map((r) => r.cpu).sort((a, b) => a - b);
  if (cpu.length) console.log(`\nCPU per check (process + ffmpeg): median ${cpu[Math.floor(cpu.length / 2)].toFixed(2)} s, max ${cpu[cpu.length - 1].toFixed(2)} s`);
  return rows;
}
