import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import sharp from 'sharp';
import type { BenchRow } from './harness.js';
import { startTopology, type Topology } from './support/processes.js';
import { createTestDatabase } from '../fixtures/servers/postgres.js';
import { startS3rverBucket } from '../fixtures/servers/s3rver.js';

/**
 * One run, three deployments, the same three workloads (issue 16):
 *
 * - embedded: 1 `saola serve` on SQLite, the blob folder and the SQL job table;
 * - server, 1 process: 1 `saola serve` (running its own workers) on PostgreSQL,
 *   BullMQ on Redis and S3 (s3rver);
 * - server, 2 API + 2 workers: 2 `saola serve` (SAOLA_RUN_WORKERS=false) and 2
 *   `saola worker`, the load spread over both API ports.
 *
 * Workloads: NLU sample writes (32 connections, autocannon), face search (4
 * connections, a 2-user collection, so the face engine dominates) and a burst
 * of TTS jobs (submitted round-robin, timed until the last is done). Per
 * process: resident memory after the run and CPU seconds used during it.
 *
 * The load generator and s3rver run in this process, on the same cores as the
 * servers: on a 2-core machine every deployment shares 2 cores, so more
 * processes cannot add CPU, only overhead and parallel I/O waits.
 */
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 6);
const TTS_JOBS = Number(process.env.BENCH_TTS_JOBS ?? 12);
const REDIS_URL = process.env.SAOLA_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const FIXTURES = new URL('../test/fixtures/face/', import.meta.url);

