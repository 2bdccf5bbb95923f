/**
 * Compiled builds of Saola side by side on `POST /api/v3/predict` (the bench's model and sentence, SQLite), for
 * telling a cut of the request path from the machine's drift: every server is up for the whole run, and the
 * loads alternate in short slices, the order rotating each round (the server measured right after another
 * one was measured at a different cost in a fixed order). Name a build twice to get two server processes of it:
 * one process of a build differed from another of the same build by about as much as the cuts measured.
 *
 *   npx tsc -p tsconfig.build.json --outDir .bench/before   (on the code before; then the same to .bench/after)
 *   nice -n 5 npx tsx eval/nlu/predict-ab.ts --slices 6 --seconds 3 .bench/before/main.js .bench/after/main.js .bench/before/main.js .bench/after/main.js
 *
 * A build may carry settings for its server after commas (`.bench/after/main.js,SAOLA_LOG_LEVEL=info`): the same
 * build under two settings is compared the same way.
 *
 * Prints, per server, req/s and the server's CPU per request (the whole process, and its main thread: the event
 * loop), summed over its slices, each slice's `req/s / cpu / main`, then per build the mean over its servers;
 * and each server's first answer (length, a hash, the headers but date and request id) so a cut that changes
 * an answer shows.
 */
import { createHash } from 'node:crypto';
import os from 'node:os';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { startSaola, type BenchServer } from './support/server.js';
import { BENCH_SENTENCE, trainBenchModel } from '../fixtures/nlu/bench-model.js';

const { values, positionals: entries } = parseArgs({
  allowPositionals: true,
  options: { slices: { type: 'string', default: '6' }, seconds: { type: 'string', default: '3' }, warmup: { type: 'string', default: '3' } },
});
const slices = Number(values.slices);
const seconds = Number(values.seconds);
if (entries.length === 0) throw new Error('name one or more compiled main.js');
const body = JSON.stringify({ content: BENCH_SENTENCE });

interface Up {
  entry: string;
  server: BenchServer;
  headers: Record<string, string>;
  requests: number;
  seconds: number;
  cpuUs: number;
  mainUs: number;
  rows: string[];
}

async function start(entry: string): Promise<Up> {
  const [built, ...settings] = entry.split(',');
  process.env.BENCH_ENTRY = built;
  const server = await startSaola(Object.fromEntries(settings.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)])));
  const headers = { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' };
  await trainBenchModel(server.url, headers);
  const res = await fetch(`${server.url}/api/v3/predict`, { method: 'POST', headers, body });
  const answer = await res.text();
  const shown = [...res.headers].filter(([k]) => k !== 'date' && k !== 'x-request-id').map(([k, v]) => `${k}: ${v}`);
  console.log(`${entry}: answer ${answer.length} chars, sha256 ${createHash('sha256').update(answer).digest('hex').slice(0, 16)}; ${shown.join(' | ')}`);
  const warmup = Number(values.warmup);
  if (warmup > 0) await autocannon({ url: `${server.url}/api/v3/predict`, method: 'POST', headers, body, duration: warmup, connections: 32 });
  return { entry, server, headers, requests: 0, seconds: 0, cpuUs: 0, mainUs: 0, rows: [] };
}

const ups: Up[] = [];
try {
  for (const entry of entries) ups.push(await start(entry));
  for (let round = 0; round < slices; round++) {
    for (let k = 0; k < ups.length; k++) {
      const up = ups[(round + k) % ups.length]!;
      const cpu0 = up.server.cpuMs();
      const main0 = up.server.mainThreadCpuMs();
      const r = await autocannon({ url: `${up.server.url}/api/v3/predict`, method: 'POST', headers: up.headers, body, duration: seconds, connections: 32 });
      if (r.errors > 0 || r.non2xx > 0) console.log(`${up.entry}: ${r.errors} errors, ${r.non2xx} not 2xx`);
      const n = Math.max(1, r.requests.total);
      const cpu = (1000 * (up.server.cpuMs() - cpu0)) / n;
      const main = (1000 * (up.server.mainThreadCpuMs() - main0)) / n;
      up.requests += n;
      up.seconds += r.duration;
      up.cpuUs += cpu * n;
      up.mainUs += main * n;
      up.rows.push(`${Math.round(n / r.duration)}/${cpu.toFixed(1)}/${main.toFixed(1)}`);
    }
  }
  for (const up of ups) {
    console.log(
      `${up.entry}: ${Math.round(up.requests / up.seconds)} req/s, server CPU ${(up.cpuUs / up.requests).toFixed(1)} µs/req, main ${(up.mainUs / up.requests).toFixed(1)}  [${up.rows.join(' ')}]`,
    );
  }
  for (const entry of new Set(entries)) {
    const mine = ups.filter((u) => u.entry === entry);
    const mean = (f: (u: Up) => number) => (mine.reduce((s, u) => s + f(u), 0) / mine.length).toFixed(1);
    console.log(`${entry} (${mine.length} servers): mean server CPU ${mean((u) => u.cpuUs / u.requests)} µs/req, main ${mean((u) => u.mainUs / u.requests)}`);
  }
  console.log(
    `load average ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
} finally {
  for (const up of ups) await up.server.stop();
}
