// Loaded with `--import` into each test file's process by scripts/run-tests.mjs: when the process exits it
// writes the file's wall time and CPU time (its own, plus that of every child process it waited for, e.g. the
// `saola serve` a system suite starts) to SAOLA_TEST_USAGE_DIR, one JSON file per test file. CPU, not wall, is
// what to compare between runs on a shared machine.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isMainThread } from 'node:worker_threads';

const dir = process.env.SAOLA_TEST_USAGE_DIR;
/** The test file's source: the runner runs its JavaScript in the built folder SAOLA_TEST_BUILD (scripts/test-build.mjs). */
const build = process.env.SAOLA_TEST_BUILD;
const ran = process.argv[1];
const file = build && ran?.startsWith(build + path.sep) && ran.endsWith('.test.js') ? path.join(process.cwd(), path.relative(build, ran).slice(0, -3) + '.ts') : ran;

/** Seconds of CPU: own user+sys, and children's (reaped) user+sys where /proc tells them (Linux). */
function cpuSeconds() {
  const own = process.cpuUsage();
  let children = 0;
  try {
    // Fields after the command name (which may hold spaces): state is field 3, utime 14 ... cstime 17.
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = 100; // USER_HZ on Linux
    children = (Number(fields[13]) + Number(fields[14])) / ticks;
  } catch {
    // not Linux: own CPU only
  }
  return { own: (own.user + own.system) / 1e6, children };
}

// Worker threads inherit the --import of this file; only the test file's main thread records.
if (dir && file && file.endsWith('.test.ts') && isMainThread) {
  process.on('exit', (code) => {
    const { own, children } = cpuSeconds();
    const record = {
      file: path.relative(process.cwd(), file).split(path.sep).join('/'),
      wall: Math.round(performance.now()) / 1000,
      cpu: Math.round((own + children) * 10) / 10,
      children: Math.round(children * 10) / 10,
      code,
      load: os.loadavg()[0],
    };
    try {
      fs.writeFileSync(path.join(dir, `${process.pid}.json`), JSON.stringify(record));
    } catch {
      // the runner's folder is gone: nothing to record
    }
  });
}
