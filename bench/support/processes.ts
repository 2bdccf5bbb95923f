import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runSaola, saolaEntry, startSaola, type SaolaProcess } from '../../fixtures/servers/saola-process.js';

/** `dist/main.js` when built (what `npm run bench` does first), else the sources under tsx. */
const ENTRY = saolaEntry('dist/main.js');
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
  const env = { SAOLA_LOG_LEVEL: 'warn', ...opts.env };
  const cliEnv = { ...env, SAOLA_DATA_DIR: shared.SAOLA_DATA_DIR ?? dataDir() };
  await runSaola(['migrate'], { entry: ENTRY, env: cliEnv });
  const { stdout } = await runSaola(['app', 'create', '--name', `bench-${Date.now()}`, '--json'], { entry: ENTRY, env: cliEnv });
  const app = JSON.parse(stdout) as { app_code: string; token: string; api_key: string };

  const starting = [
    ...Array.from({ length: opts.apis }, () =>
      startSaola({
        entry: ENTRY,
        dataDir: shared.SAOLA_DATA_DIR ?? dataDir(),
        ready: '/readyz',
        keepOutput: 65536,
        env: { ...env, SAOLA_RUN_WORKERS: opts.workers > 0 ? 'false' : 'true' },
      }),
    ),
    // Info level for its one start-up line, which says it is ready.
    ...Array.from({ length: opts.workers }, () => startSaola({ command: 'worker', entry: ENTRY, dataDir: dataDir(), keepOutput: 65536, env: { ...env, SAOLA_LOG_LEVEL: 'info' } })),
  ];
  const started: SaolaProcess[] = [];
  const outcomes = await Promise.allSettled(starting);
  for (const o of outcomes) if (o.status === 'fulfilled') started.push(o.value);
  const failed = outcomes.find((o) => o.status === 'rejected');
  if (failed) {
    await Promise.all(started.map((p) => p.stop()));
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
    throw failed.reason;
  }
  const procs: SaolaProc[] = started.map((p, i) => ({
    role: i < opts.apis ? 'api' : 'worker',
    child: p.child,
    rssMiB: () => procStat(p.pid).rssMiB,
    cpuSeconds: () => procStat(p.pid).cpuSeconds,
  }));
  const urls = started.slice(0, opts.apis).map((p) => p.url);
  return {
    urls,
    procs,
    appCode: app.app_code,
    apiKey: app.api_key,
    token: app.token,
    async stop() {
      await Promise.all(started.map((p) => p.stop()));
      for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
