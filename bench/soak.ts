/**
 * Soak (issue 15): one `saola serve` child process under a mixed workload
 * (NLU writes and pages, credit scores, face matches, ID cards, TTS requests,
 * speech recognition with the tiny generated model) at about its capacity
 * for N minutes, open loop. The server's VmRSS is sampled every 5 s, and
 * every 30 s the server (started with bench/support/heap-probe.mjs) runs a
 * full garbage collection and reports its live heap. The report gives
 * latency and answers per minute, the slope of RSS over the last 8 minutes
 * and over the second half, and the slope of the live heap after collection
 * (each with two standard errors: "no growth" is a slope within noise). RSS
 * alone cannot tell a leak from memory the allocators keep; the heap after a
 * full collection can, for the main thread.
 *
 *   npx tsx bench/soak.ts [--minutes 10] [--rate R] [--services face,reader] [--snapshots DIR] [--json]
 *
 * `--services` keeps only those services of the mix (their weights unchanged), to tell which engine's
 * memory grows.
 *
 * `--snapshots DIR` also writes a heap snapshot of the server's main thread
 * (after a full collection) when the soak starts and when it ends, to compare
 * in Chrome's DevTools (Memory, Comparison) or with bench/support/heap-diff.ts.
 *
 * Without --rate, the mix's capacity is measured first (closed loop, 8
 * clients, 20 s) and the soak runs at 90% of it. The load generator shares
 * the machine with the server.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { TARGETS, asrEnv, type Creds } from './load.js';
import { newAgent, send } from '../fixtures/servers/requests.js';
import { openLoop, slope, startLoadServer, summarise, type Requests } from './support/load.js';

/** Requests per 20 of the mix, by service. */
const MIX: [string, number][] = [
  ['nlu', 6],
  ['credit', 6],
  ['face', 3],
  ['tts', 2],
  ['asr', 2],
  ['reader', 1],
];

/** How many samples a series has, its first, last and largest value. */
function ends(points: { y: number }[]): { samples: number; first: number | undefined; last: number | undefined; max: number } {
  return { samples: points.length, first: points[0]?.y, last: points.at(-1)?.y, max: Math.max(...points.map((p) => p.y)) };
}

