/**
 * Load generation for the load bench and the soak: a `saola serve` child
 * process with its own data folder (its RSS read from /proc), a closed-loop
 * driver (N clients, each sends when its last answer came) to find capacity,
 * and an open-loop driver (requests start at a fixed arrival rate whatever
 * the server does; latency counted from the scheduled start, so a stalled
 * server cannot hide its queue).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { newAgent, send, type RequestSpec } from '../../fixtures/servers/requests.js';
import { ROOT, runSaola, startSaola } from '../../fixtures/servers/saola-process.js';

export interface LoadServer {
  url: string;
  pid: number;
  dataDir: string;
  /** Resident memory of the server process now (VmRSS), MiB. */
  rssMiB(): number;
  /** Main-thread memory after a full garbage collection (started with `heapProbe` only); with a path, a heap snapshot there too. */
  heapAfterGc(snapshotPath?: string): Promise<HeapSample>;
  /** `saola <args>` on the same data (CLI process). */
  cli(...args: string[]): Promise<string>;
  /** What the server printed (last 64 kB). */
  output(): string;
  stop(): Promise<void>;
}

export function rssMiBOf(pid: number): number {
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
    return kb / 1024;
  } catch {
    return NaN;
  }
}

/**
 * Starts `saola serve` (the sources under tsx) on a fresh data folder, migrated first, with `env` on top of the
 * defaults. With `cpu`, the server runs on that core only; with `heapProbe`, it can be asked for its heap after a
 * full collection (heapAfterGc).
 */
export async function startLoadServer(env: Record<string, string> = {}, opts: { cpu?: number; heapProbe?: boolean } = {}): Promise<LoadServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-load-'));
  const cli = async (...args: string[]) => (await runSaola(args, { env: { SAOLA_DATA_DIR: dataDir, SAOLA_LOG_LEVEL: 'warn', ...env } })).stdout;
  await cli('migrate');
  const probeFile = path.join(dataDir, 'heap-probe.jsonl');
  const server = await startSaola({
    dataDir,
    env: opts.heapProbe ? { ...env, SAOLA_HEAP_PROBE_FILE: probeFile } : env,
    nodeArgs: opts.heapProbe ? ['--expose-gc', '--import', pathToFileURL(path.join(ROOT, 'bench/support/heap-probe.mjs')).href] : [],
    // taskset execs the server, so the pid is the server's.
    wrapper: opts.cpu === undefined ? undefined : ['taskset', '-c', String(opts.cpu)],
    keepOutput: 65536,
  });
  return {
    url: server.url,
    pid: server.pid,
    dataDir,
    rssMiB: () => rssMiBOf(server.pid),
    async heapAfterGc(snapshotPath?: string) {
      if (!opts.heapProbe) throw new Error('the server was started without the heap probe');
      if (snapshotPath) fs.writeFileSync(`${probeFile}.snapshot`, snapshotPath);
      const before = fs.existsSync(probeFile) ? fs.readFileSync(probeFile, 'utf8').split('\n').filter(Boolean).length : 0;
      server.child.kill('SIGUSR2');
      // A heap snapshot takes seconds (tens for a large heap).
      const tries = snapshotPath ? 2400 : 200;
      for (let i = 0; i < tries; i++) {
        await new Promise((r) => setTimeout(r, 50));
        const lines = fs.existsSync(probeFile) ? fs.readFileSync(probeFile, 'utf8').split('\n').filter(Boolean) : [];
        if (lines.length > before) return JSON.parse(lines.at(-1)!) as HeapSample;
      }
      throw new Error(`the heap probe did not answer within ${tries / 20} s`);
    },
    cli,
    output: () => server.output(),
    async stop() {
      await server.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The server's main-thread memory right after a full garbage collection (bytes; `gcMs`: how long it took). */
export interface HeapSample {
  at: number;
  gcMs: number;
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
}

export interface Answer {
  status: number;
  /** The body (first 64 kB), or the transport error's message with status 0. */
  body: string;
  /** From the scheduled start (open loop) or the send (closed loop) to the last byte, ms. */
  ms: number;
  /** When the request was due, ms since the run started. */
  at: number;
  /** Open loop: how late the driver itself started it (ms); large values mean the driver, not the server, fell behind. */
  lag?: number;
  /** Open loop: the request's index. */
  index?: number;
}

/** A request maker: `next()` gives the i-th request (so a bench can vary bodies). */
export type Requests = (i: number) => RequestSpec;

/** Closed loop: `concurrency` clients for `seconds`, each sending its next request when the last is answered. */
export async function closedLoop(base: string, requests: Requests, concurrency: number, seconds: number): Promise<Answer[]> {
  const agent = newAgent(concurrency + 4);
  const answers: Answer[] = [];
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  let i = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const start = performance.now();
        const r = await send(agent, base, requests(i++));
        answers.push({ ...r, ms: performance.now() - start, at: start - t0 });
      }
    }),
  );
  agent.destroy();
  return answers;
}

/**
 * Open loop: request k starts at k / rate seconds, whether or not earlier ones
 * were answered; its latency counts from that moment. Waits for every answer
 * (each has a timeout). `onTick` runs every `tickMs` (RSS sampling).
 */
