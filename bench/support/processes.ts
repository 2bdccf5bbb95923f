import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './server.js';

const run = promisify(execFile);

/** `dist/main.js` when built (what `npm run bench` does first), else the sources under tsx. */
const ENTRY = fs.existsSync('dist/main.js') ? ['dist/main.js'] : ['--import', 'tsx', 'src/main.ts'];
const TICKS_PER_SECOND = 100;

export interface SaolaProc {
  role: 'api' | 'worker';
  child: ChildProcess;
  /** Resident memory now, in MiB (Linux /proc). */
  rssMiB(): number;
  /** CPU seconds used so far (user + system, with its finished child programs). */
  cpuSeconds(): number;
}

export interface Topology {
  /** The API processes' base URLs. */
  urls: string[];
  procs: SaolaProc[];
  appCode: string;
  apiKey: string;
  token: string;
  stop(): Promise<void>;
}

function procStat(pid: number): { rssMiB: number; cpuSeconds: number } {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
    // Fields after the command name (which may hold spaces): utime, stime, then cutime and cstime
    // (the finished child programs: espeak-ng, ffmpeg, tesseract run outside the Node process).
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
    return { rssMiB: rssKb / 1024, cpuSeconds: ticks / TICKS_PER_SECOND };
  } catch {
    return { rssMiB: NaN, cpuSeconds: NaN };
  }
}

async function waitForUrl(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`process for ${url} exited with ${child.exitCode}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not become ready`);
}

/**
 * Starts `apis` x `saola serve` and `workers` x `saola worker` with `env` (the
 * engines), each with its own data folder and port, migrates once with
 * `saola migrate`, and creates one application. With no workers the API
 * processes run the jobs themselves (SAOLA_RUN_WORKERS=true).
 */
export async function startTopology(opts: { apis: number; workers: number; env: Record<string, string> }): Promise<Topology> {
  const dirs: string[] = [];
  const dataDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-bench-topology-'));
    dirs.push(dir);
    return dir;
  };
  const shared = opts.env.SAOLA_DATABASE_URL ? {} : { SAOLA_DATA_DIR: dataDir() };
  const base = { ...process.env, SAOLA_HOST: '127.0.0.1', SAOLA_LOG_LEVEL: 'warn', ...opts.env };
  const cliEnv = { ...base, SAOLA_DATA_DIR: shared.SAOLA_DATA_DIR ?? dataDir() };
  await run(process.execPath, [...ENTRY, 'migrate'], { env: cliEnv });
  const { stdout } = await run(process.execPath, [...ENTRY, 'app', 'create', '--name', `bench-${Date.now()}`, '--json'], { env: cliEnv });
  const app = JSON.parse(stdout) as { app_code: string; token: string; api_key: string };

  const procs: SaolaProc[] = [];
  const urls: string[] = [];
  const spawnOne = (role: 'api' | 'worker', env: Record<string, string | undefined>, stdout: 'ignore' | 'pipe' = 'ignore') => {
    const child = spawn(process.execPath, [...ENTRY, role === 'api' ? 'serve' : 'worker'], { env, stdio: ['ignore', stdout, 'inherit'] });
    procs.push({
      role,
      child,
      rssMiB: () => procStat(child.pid!).rssMiB,
      cpuSeconds: () => procStat(child.pid!).cpuSeconds,
    });
    return child;
  };
  const waits: Promise<void>[] = [];
  for (let i = 0; i < opts.apis; i++) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const child = spawnOne('api', {
      ...base,
      SAOLA_DATA_DIR: shared.SAOLA_DATA_DIR ?? dataDir(),
      SAOLA_PORT: String(port),
      SAOLA_RUN_WORKERS: opts.workers > 0 ? 'false' : 'true',
    });
    urls.push(url);
    waits.push(waitForUrl(`${url}/readyz`, child, 120_000));
  }
  for (let i = 0; i < opts.workers; i++) {
    // Info level for its one start-up line; the output is read (and dropped) so the pipe never fills.
    const child = spawnOne('worker', { ...base, SAOLA_DATA_DIR: dataDir(), SAOLA_LOG_LEVEL: 'info' }, 'pipe');
    waits.push(
      new Promise<void>((resolve, reject) => {
        let seen = '';
        child.stdout!.on('data', (chunk: Buffer) => {
          if (seen !== 'ready') {
            seen = (seen + chunk.toString()).slice(-4096);
            if (seen.includes('worker is running')) {
              seen = 'ready';
              resolve();
            }
          }
        });
        child.once('exit', (code) => reject(new Error(`worker exited with ${code}`)));
      }),
    );
  }
  await Promise.all(waits);
  return {
    urls,
    procs,
    appCode: app.app_code,
    apiKey: app.api_key,
    token: app.token,
    async stop() {
      await Promise.all(
        procs.map(
          ({ child }) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null) return resolve();
              child.once('exit', () => resolve());
              child.kill('SIGTERM');
            }),
        ),
      );
      for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
