/**
 * Load bench (issue 15): for each service, in its own `saola serve` child
 * process,
 *   1. capacity: closed loop with growing concurrency; capacity is the best
 *      throughput whose p95 latency stays within the service's budget;
 *   2. overload: an open loop at twice that rate (fixed arrivals, latency from
 *      the scheduled start) while the server's VmRSS is sampled;
 *   3. recovery: after the load drops, requests at a low rate must get their
 *      normal answer with normal latency.
 * Checked: the excess is refused with 429 in the service's own body shape,
 * admitted requests' latency does not grow through the window, RSS does not
 * grow through the window, and the service recovers.
 *
 *   npx tsx bench/load.ts [--service nlu,credit,reader,face,tts,asr] [--seconds 20] [--server-cpu 0.5] [--json]
 *
 * NLU and credit answer on the event loop: the server gets core 0 and the
 * driver core 1. Their answers are so cheap that one driver process on one
 * core cannot send and time twice what a whole core answers (the table's
 * "driver kept up" says whether it did); `--server-cpu 0.5` caps the server
 * at half its core (a Linux control group, needs root), so the driver has
 * twice the server's CPU and the 2x window measures the server, not the driver.
 *
 * `npm run bench -- load` runs it with a shorter window (BENCH_LOAD_SECONDS,
 * default 12). The load generator shares the machine with the server.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { eventsCsv, generatePopulation } from '../src/credit/synthetic.js';
import { printTable, type BenchRow } from './harness.js';
import { newAgent, send } from '../fixtures/servers/requests.js';
import { capCpu, multipart, openLoop, pinSelf, slope, startLoadServer, summarise, type Answer, type LoadServer, type Requests } from './support/load.js';

const root = path.resolve(import.meta.dirname, '..');

/** What a service's load needs: its requests, its success and its 429 as its own shape. */
export interface LoadTarget {
  name: string;
  /** Extra server settings. */
  env?: Record<string, string>;
  /** Closed-loop concurrencies tried when finding capacity, in order. */
  levels: number[];
  /** p95 latency (ms) the capacity run may reach. */
  budgetMs: number;
  /**
   * Event-loop services: the server gets core 0 and the load driver core 1, so that the driver can send
   * twice what the server answers (unpinned, both share 2 cores and the driver falls behind first).
   */
  pin?: boolean;
  /**
   * With `pin`: the server's CPU is further capped at this fraction of its core (`--server-cpu`), so that
   * the driver, with a whole core, can send and time twice what the server answers. Unset: no cap.
   */
  serverCpu?: number;
  /** Seeds data and returns the request of index i. */
  prepare(server: LoadServer, creds: Creds): Promise<Requests>;
  ok(a: { status: number; body: string }): boolean;
  /** The 429 in this service's own shape. */
  busy(a: { status: number; body: string }): boolean;
  /**
   * Asynchronous services (TTS): the admitted request is done later. Given the
   * accepted answers, waits for them (sampled) and returns each one's time to done (ms from its start).
   */
  completion?: (server: LoadServer, creds: Creds, agent: http.Agent) => Completion;
}

/** Follows accepted asynchronous requests to their end. */
export interface Completion {
  /** The open loop's clock starts now. */
  start(): void;
  accepted(a: Answer): void;
  /** Waits for every accepted request; answers each one's time to done. */
  finish(timeoutMs: number): Promise<{ at: number; ms: number }[]>;
}

export interface Creds {
  app_code: string;
  api_key: string;
  token: string;
}

const json = (body: string): any => {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
};
/** NLU and credit: fastify's body with a stable code. */
const fastifyBusy = (a: { status: number; body: string }) => {
  const b = json(a.body);
  return a.status === 429 && b?.statusCode === 429 && b?.code === 'BUSY' && typeof b?.message === 'string';
};

function readerFixture(name: string): Buffer {
  return fs.readFileSync(path.join(root, 'test/fixtures/reader', name));
}

