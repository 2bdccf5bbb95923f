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
  stop(): Promise<void>;
}

/**
 * Starts `saola serve` in its own process (so the load generator here does not
 * share its event loop) with a fresh data folder, and creates one application.
 */
export async function startSaola(env: Record<string, string> = {}): Promise<BenchServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-bench-'));
  const port = await freePort();
  const fullEnv = { ...process.env, SAOLA_DATA_DIR: dataDir, SAOLA_PORT: String(port), SAOLA_HOST: '127.0.0.1', SAOLA_LOG_LEVEL: 'warn', ...env };
  const entry = fs.existsSync('dist/main.js') ? ['dist/main.js'] : ['--import', 'tsx', 'src/main.ts'];
  const { stdout } = await run(process.execPath, [...entry, 'app', 'create', '--name', `bench-${port}-${Date.now()}`, '--json'], { env: fullEnv });
  const app = JSON.parse(stdout) as { token: string; api_key: string };
  const child = spawn(process.execPath, [...entry, 'serve'], { env: fullEnv, stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/healthz`);
  return {
    url,
    token: app.token,
    apiKey: app.api_key,
    child,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function startHello(): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/support/hello.ts'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(url);
  return {
    url,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}