function multipart(fields: Record<string, string | Buffer>): { body: Buffer; contentType: string } {
  const boundary = `----saola-bench-${randomUUID()}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    const head =
      typeof value === 'string'
        ? `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n`
        : `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="photo.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`;
    parts.push(Buffer.from(head), typeof value === 'string' ? Buffer.from(value) : value, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Runs autocannon against every API URL at once, `connections` split over them; answers the summed rate and the worst p50. */
async function spread(t: Topology, connections: number, opts: (url: string) => autocannon.Options): Promise<{ rps: number; p50: number; p99: number; errors: number }> {
  const per = Math.max(1, Math.floor(connections / t.urls.length));
  const results = await Promise.all(t.urls.map((url) => autocannon({ duration: DURATION_S, connections: per, ...opts(url) })));
  return {
    rps: results.reduce((a, r) => a + r.requests.total / DURATION_S, 0),
    p50: Math.max(...results.map((r) => r.latency.p50)),
    p99: Math.max(...results.map((r) => r.latency.p99)),
    errors: results.reduce((a, r) => a + r.non2xx + r.errors, 0),
  };
}

async function faceCall(url: string, apiKey: string, route: string, fields: Record<string, string | Buffer>): Promise<any> {
  const { body, contentType } = multipart(fields);
  const res = await fetch(`${url}/dmp/facesearch/v2/${route}`, { method: 'POST', headers: { api_key: apiKey, 'content-type': contentType }, body: new Uint8Array(body) });
  return res.json();
}

async function measure(label: string, t: Topology): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const cpuBefore = t.procs.map((p) => p.cpuSeconds());
  const started = Date.now();

  const nlu = await spread(t, 32, (url) => ({
    url: `${url}/api/v3/sample`,
    method: 'POST',
    headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ content: 'tôi muốn đặt một vé máy bay đi Hà Nội' }),
  }));
  rows.push({
    benchmark: `NLU POST /api/v3/sample (${label})`,
    metric: 'throughput',
    value: nlu.rps,
    unit: 'req/s',
    note: `p50 ${nlu.p50} ms, p99 ${nlu.p99} ms, ${nlu.errors} errors; 32 connections`,
  });

  const grace = fs.readFileSync(new URL('grace_hopper.jpg', FIXTURES));
  await faceCall(t.urls[0], t.apiKey, 'add', { collection: 'staff', id: 'u1', file: grace });
  await faceCall(t.urls[0], t.apiKey, 'add', { collection: 'staff', id: 'u2', file: fs.readFileSync(new URL('person-a.jpg', FIXTURES)) });
  const query = await sharp(grace).rotate(10, { background: '#808080' }).jpeg({ quality: 85 }).toBuffer();
  const search = multipart({ collection: 'staff', file: query });
  for (const url of t.urls) {
    // Loads the face models and the collection in each API process before the timing.
    const found = await faceCall(url, t.apiKey, 'search', { collection: 'staff', file: query });
    if (found.data?.id !== 'u1') throw new Error(`face search on ${url}: ${JSON.stringify(found)}`);
  }
  const face = await spread(t, 4, (url) => ({
    url: `${url}/dmp/facesearch/v2/search`,
    method: 'POST',
    headers: { api_key: t.apiKey, 'content-type': search.contentType },
    body: search.body,
  }));
  rows.push({
    benchmark: `face search, 2-user collection (${label})`,
    metric: 'throughput',
    value: face.rps,
    unit: 'req/s',
    note: `p50 ${face.p50} ms, p99 ${face.p99} ms, ${face.errors} errors; 4 connections`,
  });

  const text = 'Xin chào quý khách, đây là thông báo thử nghiệm của hệ thống chuyển văn bản thành giọng nói. Cảm ơn quý khách đã lắng nghe.';
  const ttsStart = Date.now();
  const ids: { url: string; id: string }[] = [];
  for (let i = 0; i < TTS_JOBS; i++) {
    const url = t.urls[i % t.urls.length];
    const res = await fetch(`${url}/hmi/tts/v5`, { method: 'POST', headers: { api_key: t.apiKey }, body: `${text} Số ${i}.` });
    const body = (await res.json()) as { request_id: string; error: number };
    if (body.error !== 0) throw new Error(`tts: ${JSON.stringify(body)}`);
    ids.push({ url, id: body.request_id });
  }
  for (const { id } of ids) {
    for (let n = 0; ; n++) {
      // Polled on the other API port when there are two.
      const url = t.urls[(t.urls.indexOf(ids[0].url) + 1) % t.urls.length];
      const status = (await (await fetch(`${url}/hmi/tts/v5/status/${id}`, { headers: { api_key: t.apiKey } })).json()) as { status: string };
      if (status.status === 'done') break;
      if (status.status === 'failed' || n > 1200) throw new Error(`tts ${id}: ${JSON.stringify(status)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const ttsSeconds = (Date.now() - ttsStart) / 1000;
  rows.push({
    benchmark: `TTS burst of ${TTS_JOBS} jobs (${label})`,
    metric: 'throughput',
    value: TTS_JOBS / ttsSeconds,
    unit: 'jobs/s',
    note: `all done after ${ttsSeconds.toFixed(1)} s; ~130 characters each`,
  });

  const wall = (Date.now() - started) / 1000;
  const perProc = t.procs.map((p, i) => `${p.role} ${Math.round(p.rssMiB())} MiB, ${(p.cpuSeconds() - cpuBefore[i]).toFixed(1)} CPU s`);
  const cpuTotal = t.procs.reduce((a, p, i) => a + p.cpuSeconds() - cpuBefore[i], 0);
  rows.push({ benchmark: `processes (${label})`, metric: 'CPU used / wall', value: cpuTotal / wall, unit: 'cores', note: perProc.join('; ') });
  return rows;
}

export default async function topologyBench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const embedded = await startTopology({ apis: 1, workers: 0, env: {} });
  try {
    rows.push(...(await measure('embedded, 1 process', embedded)));
  } finally {
    await embedded.stop();
  }

  for (const shape of [
    { apis: 1, workers: 0, label: 'server engines, 1 process' },
    { apis: 2, workers: 2, label: 'server engines, 2 API + 2 workers' },
  ]) {
    const database = await createTestDatabase();
    const s3 = await startS3rverBucket();
    const prefix = `saola-bench-${randomUUID().slice(0, 8)}`;
    const t = await startTopology({
      apis: shape.apis,
      workers: shape.workers,
      env: { SAOLA_DATABASE_URL: database.url, SAOLA_REDIS_URL: REDIS_URL, SAOLA_REDIS_PREFIX: prefix, ...s3.env },
    });
    try {
      rows.push(...(await measure(shape.label, t)));
    } finally {
      await t.stop();
      await s3.close();
      await database.drop();
      const redis = new Redis(REDIS_URL);
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
        if (keys.length) await redis.unlink(...keys);
        cursor = next;
      } while (cursor !== '0');
      redis.disconnect();
    }
  }
  rows.push({
    benchmark: 'machine',
    metric: 'cores',
    value: (await import('node:os')).availableParallelism(),
    unit: '',
    note: `load average at the end ${(await import('node:os'))
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} (shared with other work)`,
  });
  return rows;
}