export async function openLoop(
  base: string,
  requests: Requests,
  rate: number,
  seconds: number,
  opts: { onTick?: (elapsedMs: number) => void; tickMs?: number; timeoutMs?: number; sockets?: number; onAnswer?: (a: Answer) => void; onStart?: () => void } = {},
): Promise<Answer[]> {
  const agent = newAgent(opts.sockets ?? 1024);
  // The sockets are opened before the clock starts (a burst of connects would be measured as the server's latency).
  await Promise.all(Array.from({ length: opts.sockets ?? 1024 }, () => send(agent, base, { method: 'GET', path: '/healthz', headers: {} })));
  const answers: Answer[] = [];
  const pending: Promise<void>[] = [];
  const total = Math.max(1, Math.round(rate * seconds));
  const t0 = performance.now();
  opts.onStart?.();
  let k = 0;
  let lastTick = 0;
  await new Promise<void>((resolve) => {
    const pump = () => {
      const now = performance.now() - t0;
      if (opts.onTick && now - lastTick >= (opts.tickMs ?? 1000)) {
        lastTick = now;
        opts.onTick(now);
      }
      // Start every request that is due (a late timer starts several at once, each timed from its due moment).
      while (k < total && (k / rate) * 1000 <= now) {
        const due = (k / rate) * 1000;
        const index = k;
        const spec = requests(k++);
        const lag = performance.now() - t0 - due;
        pending.push(
          send(agent, base, spec, opts.timeoutMs).then((r) => {
            const answer = { ...r, ms: performance.now() - t0 - due, at: due, lag, index };
            answers.push(answer);
            opts.onAnswer?.(answer);
          }),
        );
      }
      if (k >= total) return resolve();
      setTimeout(pump, Math.max(0, Math.min(5, (k / rate) * 1000 - now)));
    };
    pump();
  });
  await Promise.all(pending);
  agent.destroy();
  return answers;
}

export function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

export interface LatencySummary {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export function summarise(ms: number[]): LatencySummary {
  const s = [...ms].sort((a, b) => a - b);
  return { n: s.length, p50: percentile(s, 0.5), p95: percentile(s, 0.95), p99: percentile(s, 0.99), max: s.length ? s[s.length - 1] : NaN };
}

/** Least-squares slope of y over x (per unit of x). */
export function slope(points: { x: number; y: number }[]): number {
  const n = points.length;
  if (n < 2) return NaN;
  const mx = points.reduce((a, p) => a + p.x, 0) / n;
  const my = points.reduce((a, p) => a + p.y, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.x - mx) * (p.y - my);
    den += (p.x - mx) ** 2;
  }
  return den === 0 ? NaN : num / den;
}

/** A multipart/form-data body made by the platform's own FormData, as bytes to send many times. */
export async function multipart(parts: [name: string, value: Buffer | string, filename?: string, type?: string][]): Promise<{ body: Buffer; contentType: string }> {
  const form = new FormData();
  for (const [name, value, filename, type] of parts) {
    if (typeof value === 'string') form.append(name, value);
    else form.append(name, new Blob([new Uint8Array(value)], { type: type ?? 'application/octet-stream' }), filename ?? name);
  }
  const res = new Response(form);
  return { body: Buffer.from(await res.arrayBuffer()), contentType: res.headers.get('content-type')! };
}

/** Pins this process (every thread) to the given cores, e.g. "1" or "0,1" (Linux taskset). */
export function pinSelf(cores: string): void {
  execFileSync('taskset', ['-a', '-p', '-c', cores, String(process.pid)], { stdio: 'ignore' });
}

/**
 * Caps a process's CPU at `fraction` of one core with a Linux control group (cgroup v2 `cpu.max`, or v1
 * `cpu.cfs_quota_us`), over 10 ms periods so the cap throttles in small steps. Needs root and a writable
 * cgroup hierarchy; throws with the reason otherwise. Returns the function that lifts the cap.
 *
 * Used by the load bench so that the load driver, on its own core, has several times the server's CPU:
 * twice the server's capacity is then something the driver can really send and time.
 */
export function capCpu(pid: number, fraction: number): () => void {
  const period = 10_000;
  const quota = Math.max(1000, Math.round(fraction * period));
  const name = `saola-load-${pid}`;
  const v2 = '/sys/fs/cgroup';
  const v1 = '/sys/fs/cgroup/cpu';
  let dir: string;
  if (fs.existsSync(path.join(v2, 'cgroup.controllers')) && fs.readFileSync(path.join(v2, 'cgroup.controllers'), 'utf8').split(/\s+/).includes('cpu')) {
    dir = path.join(v2, name);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'cpu.max'), `${quota} ${period}`);
  } else if (fs.existsSync(path.join(v1, 'cpu.cfs_quota_us'))) {
    dir = path.join(v1, name);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'cpu.cfs_period_us'), String(period));
    fs.writeFileSync(path.join(dir, 'cpu.cfs_quota_us'), String(quota));
  } else {
    throw new Error('no writable cgroup cpu controller (cgroup v2 with cpu enabled, or v1 mounted at /sys/fs/cgroup/cpu)');
  }
  fs.writeFileSync(path.join(dir, 'cgroup.procs'), String(pid));
  return () => {
    // The group is removed once its processes have left it (or ended).
    try {
      const parent = path.dirname(dir);
      if (fs.existsSync(path.join(dir, 'cgroup.procs'))) {
        for (const p of fs.readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) {
          try {
            fs.writeFileSync(path.join(parent, 'cgroup.procs'), p);
          } catch {
            /* ended meanwhile */
          }
        }
      }
      fs.rmdirSync(dir);
    } catch {
      /* left behind: harmless, named after the pid */
    }
  };
}