export const TARGETS: Record<string, LoadTarget> = {
  nlu: {
    name: 'nlu',
    pin: true,
    levels: [1, 4, 16, 32, 64],
    budgetMs: 100,
    // A mix on 2,000 samples: one write in four, three pages of 200 samples (uncached: query and serialise).
    // Writes alone are so cheap that one load process cannot send twice what the server answers on 2 cores.
    async prepare(server, creds) {
      const headers = { authorization: `Bearer ${creds.token}`, 'content-type': 'application/json' };
      const seed = await send(newAgent(1), server.url, {
        method: 'POST',
        path: '/api/v3/intent',
        headers,
        body: Buffer.from(JSON.stringify({ label: 'load_intent' })),
      });
      if (seed.status !== 200) throw new Error(`intent: ${seed.status} ${seed.body}`);
      const rows = Array.from({ length: 2000 }, (_, i) => ({ intent: 'load_intent', sample: `câu mẫu số ${i} để đo tải dịch vụ` }));
      const imported = await send(newAgent(1), server.url, {
        method: 'POST',
        path: '/api/v3/intent-sample/import_intent_samples',
        headers,
        body: Buffer.from(JSON.stringify(rows)),
      });
      if (json(imported.body)?.number_of_imported_sample !== 2000) throw new Error(`seeding: ${imported.body.slice(0, 200)}`);
      const get = { authorization: `Bearer ${creds.token}` };
      return (i) =>
        i % 4 === 0
          ? { method: 'POST', path: '/api/v3/sample', headers, body: Buffer.from(JSON.stringify({ content: `tôi muốn đặt vé máy bay số ${i} đi Hà Nội` })) }
          : { method: 'GET', path: `/api/v3/sample?limit=200&offset=${(i * 7) % 1800}`, headers: get };
    },
    ok: (a) => a.status === 200 && (Array.isArray(json(a.body)) || typeof json(a.body)?.code === 'string'),
    busy: fastifyBusy,
  },
  credit: {
    name: 'credit',
    pin: true,
    levels: [1, 4, 16, 32, 64],
    budgetMs: 100,
    async prepare(server, creds) {
      const people = generatePopulation({ seed: 1501, people: 2000 });
      const file = path.join(server.dataDir, 'events.csv');
      fs.writeFileSync(file, [...eventsCsv(people)].join(''));
      await server.cli('credit', 'import', 'alpha', file, '--app', creds.app_code, '--json');
      const headers = { api_key: creds.api_key };
      return (i) => {
        const p = people[i % people.length];
        const t = Math.floor(p.decisionTime.getTime() / 1000);
        return { method: 'GET', path: `/dmp/creditscoring/v1?phone=0${p.phone.slice(2)}&dltype=${p.dltype}&decision_time=${t}`, headers };
      };
    },
    ok: (a) => a.status === 200 && typeof json(a.body)?.score === 'number',
    busy: fastifyBusy,
  },
  reader: {
    name: 'reader',
    levels: [1, 2, 4, 8],
    budgetMs: 8000,
    async prepare(_server, creds) {
      const bodies = await Promise.all(
        ['chip-front.jpg', 'cccd12-front.jpg', 'cmnd09-front.jpg', 'chip-back.jpg'].map((f) => multipart([['image', readerFixture(f), 'card.jpg', 'image/jpeg']])),
      );
      return (i) => {
        const b = bodies[i % bodies.length];
        return { method: 'POST', path: '/vision/idr/vnm', headers: { api_key: creds.api_key, 'content-type': b.contentType }, body: b.body };
      };
    },
    ok: (a) => a.status === 200 && json(a.body)?.errorCode === 0,
    busy: (a) => {
      const b = json(a.body);
      return a.status === 429 && b?.errorCode === 1 && typeof b?.errorMessage === 'string' && Array.isArray(b?.data);
    },
  },
  face: {
    name: 'face',
    levels: [1, 2, 4, 8],
    budgetMs: 4000,
    async prepare(_server, creds) {
      const img = (f: string) => fs.readFileSync(path.join(root, 'test/fixtures/face', f));
      const b = await multipart([
        ['file[]', img('grace_hopper.jpg'), 'a.jpg', 'image/jpeg'],
        ['file[]', img('person-a.jpg'), 'b.jpg', 'image/jpeg'],
      ]);
      return () => ({ method: 'POST', path: '/dmp/checkface/v1', headers: { api_key: creds.api_key, 'content-type': b.contentType }, body: b.body });
    },
    ok: (a) => a.status === 200 && json(a.body)?.code === '200',
    busy: (a) => {
      const b = json(a.body);
      return a.status === 429 && b?.code === '429' && typeof b?.data === 'string';
    },
  },
  tts: {
    name: 'tts',
    levels: [1, 2, 4, 8],
    budgetMs: 10_000,
    async prepare(_server, creds) {
      return (i) => ({
        method: 'POST',
        path: '/hmi/tts/v5',
        headers: { api_key: creds.api_key, 'content-type': 'text/plain' },
        body: Buffer.from(`Xin chào, đây là câu thử tải số ${i}.`),
      });
    },
    ok: (a) => a.status === 200 && json(a.body)?.error === 0,
    busy: (a) => {
      const b = json(a.body);
      return a.status === 429 && b?.error === 9 && typeof b?.message === 'string' && 'async' in (b ?? {});
    },
    completion(server, creds, agent) {
      // Each accepted request is polled (every 200 ms) from its answer on, until done; its time to done
      // counts from its scheduled start. `at` is on the open loop's clock, which started at `t0`.
      const open = new Map<string, number>();
      const times: { at: number; ms: number }[] = [];
      let t0 = performance.now();
      let stop = false;
      const poller = (async () => {
        while (!stop || open.size > 0) {
          for (const [id, at] of [...open]) {
            const r = await send(agent, server.url, { method: 'GET', path: `/hmi/tts/v5/status/${id}`, headers: { api_key: creds.api_key } });
            const st = json(r.body)?.status;
            if (st === 'done' || st === 'failed') {
              times.push({ at, ms: performance.now() - t0 - at });
              open.delete(id);
            }
          }
          await new Promise((r) => setTimeout(r, 200));
        }
      })();
      return {
        start: () => (t0 = performance.now()),
        accepted: (a: Answer) => open.set(json(a.body).request_id as string, a.at),
        async finish(timeoutMs: number) {
          stop = true;
          await Promise.race([poller, new Promise((r) => setTimeout(r, timeoutMs))]);
          if (open.size) throw new Error(`${open.size} TTS requests not done ${timeoutMs / 1000} s after the load`);
          return times;
        },
      };
    },
  },
  asr: {
    name: 'asr',
    levels: [1, 2, 4, 8],
    budgetMs: 8000,
    async prepare(server, creds) {
      const wav = path.join(server.dataDir, 'sentence.wav');
      execFileSync('espeak-ng', ['-v', 'vi', '-w', wav, 'Xin chào, hôm nay trời đẹp quá. Tôi muốn đặt một vé máy bay đi Hà Nội vào sáng mai.']);
      const audio = fs.readFileSync(wav);
      return () => ({ method: 'POST', path: '/hmi/asr/general', headers: { api_key: creds.api_key, 'content-type': 'audio/wav' }, body: audio });
    },
    ok: (a) => a.status === 200 && json(a.body)?.status === 0,
    busy: (a) => {
      const b = json(a.body);
      return a.status === 429 && b?.status === 9 && typeof b?.message === 'string' && typeof b?.id === 'string';
    },
  },
};

