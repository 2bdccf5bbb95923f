import { spawn, type ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A free TCP port on loopback. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

async function waitFor(url: string, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`server at ${url} did not become ready`);
}

export interface BenchServer {
  url: string;
  token: string;
  apiKey: string;
  child: ChildProcess;
  /** CPU time (user + system) the server process has used so far, ms. */
  cpuMs(): number;
  /** The same, of the main thread alone (the event loop; the rest is worker threads, V8's compiler and GC helpers). */
  mainThreadCpuMs(): number;
  stop(): Promise<void>;
}

/**
 * User + system CPU of a process, ms, from /proc (Linux); with `thread`, of that thread alone (the main thread's
 * id is the process id). NaN elsewhere.
 */
export function processCpuMs(pid: number, thread?: number): number {
  try {
    const stat = fs.readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): utime is the 14th field, stime the 15th.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(rest[11]) + Number(rest[12]);
    return (ticks * 1000) / CLOCK_TICKS;
  } catch {
    return NaN;
  }
}

/** Kernel clock ticks per second (USER_HZ): 100 on every Linux this runs on. */
const CLOCK_TICKS = 100;

/**
 * Starts `saola serve` in its own process (so the load generator here does not
 * share its event loop) with a fresh data folder, and creates one application.
 */
export async function startSaola(env: Record<string, string> = {}): Promise<BenchServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-bench-'));
  const port = await freePort();
  const fullEnv = { ...process.env, SAOLA_DATA_DIR: dataDir, SAOLA_PORT: String(port), SAOLA_HOST: '127.0.0.1', SAOLA_LOG_LEVEL: 'warn', ...env };
  // BENCH_ENTRY: a compiled main.js elsewhere (e.g. `tsc -p tsconfig.build.json --outDir .bench/dist`), so a change is
  // measured as built JavaScript (as `npm run bench` does with dist/) without touching dist/.
  const built = process.env.BENCH_ENTRY ?? 'dist/main.js';
  const entry = fs.existsSync(built) ? [built] : ['--import', 'tsx', 'src/main.ts'];
  const { stdout } = await run(process.execPath, [...entry, 'app', 'create', '--name', `bench-${port}-${Date.now()}`, '--json'], { env: fullEnv });
  const app = JSON.parse(stdout) as { token: string; api_key: string };
  // BENCH_CPU_PROF=<folder>: the server writes a V8 CPU profile there when it exits (bench/support/cpuprofile-summary.ts reads it).
  const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(process.env.BENCH_CPU_PROF)] : [];
  const child = spawn(process.execPath, [...prof, ...entry, 'serve'], { env: fullEnv, stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/healthz`);
  return {
    url,
    token: app.token,
    apiKey: app.api_key,
    child,
    cpuMs: () => processCpuMs(child.pid!),
    mainThreadCpuMs: () => processCpuMs(child.pid!, child.pid!),
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function startHello(): Promise<{ url: string; cpuMs(): number; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/support/hello.ts'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(url);
  return {
    url,
    cpuMs: () => processCpuMs(child.pid!),
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}
