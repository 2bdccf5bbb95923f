import autocannon from 'autocannon';
import type { BenchRow } from './harness.js';
import { startHello, startSaola, type BenchServer } from './support/server.js';
import { createTestDatabase } from '../test/support/postgres.js';

/**
 * NLU training data over HTTP on loopback: sample create throughput and the
 * latency of listing 10,000 samples, on the embedded SQLite store and on
 * PostgreSQL, next to a bare fastify hello world in the same run.
 * The server runs in its own process; autocannon runs here (2 cores: one each).
 */
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 8);
const CONNECTIONS = 32;
const LIST_SIZE = 10_000;

async function load(opts: autocannon.Options): Promise<autocannon.Result> {
  return autocannon({ duration: DURATION_S, connections: CONNECTIONS, ...opts });
}

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

async function measureStore(label: string, env: Record<string, string>): Promise<BenchRow[]> {
  const create = await withServer(env, async (server, headers) => {
    const result = await load({
      url: `${server.url}/api/v3/sample`,
      method: 'POST',
      headers,
      body: JSON.stringify({ content: 'tôi muốn đặt một vé máy bay đi Hà Nội' }),
    });
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`create: ${result.non2xx} non-2xx, ${result.errors} errors`);
    return result;
  });
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
      benchmark: `POST /api/v3/sample (${label})`,
      metric: 'throughput',
      value: create.requests.average,
      unit: 'req/s',
      goal: label === 'sqlite' ? '>= 5000' : undefined,
      note: `p99 ${create.latency.p99} ms, ${CONNECTIONS} conns`,
    },
    {
      benchmark: `GET /api/v3/sample, 10k samples (${label})`,
      metric: 'latency p50',
      value: list.cached.latency.p50,
      unit: 'ms',
      goal: label === 'sqlite' ? '<= 20' : undefined,
      note: label === 'sqlite' ? 'list cache (sqlite only)' : 'no cache on postgres',
    },
    { benchmark: `GET /api/v3/sample, 10k samples (${label})`, metric: 'latency p99', value: list.cached.latency.p99, unit: 'ms' },
    { benchmark: `GET /api/v3/sample?limit=10000 (${label})`, metric: 'latency p50', value: list.fresh.latency.p50, unit: 'ms', note: 'uncached: query + serialise' },
  ];
}

export default async function nluBench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const hello = await startHello();
  try {
    const get = await load({ url: hello.url });
    const post = await load({ url: hello.url, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    rows.push({ benchmark: 'fastify hello world GET (baseline)', metric: 'throughput', value: get.requests.average, unit: 'req/s' });
    rows.push({ benchmark: 'fastify hello world POST (baseline)', metric: 'throughput', value: post.requests.average, unit: 'req/s' });
  } finally {
    await hello.stop();
  }
  rows.push(...(await measureStore('sqlite', {})));
  const pg = await createTestDatabase();
  try {
    rows.push(...(await measureStore('postgres', { SAOLA_DATABASE_URL: pg.url })));
  } finally {
    await pg.drop();
  }
  return rows;
}