/** ASR needs a model: the tiny generated transducer of the tests (its transcripts are meaningless; its cost is real). */
export async function asrEnv(scratch: string): Promise<Record<string, string>> {
  if (process.env.SAOLA_ASR_MODEL) return { SAOLA_ASR_MODEL: process.env.SAOLA_ASR_MODEL };
  const { buildTinyTransducer } = await import('../fixtures/speech/tiny-transducer.js');
  const dir = path.join(scratch, 'tiny-asr');
  buildTinyTransducer(dir);
  return { SAOLA_ASR_MODEL: dir };
}

export interface LoadResult {
  service: string;
  capacity: { rate: number; concurrency: number; p50: number; p95: number; levels: { concurrency: number; rate: number; p95: number }[] };
  baselineP50: number;
  overload: {
    offered: number;
    seconds: number;
    sent: number;
    ok: number;
    busy: number;
    other: number;
    otherSample?: string;
    busySample?: string;
    admitted: ReturnType<typeof summarise>;
    p99FirstThird: number;
    p99LastThird: number;
    rssStart: number;
    rssMax: number;
    rssEnd: number;
    rssSlopeSecondHalf: number;
    /** p99 of how late the load driver started requests (ms). */
    driverLagP99: number;
    /** The driver's CPU over the window, in cores (its answers' timing is its own when near 1). */
    driverCpu: number;
  };
  recovery: { ok: number; of: number; p50: number };
  verdict: { refusedInShape: boolean; latencyBounded: boolean; rssBounded: boolean; recovered: boolean; driverKeptUp: boolean };
}

