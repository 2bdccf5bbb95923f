import os from 'node:os';
import autocannon from 'autocannon';
import type { BenchRow } from './harness.js';
import { benchLogLevel, startHello, startSaola, type BenchServer } from './support/server.js';
import { createTestDatabase } from '../fixtures/servers/postgres.js';
import { BENCH_SENTENCE, trainBenchModel } from '../fixtures/nlu/bench-model.js';

/**
 * NLU training data over HTTP on loopback: sample create throughput and the
 * latency of listing 10,000 samples, on the embedded SQLite store and on
 * PostgreSQL, next to a bare fastify hello world in the same run.
 * The server runs in its own process; autocannon runs here (2 cores: one each).
 *
 * Besides throughput, each load row notes the server's CPU time per request (user + system, from /proc):
 * on a machine shared with other work, throughput follows whatever else runs, CPU per request much less.
 *
 * Every load (the bare fastify's too) runs BENCH_WARMUP_S first, not counted, so the numbers are of compiled code.
 * The bare fastify POST is measured again beside each Saola load, the two alternating in slices, and each share
 * is of that measure: on the shared machine the bare POST alone moved from 8,000 to 27,000 req/s within one run,
 * and on a quiet virtual machine from 27,000 to 43,000 between two loads a minute apart.
 *
 * Settings: BENCH_DURATION_S (8), BENCH_SLICES (4), BENCH_WARMUP_S (3; 0: measure from cold), BENCH_STORE (`sqlite,postgres`: which stores), BENCH_PARTS
 * (`create,list,predict`: which measures; `path` adds predictions of a one-word text, where the engine's part is
 * small: how near the request path alone comes to the predict goal), BENCH_CPU_PROF (a folder: each server writes a CPU profile there),
 * BENCH_LOG_LEVEL (the servers' SAOLA_LOG_LEVEL; default the server's own default, `info`: two log lines a
 * request, written to a file in the server's data folder).
 */
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 8);
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 3);
const SLICES = Math.max(1, Number(process.env.BENCH_SLICES ?? 4));
const CONNECTIONS = 32;
const LIST_SIZE = 10_000;
const STORES = (process.env.BENCH_STORE ?? 'sqlite,postgres').split(',').map((s) => s.trim());
const PARTS = new Set((process.env.BENCH_PARTS ?? 'create,list,predict').split(',').map((s) => s.trim()));

interface Measured extends autocannon.Result {
  /** Server CPU per answered request, µs. */
  cpuUs: number;
  /** The server's main thread (its event loop) alone, µs per request; NaN when not known. */
  mainUs: number;
}

type Server = { cpuMs(): number; mainThreadCpuMs?(): number };

/** One measured run of `seconds` (no warm-up), with the server's CPU over it. */
async function measure(opts: autocannon.Options, server: Server | undefined, seconds: number): Promise<Measured> {
  const before = server?.cpuMs() ?? NaN;
  const mainBefore = server?.mainThreadCpuMs?.() ?? NaN;
  const result = await autocannon({ duration: seconds, connections: CONNECTIONS, ...opts });
  const cpuMs = (server?.cpuMs() ?? NaN) - before;
  const mainMs = (server?.mainThreadCpuMs?.() ?? NaN) - mainBefore;
  const requests = Math.max(1, result.requests.total);
  return { ...result, cpuUs: (1000 * cpuMs) / requests, mainUs: (1000 * mainMs) / requests };
}

async function warmUp(opts: autocannon.Options): Promise<void> {
  // Each server is fresh: the first seconds of load run its code unoptimised (the prediction code has not run on
  // the main thread before: training runs in a worker thread) while V8 compiles it. Not counted: a server runs
  // for days. (One predict run: main-thread CPU 177 µs/req in the first 5 s, 124 µs in the next 5; V8's
  // compiler and GC threads 41 µs/req, then 4.)
  if (WARMUP_S > 0) await autocannon({ duration: WARMUP_S, connections: CONNECTIONS, ...opts });
}

async function load(opts: autocannon.Options, server?: Server): Promise<Measured> {
  await warmUp(opts);
  return measure(opts, server, DURATION_S);
}

