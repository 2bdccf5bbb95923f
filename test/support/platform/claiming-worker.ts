import { spawn, type ChildProcess } from 'node:child_process';
import readline from 'node:readline';
import { nodeScript } from '../node-script.js';

export interface ClaimingWorker {
  child: ChildProcess;
  /** Job ids in the order the worker printed `claimed ID`. */
  claimed: string[];
  exited: Promise<NodeJS.Signals | number | null>;
}

/**
 * Starts a job-crash worker script (`args`: the script, then its arguments) and resolves once it has claimed `count`
 * jobs; a worker that exits first or claims too few within `timeoutMs` is killed and the wait rejects.
 */
export async function startClaimingWorker(args: string[], count: number, timeoutMs: number): Promise<ClaimingWorker> {
  const child = spawn(process.execPath, [...nodeScript(args[0]), ...args.slice(1)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
  const claimed: string[] = [];
  const lines = readline.createInterface({ input: child.stdout });
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`worker claimed ${claimed.length} jobs in ${timeoutMs / 1000} s: ${stderr}`)), timeoutMs);
      lines.on('line', (line) => {
        const match = /^claimed (\S+)$/.exec(line);
        if (match) claimed.push(match[1]);
        if (claimed.length >= count) {
          clearTimeout(timer);
          resolve();
        }
      });
      void exited.then((how) => {
        clearTimeout(timer);
        reject(new Error(`worker exited (${how}) early: ${stderr}`));
      });
    });
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return { child, claimed, exited };
}
