// Loaded with `--import` into each test file's process by scripts/run-tests.mjs: when the process exits it
// writes the file's wall time and CPU time (its own, plus that of every child process it waited for, e.g. the
// `saola serve` a system suite starts) to SAOLA_TEST_USAGE_DIR, one JSON file per test file. CPU, not wall, is
// what to compare between runs on a shared machine.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const dir = process.env.SAOLA_TEST_USAGE_DIR;
const file = process.argv[1];

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

if (dir && file && file.endsWith('.test.ts')) {
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