/** Slices summed into one measure: requests per second over all of them, CPU per request, the median slice's p50, the worst p99. */
function combined(slices: Measured[]): Measured {
  const requests = slices.reduce((n, m) => n + m.requests.total, 0);
  const seconds = slices.reduce((n, m) => n + m.duration, 0);
  const cpu = slices.reduce((n, m) => n + m.cpuUs * m.requests.total, 0);
  const main = slices.reduce((n, m) => n + m.mainUs * m.requests.total, 0);
  const p50s = slices.map((m) => m.latency.p50).sort((a, b) => a - b);
  const statusCodeStats: Record<string, { count: number }> = {};
  for (const m of slices) {
    for (const [code, stat] of Object.entries(m.statusCodeStats ?? {}) as [string, { count: number }][]) {
      statusCodeStats[code] = { count: (statusCodeStats[code]?.count ?? 0) + stat.count };
    }
  }
  const first = slices[0]!;
  return {
    ...first,
    requests: { ...first.requests, total: requests, average: requests / Math.max(1e-9, seconds) },
    latency: { ...first.latency, p50: p50s[Math.floor(p50s.length / 2)]!, p99: Math.max(...slices.map((m) => m.latency.p99)) },
    duration: seconds,
    errors: slices.reduce((n, m) => n + m.errors, 0),
    non2xx: slices.reduce((n, m) => n + m.non2xx, 0),
    statusCodeStats: statusCodeStats as Measured['statusCodeStats'],
    cpuUs: cpu / Math.max(1, requests),
    mainUs: main / Math.max(1, requests),
  };
}

/**
 * A Saola load and the bare fastify POST in alternating slices (`BENCH_SLICES`, 4 by default, of
 * BENCH_DURATION_S / slices each, the bare POST first), each summed: on a shared or virtual machine the
 * throughput of the same server drifts by a third within a minute, and a bare POST measured once before the
 * load compared the load with another moment's machine.
 */
async function beside(opts: autocannon.Options, server: Server, bare: BarePost): Promise<{ result: Measured; baseline: Measured }> {
  await warmUp(opts);
  const seconds = Math.max(1, Math.round(DURATION_S / SLICES));
  const ours: Measured[] = [];
  const theirs: Measured[] = [];
  for (let i = 0; i < SLICES; i++) {
    theirs.push(await bare(seconds));
    ours.push(await measure(opts, server, seconds));
  }
  return { result: combined(ours), baseline: combined(theirs) };
}

const loadAverage = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');

