import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, runSaola, saolaEntry, startSaola as startSaolaProcess, waitForUrl, type SaolaProcess } from '../../fixtures/servers/saola-process.js';
import { DEFAULT_LOG_LEVEL } from '../../src/platform/config.js';

/**
 * The log level the bench servers run at: BENCH_LOG_LEVEL, else the server's default (`info`: a line per request
 * in and one out), so a bench measures what an operator who sets nothing runs. Their log goes to `server.log` in
 * their data folder, read by nobody during the load.
 */
export const benchLogLevel = (): string => process.env.BENCH_LOG_LEVEL?.trim() || DEFAULT_LOG_LEVEL;

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
 * Starts `saola serve` in its own process (so the load generator here does not share its event loop) with a
 * fresh data folder, and creates one application. BENCH_ENTRY: a compiled main.js elsewhere (e.g. `tsc -p
 * tsconfig.build.json --outDir .bench/dist`), so a change is measured as built JavaScript (as `npm run bench`
 * does with dist/) without touching dist/.
 */
export async function startSaola(env: Record<string, string> = {}): Promise<BenchServer> {
  const entry = saolaEntry(process.env.BENCH_ENTRY ?? 'dist/main.js');
  // BENCH_CPU_PROF=<folder>: the server writes a V8 CPU profile there when it exits (bench/support/cpuprofile-summary.ts reads it).
  const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(process.env.BENCH_CPU_PROF)] : [];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-bench-'));
  const server: SaolaProcess = await startSaolaProcess({
    env,
    entry,
    dataDir,
    logLevel: env.SAOLA_LOG_LEVEL ?? benchLogLevel(),
    logFile: path.join(dataDir, 'server.log'),
    nodeArgs: prof,
    readyTimeoutMs: 30_000,
    keepOutput: 65536,
  });
  try {
    const { stdout } = await runSaola(['app', 'create', '--name', `bench-${Date.now()}`, '--json'], { entry, env: { ...env, SAOLA_DATA_DIR: server.dataDir } });
    const app = JSON.parse(stdout) as { token: string; api_key: string };
    return {
      url: server.url,
      token: app.token,
      apiKey: app.api_key,
      child: server.child,
      cpuMs: () => processCpuMs(server.pid),
      mainThreadCpuMs: () => processCpuMs(server.pid, server.pid),
      stop: async () => {
        await server.stop();
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}

export async function startHello(): Promise<{ url: string; cpuMs(): number; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/support/hello.ts'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForUrl(url, 30_000, child);
  return {
    url,
    cpuMs: () => processCpuMs(child.pid!),
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}