function residualStd(points: { x: number; y: number }[], slope: number): { intercept: number; std: number; slopeSe: number } {
  const n = points.length;
  const mx = points.reduce((a, p) => a + p.x, 0) / n;
  const my = points.reduce((a, p) => a + p.y, 0) / n;
  const intercept = my - slope * mx;
  const sse = points.reduce((a, p) => a + (p.y - intercept - slope * p.x) ** 2, 0);
  const std = Math.sqrt(sse / Math.max(1, n - 2));
  const sxx = points.reduce((a, p) => a + (p.x - mx) ** 2, 0);
  return { intercept, std, slopeSe: std / Math.sqrt(sxx) };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string', default: '10' },
      rate: { type: 'string' },
      services: { type: 'string' },
      snapshots: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const minutes = Number(values.minutes);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-soak-'));
  console.error(
    `load average: ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')} (${os.cpus().length} cores, shared)`,
  );
  const server = await startLoadServer(await asrEnv(scratch), { heapProbe: true });
  try {
    const creds = JSON.parse(await server.cli('app', 'create', '--name', 'soak', '--json')) as Creds;
    const only = values.services?.split(',').map((x) => x.trim());
    const mix = only ? MIX.filter(([name]) => only.includes(name)) : MIX;
    if (mix.length === 0) throw new Error(`--services: none of ${MIX.map(([n]) => n).join(', ')}`);
    const makers: Record<string, Requests> = {};
    for (const [name] of mix) makers[name] = await TARGETS[name].prepare(server, creds);
    const slots: string[] = mix.flatMap(([name, w]) => Array.from({ length: w }, () => name));
    // Spread each service over the 20 slots (so heavy requests do not come in runs).
    const order = slots
      .map((name, i) => ({ name, key: (i * 7) % slots.length }))
      .sort((a, b) => a.key - b.key)
      .map((x) => x.name);
    const serviceOf = (i: number) => order[i % order.length];
    const requests: Requests = (i) => makers[serviceOf(i)](i);
    const judge = (i: number, a: { status: number; body: string }) => {
      const t = TARGETS[serviceOf(i)];
      return t.ok(a) ? 'ok' : t.busy(a) ? 'busy' : 'other';
    };
    const agent = newAgent(16);
    for (let i = 0; i < order.length; i++) {
      const r = await send(agent, server.url, requests(i));
      if (judge(i, r) !== 'ok') throw new Error(`warm-up ${serviceOf(i)}: ${r.status} ${r.body.slice(0, 200)}`);
    }
    let rate = Number(values.rate ?? NaN);
    if (!Number.isFinite(rate)) {
      let done = 0;
      let i = 0;
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (performance.now() - t0 < 20_000) {
            const k = i++;
            if (judge(k, await send(agent, server.url, requests(k))) === 'ok') done++;
          }
        }),
      );
      const capacity = done / ((performance.now() - t0) / 1000);
      rate = 0.9 * capacity;
      console.error(`mix capacity ${capacity.toFixed(1)} req/s (8 clients); soak at ${rate.toFixed(1)} req/s`);
    }
    agent.destroy();

    const rss: { x: number; y: number }[] = [];
    /** Live heap after a full collection, MiB, by minute; and each collection's pause. */
    const heap: { x: number; y: number; external: number; gcMs: number }[] = [];
    const probes: Promise<void>[] = [];
    const snapshotDir = values.snapshots ? path.resolve(values.snapshots) : undefined;
    if (snapshotDir) fs.mkdirSync(snapshotDir, { recursive: true });
    const probeHeap = (t: number, snapshot?: string) =>
      probes.push(
        server.heapAfterGc(snapshot && snapshotDir ? path.join(snapshotDir, snapshot) : undefined).then(
          (h) => void heap.push({ x: t / 60_000, y: h.heapUsed / 2 ** 20, external: h.external / 2 ** 20, gcMs: h.gcMs }),
          (e: Error) => console.error(`heap probe: ${e.message}`),
        ),
      );
    probeHeap(0, 'start.heapsnapshot');
    await Promise.all(probes);
    const seconds = minutes * 60;
    const t0 = Date.now();
    const answers = await openLoop(server.url, requests, rate, seconds, {
      tickMs: 5000,
      onTick: (t) => {
        rss.push({ x: t / 60_000, y: server.rssMiB() });
        if (rss.length % 6 === 0) probeHeap(t);
        if (rss.length % 12 === 0) console.error(`  ${(t / 60_000).toFixed(1)} min: RSS ${rss.at(-1)!.y.toFixed(0)} MiB, live heap ${heap.at(-1)?.y.toFixed(1)} MiB`);
      },
      timeoutMs: 120_000,
      sockets: 512,
    });
    rss.push({ x: seconds / 60, y: server.rssMiB() });
    probeHeap(seconds * 1000, 'end.heapsnapshot');
    await Promise.all(probes);
    heap.sort((a, b) => a.x - b.x);
    const wall = (Date.now() - t0) / 1000;

    const perMinute = [];
    for (let m = 0; m < minutes; m++) {
      const inMin = answers.filter((a) => a.at >= m * 60_000 && a.at < (m + 1) * 60_000);
      const verdicts = inMin.map((a) => judge(a.index!, a));
      const okMs = inMin.filter((_, k) => verdicts[k] === 'ok').map((a) => a.ms);
      const s = summarise(okMs);
      const rssAt = rss.filter((p) => p.x >= m && p.x < m + 1).map((p) => p.y);
      perMinute.push({
        minute: m + 1,
        sent: inMin.length,
        ok: okMs.length,
        busy: verdicts.filter((v) => v === 'busy').length,
        other: verdicts.filter((v) => v === 'other').length,
        p50: s.p50,
        p95: s.p95,
        p99: s.p99,
        rssMiB: rssAt.length ? rssAt[rssAt.length - 1] : NaN,
      });
    }
    // Per service over the whole soak.
    const perService: Record<string, ReturnType<typeof summarise> & { ok: number; busy: number; other: number }> = {};
    for (const [name] of mix) {
      const mine = answers.filter((a) => serviceOf(a.index!) === name);
      const ok = mine.filter((a) => TARGETS[name].ok(a));
      perService[name] = {
        ...summarise(ok.map((a) => a.ms)),
        ok: ok.length,
        busy: mine.filter((a) => TARGETS[name].busy(a)).length,
        other: mine.length - ok.length - mine.filter((a) => TARGETS[name].busy(a)).length,
      };
    }
    const tail = rss.filter((p) => p.x >= Math.max(0, minutes - 8));
    const fit = slope(tail);
    const noise = residualStd(tail, fit);
    // Also the second half alone: a warm-up step early in the 8 minutes can hide a steady climb after it.
    const half = rss.filter((p) => p.x >= minutes / 2);
    const halfFit = slope(half);
    const halfNoise = residualStd(half, halfFit);
    const heapFit = slope(heap);
    const heapNoise = residualStd(heap, heapFit);
    const heapHalf = heap.filter((p) => p.x >= minutes / 2);
    const heapHalfFit = slope(heapHalf);
    const heapHalfNoise = residualStd(heapHalf, heapHalfFit);
    const otherSample = answers.find((a) => judge(a.index!, a) === 'other');
    const report = {
      rate,
      minutes,
      wallSeconds: wall,
      loadAverage: os.loadavg(),
      perMinute,
      perService,
      rss: {
        ...ends(rss),
        slopeLast8MinMiBPerMin: fit,
        slopeStdErr: noise.slopeSe,
        residualStdMiB: noise.std,
        slopeSecondHalfMiBPerMin: halfFit,
        slopeSecondHalfStdErr: halfNoise.slopeSe,
        series: rss.map((p) => [Number(p.x.toFixed(3)), Number(p.y.toFixed(1))]),
      },
      heap: {
        ...ends(heap),
        slopeMiBPerMin: heapFit,
        slopeStdErr: heapNoise.slopeSe,
        slopeSecondHalfMiBPerMin: heapHalfFit,
        slopeSecondHalfStdErr: heapHalfNoise.slopeSe,
        gcPauseMaxMs: Math.max(...heap.map((p) => p.gcMs)),
        series: heap.map((p) => [Number(p.x.toFixed(3)), Number(p.y.toFixed(2)), Number(p.external.toFixed(2))]),
      },
      otherSample: otherSample ? `${otherSample.status} ${otherSample.body.slice(0, 200)}` : undefined,
    };
    if (values.json) console.log(JSON.stringify(report, null, 2));
    else {
      console.log(
        `soak: ${rate.toFixed(1)} req/s offered for ${minutes} min (wall ${wall.toFixed(0)} s), mix per ${slots.length}: ${mix.map(([n, w]) => `${n} ${w}`).join(', ')}`,
      );
      console.log('| minute | sent | ok | 429 | other | admitted p50 ms | p95 ms | p99 ms | RSS MiB |');
      console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
      for (const m of perMinute)
        console.log(
          `| ${m.minute} | ${m.sent} | ${m.ok} | ${m.busy} | ${m.other} | ${m.p50.toFixed(0)} | ${m.p95.toFixed(0)} | ${m.p99.toFixed(0)} | ${m.rssMiB.toFixed(0)} |`,
        );
      console.log('| service | ok | 429 | other | p50 ms | p95 ms | p99 ms |');
      console.log('|---|---:|---:|---:|---:|---:|---:|');
      for (const [name, s] of Object.entries(perService))
        console.log(`| ${name} | ${s.ok} | ${s.busy} | ${s.other} | ${s.p50.toFixed(0)} | ${s.p95.toFixed(0)} | ${s.p99.toFixed(0)} |`);
      console.log(
        `RSS: ${report.rss.samples} samples every 5 s, first ${report.rss.first?.toFixed(0)} MiB, last ${report.rss.last?.toFixed(0)} MiB, max ${report.rss.max.toFixed(0)} MiB; ` +
          `slope over the last 8 min ${fit.toFixed(2)} ± ${(2 * noise.slopeSe).toFixed(2)} MiB/min (2 standard errors), residual noise ${noise.std.toFixed(1)} MiB; ` +
          `second half alone ${halfFit.toFixed(2)} ± ${(2 * halfNoise.slopeSe).toFixed(2)} MiB/min`,
      );
      console.log(
        `live heap after a full collection (main thread): ${heap.length} samples every 30 s, first ${report.heap.first?.toFixed(1)} MiB, last ${report.heap.last?.toFixed(1)} MiB, max ${report.heap.max.toFixed(1)} MiB; ` +
          `slope ${heapFit.toFixed(3)} ± ${(2 * heapNoise.slopeSe).toFixed(3)} MiB/min, second half ${heapHalfFit.toFixed(3)} ± ${(2 * heapHalfNoise.slopeSe).toFixed(3)} MiB/min; longest collection ${report.heap.gcPauseMaxMs.toFixed(0)} ms`,
      );
      if (report.otherSample) console.log(`other answers, e.g. ${report.otherSample}`);
      console.log(
        `load average at the end: ${os
          .loadavg()
          .map((x) => x.toFixed(2))
          .join(' ')}`,
      );
    }
  } finally {
    await server.stop();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