async function seed(server: BenchServer, count: number): Promise<void> {
  const headers = { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' };
  await fetch(`${server.url}/api/v3/intent`, { method: 'POST', headers, body: JSON.stringify({ label: 'bench_intent' }) });
  const rows = Array.from({ length: count }, (_, i) => ({ intent: 'bench_intent', sample: `mẫu câu số ${i} cho bài đo` }));
  const res = await fetch(`${server.url}/api/v3/intent-sample/import_intent_samples`, { method: 'POST', headers, body: JSON.stringify(rows) });
  const body = (await res.json()) as { number_of_imported_sample: number };
  if (body.number_of_imported_sample !== count) throw new Error(`seeding imported ${body.number_of_imported_sample} of ${count}`);
}

async function withServer<T>(env: Record<string, string>, work: (server: BenchServer, headers: Record<string, string>) => Promise<T>): Promise<T> {
  const server = await startSaola(env);
  try {
    return await work(server, { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' });
  } finally {
    await server.stop();
  }
}

/** The bare fastify POST measured again for `seconds` (warm: its server is up for the whole run): beside each Saola load. */
type BarePost = (seconds: number) => Promise<Measured>;

/**
 * A load's throughput row and its share of the bare POST measured beside it: the goals (issue 43's: sample
 * create 40%, predict 45%, on both stores) are shares of the bare fastify POST. The CPU share (the bare POST's CPU per request over this one's) is what the
 * throughput share would be with each server alone on its core.
 */
function loadRows(benchmark: string, result: Measured, bare: Measured, goal?: string): BenchRow[] {
  const share = Math.round((1000 * result.requests.average) / bare.requests.average) / 10;
  return [
    {
      benchmark,
      metric: 'throughput',
      value: result.requests.average,
      unit: 'req/s',
      note: `p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, ${CONNECTIONS} conns, ${result.non2xx} answered 429 (shed); server CPU ${result.cpuUs.toFixed(0)} µs/req (event loop ${result.mainUs.toFixed(0)}); log level ${benchLogLevel()}; load avg ${loadAverage()}`,
    },
    {
      benchmark,
      metric: 'share of bare fastify POST',
      value: share,
      unit: '%',
      goal,
      note: `throughput share; CPU share ${((100 * bare.cpuUs) / result.cpuUs).toFixed(1)}%; bare POST in the slices between: ${Math.round(bare.requests.average)} req/s, ${bare.cpuUs.toFixed(0)} µs/req`,
    },
  ];
}

async function measureStore(label: string, env: Record<string, string>, bare: BarePost): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  if (PARTS.has('create')) {
    const create = await withServer(env, async (server, headers) => {
      const { result, baseline } = await beside(
        {
          url: `${server.url}/api/v3/sample`,
          method: 'POST',
          headers,
          body: JSON.stringify({ content: 'tôi muốn đặt một vé máy bay đi Hà Nội' }),
        },
        server,
        bare,
      );
      // 429: shed (the event loop was late: on a loaded machine that happens); anything else fails the bench.
      if (result.errors > 0 || Object.keys(result.statusCodeStats ?? {}).some((code) => code !== '200' && code !== '429')) {
        throw new Error(`create: ${result.errors} errors, statuses ${JSON.stringify(result.statusCodeStats)}`);
      }
      return { result, baseline };
    });
    rows.push(...loadRows(`POST /api/v3/sample (${label})`, create.result, create.baseline, '>= 40'));
  }
  if (PARTS.has('list')) rows.push(...(await measureList(label, env)));
  if (PARTS.has('predict')) rows.push(...(await measurePredict(label, env, bare, BENCH_SENTENCE, `POST /api/v3/predict, 20 intents (${label})`, '>= 45')));
  if (PARTS.has('path')) rows.push(...(await measurePredict(label, env, bare, PATH_TEXT, `POST /api/v3/predict, the one-word text "${PATH_TEXT}" (${label})`)));
  return rows;
}

async function measureList(label: string, env: Record<string, string>): Promise<BenchRow[]> {
  // A fresh server, so the list holds exactly 10,000 samples.
  const list = await withServer(env, async (server, headers) => {
    await seed(server, LIST_SIZE);
    const check = (await (await fetch(`${server.url}/api/v3/sample`, { headers })).json()) as unknown[];
    if (check.length !== LIST_SIZE) throw new Error(`list returned ${check.length} samples`);
    const cached = await autocannon({ url: `${server.url}/api/v3/sample`, headers, duration: DURATION_S, connections: 1 });
    // limit/offset bypass the list cache: the cost of reading and serialising 10k rows every time.
    const fresh = await autocannon({ url: `${server.url}/api/v3/sample?limit=${LIST_SIZE}`, headers, duration: DURATION_S, connections: 1 });
    return { cached, fresh };
  });
  return [
    {
      benchmark: `GET /api/v3/sample, 10k samples (${label})`,
      metric: 'latency p50',
      value: list.cached.latency.p50,
      unit: 'ms',
      goal: '<= 20',
      note: `p99 ${list.cached.latency.p99} ms, 1 conn; list cache checked against the data version; load avg ${loadAverage()}`,
    },
    { benchmark: `GET /api/v3/sample?limit=10000 (${label})`, metric: 'latency p50', value: list.fresh.latency.p50, unit: 'ms', note: 'uncached: query + serialise' },
  ];
}

/** The `path` part's text: one word, so the engine's part of a prediction is small (a few µs). */
const PATH_TEXT = 'có';

async function measurePredict(label: string, env: Record<string, string>, bare: BarePost, content: string, title: string, goal?: string): Promise<BenchRow[]> {
  // Prediction with a 20-intent model trained from the generated dataset.
  const predict = await withServer(env, async (server, headers) => {
    await trainBenchModel(server.url, headers);
    const { result, baseline } = await beside(
      {
        url: `${server.url}/api/v3/predict`,
        method: 'POST',
        headers,
        body: JSON.stringify({ content }),
      },
      server,
      bare,
    );
    if (result.errors > 0 || Object.keys(result.statusCodeStats ?? {}).some((code) => code !== '200' && code !== '429')) {
      throw new Error(`predict: ${result.errors} errors, statuses ${JSON.stringify(result.statusCodeStats)}`);
    }
    return { result, baseline };
  });
  return loadRows(title, predict.result, predict.baseline, goal);
}

export default async function nluBench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  // Up for the whole run: the bare POST is measured again before each Saola load.
  const hello = await startHello();
  try {
    const bareOpts: autocannon.Options = { url: hello.url, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' };
    const barePost: BarePost = (seconds) => measure(bareOpts, hello, seconds);
    const get = await load({ url: hello.url }, hello);
    const post = await load(bareOpts, hello);
    rows.push({
      benchmark: 'fastify hello world GET (baseline)',
      metric: 'throughput',
      value: get.requests.average,
      unit: 'req/s',
      note: `server CPU ${get.cpuUs.toFixed(0)} µs/req; load avg ${loadAverage()}`,
    });
    rows.push({
      benchmark: 'fastify hello world POST (baseline)',
      metric: 'throughput',
      value: post.requests.average,
      unit: 'req/s',
      note: `server CPU ${post.cpuUs.toFixed(0)} µs/req; load avg ${loadAverage()}; measured again beside each load below, in alternating slices (its share row)`,
    });
    for (const store of STORES) {
      if (store === 'sqlite') rows.push(...(await measureStore('sqlite', {}, barePost)));
      else if (store === 'postgres') {
        const pg = await createTestDatabase();
        try {
          rows.push(...(await measureStore('postgres', { SAOLA_DATABASE_URL: pg.url }, barePost)));
        } finally {
          await pg.drop();
        }
      } else throw new Error(`BENCH_STORE: unknown store ${store} (sqlite, postgres)`);
    }
  } finally {
    await hello.stop();
  }
  return rows;
}