async function createApp(server: LoadServer): Promise<Creds> {
  return JSON.parse(await server.cli('app', 'create', '--name', `load-${Date.now()}`, '--json')) as Creds;
}

/** Closed loop of `call` at `concurrency` for `seconds`: throughput and latency of the successful calls. */
async function closed(call: (i: number) => Promise<{ ok: boolean }>, concurrency: number, seconds: number) {
  const ms: number[] = [];
  let failed = 0;
  let i = 0;
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const s = performance.now();
        const r = await call(i++);
        if (r.ok) ms.push(performance.now() - s);
        else failed++;
      }
    }),
  );
  const wall = (performance.now() - t0) / 1000;
  return { rate: ms.length / wall, failed, ...summarise(ms) };
}

export async function runLoad(target: LoadTarget, opts: { seconds: number; capacitySeconds: number; log?: (s: string) => void }): Promise<LoadResult> {
  const log = opts.log ?? ((s: string) => console.error(s));
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-load-scratch-'));
  const env = { ...(target.env ?? {}), ...(target.name === 'asr' ? await asrEnv(scratch) : {}) };
  const server = await startLoadServer(env, target.pin ? { cpu: 0 } : {});
  if (target.pin) pinSelf('1');
  const uncap = target.pin && target.serverCpu ? capCpu(server.pid, target.serverCpu) : undefined;
  if (uncap) log(`${target.name}: server capped at ${target.serverCpu} of core 0, driver on core 1`);
  const agent = newAgent(64);
  try {
    const creds = await createApp(server);
    const requests = await target.prepare(server, creds);
    // Closed-loop unit: one request (TTS: the request and its completion, polled).
    const call = async (i: number) => {
      const r = await send(agent, server.url, requests(i));
      if (!target.ok(r)) return { ok: false };
      if (target.completion) {
        const c = target.completion(server, creds, agent);
        c.start();
        c.accepted({ ...r, ms: 0, at: 0 });
        await c.finish(300_000);
      }
      return { ok: true };
    };
    // Warm-up: engines and pools start on first use.
    for (let i = 0; i < 3; i++) {
      const r = await send(agent, server.url, requests(i));
      if (!target.ok(r)) throw new Error(`${target.name}: warm-up answer ${r.status} ${r.body.slice(0, 300)}`);
    }
    const base = await closed(call, 1, Math.min(opts.capacitySeconds, 4));
    log(`${target.name}: 1 client: ${base.rate.toFixed(1)} req/s, p50 ${base.p50.toFixed(1)} ms`);
    const levels: { concurrency: number; rate: number; p95: number; p50: number }[] = [{ concurrency: 1, rate: base.rate, p95: base.p95, p50: base.p50 }];
    for (const c of target.levels.filter((c) => c > 1)) {
      const r = await closed(call, c, opts.capacitySeconds);
      log(`${target.name}: ${c} clients: ${r.rate.toFixed(1)} req/s, p50 ${r.p50.toFixed(1)} ms, p95 ${r.p95.toFixed(1)} ms, ${r.failed} failed`);
      levels.push({ concurrency: c, rate: r.rate, p95: r.p95, p50: r.p50 });
      if (r.p95 > target.budgetMs) break;
      const best = Math.max(...levels.slice(0, -1).map((l) => l.rate));
      if (r.rate < best * 1.05) break; // no longer growing: saturated
    }
    const within = levels.filter((l) => l.p95 <= target.budgetMs);
    const cap = (within.length ? within : levels.slice(0, 1)).reduce((a, b) => (b.rate > a.rate ? b : a));
    log(`${target.name}: capacity ${cap.rate.toFixed(1)} req/s at ${cap.concurrency} clients (p95 ${cap.p95.toFixed(0)} ms <= ${target.budgetMs} ms)`);

    // Overload: twice the capacity, open loop.
    const offered = 2 * cap.rate;
    const rss: { x: number; y: number }[] = [];
    const rssStart = server.rssMiB();
    const tracker = target.completion?.(server, creds, agent);
    const driverCpu0 = process.cpuUsage();
    const driverWall0 = performance.now();
    const answers = await openLoop(server.url, (i) => requests(100_000 + i), offered, opts.seconds, {
      onStart: () => tracker?.start(),
      onAnswer: (a) => tracker && target.ok(a) && tracker.accepted(a),
      tickMs: 500,
      onTick: (t) => rss.push({ x: t / 1000, y: server.rssMiB() }),
      timeoutMs: 60_000,
    });
    rss.push({ x: opts.seconds, y: server.rssMiB() });
    // How busy the driver was: near a whole core, it (not the server) is where requests wait, and the latencies
    // it reports are its own.
    const driverUsage = process.cpuUsage(driverCpu0);
    const driverCpu = (driverUsage.user + driverUsage.system) / 1000 / (performance.now() - driverWall0);
    const okAnswers = answers.filter((a) => target.ok(a));
    const busy = answers.filter((a) => target.busy(a));
    const other = answers.filter((a) => !target.ok(a) && !target.busy(a));
    let admittedMs = okAnswers.map((a) => a.ms);
    let byTime = okAnswers.map((a) => ({ at: a.at, ms: a.ms }));
    if (tracker) {
      // Time to done (synthesised), from each request's scheduled start.
      byTime = await tracker.finish(300_000);
      admittedMs = byTime.map((a) => a.ms);
    }
    const third = (opts.seconds * 1000) / 3;
    const p99Of = (xs: number[]) => summarise(xs).p99;
    const first = p99Of(byTime.filter((a) => a.at < third).map((a) => a.ms));
    const last = p99Of(byTime.filter((a) => a.at >= 2 * third).map((a) => a.ms));
    const half = rss.filter((p) => p.x >= opts.seconds / 2);
    const rssMax = Math.max(...rss.map((p) => p.y));
    const admitted = summarise(admittedMs);
    log(
      `${target.name}: offered ${offered.toFixed(1)} req/s for ${opts.seconds} s: ${answers.length} sent, ${okAnswers.length} ok, ${busy.length} 429, ${other.length} other; ` +
        `driver lag p99 ${summarise(answers.map((a) => a.lag ?? 0)).p99.toFixed(0)} ms, driver CPU ${(100 * driverCpu).toFixed(0)}% of a core; admitted p50 ${admitted.p50.toFixed(0)} p95 ${admitted.p95.toFixed(0)} p99 ${admitted.p99.toFixed(0)} ms (first third p99 ${first.toFixed(0)}, last ${last.toFixed(0)}); RSS ${rssStart.toFixed(0)} -> max ${rssMax.toFixed(0)} MiB`,
    );
    // Second by second: what was answered, and how long the admitted requests of that second took.
    for (let sec = 0; sec < opts.seconds; sec++) {
      const inSec = answers.filter((a) => a.at >= sec * 1000 && a.at < (sec + 1) * 1000);
      const okMs = inSec.filter((a) => target.ok(a)).map((a) => a.ms);
      const okSummary = summarise(okMs);
      if (process.env.LOAD_VERBOSE)
        log(
          `  ${target.name} s${sec}: ${inSec.length} sent, ${okMs.length} ok, ${inSec.filter((a) => target.busy(a)).length} 429, ok p50 ${okSummary.p50.toFixed(0)} p99 ${okSummary.p99.toFixed(0)} max ${okSummary.max.toFixed(0)} ms${
            process.env.LOAD_VERBOSE === '2'
              ? ` (slowest: ${inSec
                  .filter((a) => target.ok(a))
                  .sort((a, b) => b.ms - a.ms)
                  .slice(0, 3)
                  .map((a) => `#${a.index} ${a.ms.toFixed(0)} ms`)
                  .join(', ')})`
              : ''
          }, driver lag p50 ${summarise(inSec.map((a) => a.lag ?? 0)).p50.toFixed(0)} ms`,
        );
    }
    if (other.length) log(`${target.name}: other answers, e.g. ${other[0].status} ${other[0].body.slice(0, 200)}`);

    // Recovery: the load has dropped; a request every 500 ms.
    await new Promise((r) => setTimeout(r, 2000));
    const rec: number[] = [];
    let recOk = 0;
    const REC = 10;
    for (let i = 0; i < REC; i++) {
      const s = performance.now();
      const ok = await call(200_000 + i);
      if (ok.ok) {
        recOk++;
        rec.push(performance.now() - s);
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    const recovery = { ok: recOk, of: REC, p50: summarise(rec).p50 };
    log(`${target.name}: recovery ${recOk}/${REC} ok, p50 ${recovery.p50.toFixed(1)} ms (before the load: ${base.p50.toFixed(1)} ms)`);
    const rssEnd = server.rssMiB();
    const rssSlope = slope(half);
    const result: LoadResult = {
      service: target.name,
      capacity: {
        rate: cap.rate,
        concurrency: cap.concurrency,
        p50: cap.p50,
        p95: cap.p95,
        levels: levels.map(({ concurrency, rate, p95 }) => ({ concurrency, rate, p95 })),
      },
      baselineP50: base.p50,
      overload: {
        offered,
        seconds: opts.seconds,
        sent: answers.length,
        ok: okAnswers.length,
        busy: busy.length,
        other: other.length,
        otherSample: other[0] ? `${other[0].status} ${other[0].body.slice(0, 200)}` : undefined,
        busySample: busy[0] ? busy[0].body.slice(0, 200) : undefined,
        admitted,
        p99FirstThird: first,
        p99LastThird: last,
        rssStart,
        rssMax,
        rssEnd,
        rssSlopeSecondHalf: rssSlope,
        driverLagP99: summarise(answers.map((a) => a.lag ?? 0)).p99,
        driverCpu,
      },
      recovery,
      verdict: {
        refusedInShape: busy.length > 0 && other.length === 0,
        // Bounded: the latest admitted requests wait no longer than the first ones (a growing queue doubles it and more).
        latencyBounded: Number.isFinite(last) && last <= 2 * first + 100,
        // Bounded: no growth through the second half of the window beyond 2 MiB/s.
        rssBounded: !(rssSlope > 2),
        recovered: recOk === REC && recovery.p50 <= 3 * base.p50 + 50,
        // The driver sent on time and had CPU to spare: otherwise the latencies above are partly its own queue.
        driverKeptUp: driverCpu < 0.85 && summarise(answers.map((a) => a.lag ?? 0)).p99 < 50,
      },
    };
    return result;
  } catch (err) {
    (err as Error).message += `\nserver output: ${server.output().slice(-1500)}`;
    throw err;
  } finally {
    agent.destroy();
    if (target.pin) pinSelf('0-' + (os.cpus().length - 1));
    await server.stop();
    uncap?.();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

export function rowsOf(r: LoadResult): BenchRow[] {
  const s = `load ${r.service}`;
  const o = r.overload;
  const yes = (b: boolean) => (b ? 'yes' : 'NO');
  return [
    { benchmark: s, metric: 'capacity', value: r.capacity.rate, unit: 'req/s', note: `${r.capacity.concurrency} clients, p95 ${r.capacity.p95.toFixed(0)} ms` },
    {
      benchmark: s,
      metric: 'offered (2x)',
      value: o.offered,
      unit: 'req/s',
      note: `${o.seconds} s open loop, ${o.sent} sent, driver lag p99 ${o.driverLagP99.toFixed(0)} ms, driver CPU ${(100 * o.driverCpu).toFixed(0)}%; driver kept up: ${yes(r.verdict.driverKeptUp)}`,
    },
    { benchmark: s, metric: 'admitted', value: o.ok, unit: 'req', note: `${(o.ok / o.seconds).toFixed(1)} req/s` },
    {
      benchmark: s,
      metric: '429 in shape',
      value: o.busy,
      unit: 'req',
      goal: '> 0',
      note: `${o.other} other answers; refused in shape: ${yes(r.verdict.refusedInShape)}`,
    },
    { benchmark: s, metric: 'admitted p50', value: o.admitted.p50, unit: 'ms' },
    { benchmark: s, metric: 'admitted p95', value: o.admitted.p95, unit: 'ms' },
    {
      benchmark: s,
      metric: 'admitted p99',
      value: o.admitted.p99,
      unit: 'ms',
      note: `first third ${o.p99FirstThird.toFixed(0)}, last ${o.p99LastThird.toFixed(0)}; bounded: ${yes(r.verdict.latencyBounded)}`,
    },
    {
      benchmark: s,
      metric: 'RSS max',
      value: o.rssMax,
      unit: 'MiB',
      note: `start ${o.rssStart.toFixed(0)}, end ${o.rssEnd.toFixed(0)}, 2nd-half slope ${o.rssSlopeSecondHalf.toFixed(2)} MiB/s; bounded: ${yes(r.verdict.rssBounded)}`,
    },
    {
      benchmark: s,
      metric: 'recovery p50',
      value: r.recovery.p50,
      unit: 'ms',
      note: `${r.recovery.ok}/${r.recovery.of} ok, before load ${r.baselineP50.toFixed(1)} ms; recovered: ${yes(r.verdict.recovered)}`,
    },
  ];
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      service: { type: 'string', default: Object.keys(TARGETS).join(',') },
      seconds: { type: 'string', default: '20' },
      'capacity-seconds': { type: 'string', default: '4' },
      'server-cpu': { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const names = values
    .service!.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const n of names) if (!TARGETS[n]) throw new Error(`unknown service ${n}; one of ${Object.keys(TARGETS).join(', ')}`);
  const rows: BenchRow[] = [];
  const results: LoadResult[] = [];
  console.error(
    `load average: ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')} (${os.cpus().length} cores, shared)`,
  );
  for (const n of names) {
    try {
      const target = values['server-cpu'] && TARGETS[n].pin ? { ...TARGETS[n], serverCpu: Number(values['server-cpu']) } : TARGETS[n];
      const r = await runLoad(target, { seconds: Number(values.seconds), capacitySeconds: Number(values['capacity-seconds']) });
      results.push(r);
      rows.push(...rowsOf(r));
    } catch (err) {
      console.error(err);
      rows.push({ benchmark: `load ${n}`, metric: 'error', value: NaN, unit: '', note: (err as Error).message.split('\n')[0] });
    }
  }
  console.error(
    `load average: ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  if (values.json) console.log(JSON.stringify(results, null, 2));
  else printTable(rows);
  const failed = results.filter((r) => !Object.values(r.verdict).every(Boolean));
  process.exitCode = failed.length || results.length < names.length ? 1 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
