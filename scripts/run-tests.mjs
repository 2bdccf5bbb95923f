#!/usr/bin/env node
// Runs every test/**/*.test.ts with Node's test runner under tsx. Node 20's
// runner takes no glob patterns, so the files are listed here. Arguments
// narrow the run: `npm test -- nlu platform` runs files whose path has either word.
//
// A test that needs a Debian program the machine lacks (tesseract, ffmpeg,
// espeak-ng) is skipped with a reason starting "native engine missing:"
// (test/support/programs.ts). Those skips are listed at the end; under CI
// (CI=true), where .ci/run installs the programs, any of them fails the run.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const MISSING_PROGRAM = 'native engine missing:';

function find(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : find(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

const filters = process.argv.slice(2);
const files = find('test')
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
if (files.length === 0) {
  console.error(`no test file matches ${filters.join(' ')}`);
  process.exit(1);
}
// The usual report on the terminal, and a TAP copy to read the skip reasons from.
const tapDir = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-tests-'));
const tapFile = path.join(tapDir, 'report.tap');
const child = spawn(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    '--test-concurrency=1',
    '--test-timeout=600000',
    `--test-reporter=${process.stdout.isTTY ? 'spec' : 'tap'}`,
    '--test-reporter-destination=stdout',
    '--test-reporter=tap',
    `--test-reporter-destination=${tapFile}`,
    ...files,
  ],
  // Servers the suites start as child processes shed load on a late event loop only where a test asks
  // (test/reliability/overload.test.ts): on a loaded 2-core CI machine a starved main thread would
  // otherwise answer 429 to a suite that checks another code.
  { stdio: 'inherit', env: { SAOLA_MAX_EVENT_LOOP_DELAY_MS: '0', SAOLA_POOL_MAX_WAIT_MS: '0', ...process.env, SAOLA_TEST: '1' } },
);

/** `ok N - name # SKIP native engine missing: ...` lines of the TAP report. */
function missingProgramSkips() {
  let tap = '';
  try {
    tap = fs.readFileSync(tapFile, 'utf8');
  } catch {
    return [];
  }
  return tap
    .split('\n')
    .filter((line) => /^\s*ok \d+ - /.test(line) && line.includes(`# SKIP ${MISSING_PROGRAM}`))
    .map((line) => line.trim().replace(/^ok \d+ - /, ''));
}

child.on('exit', (code, signal) => {
  let status = code ?? (signal ? 1 : 0);
  const skips = missingProgramSkips();
  fs.rmSync(tapDir, { recursive: true, force: true });
  if (skips.length > 0) {
    const ci = process.env.CI === 'true' || process.env.CI === '1';
    console.error(`\n${skips.length} native-engine test(s) skipped (the npm fallback engines were tested instead):`);
    for (const s of skips) console.error(`  - ${s}`);
    if (ci) {
      console.error('CI=true: CI installs the Debian programs (.ci/run), so a skipped native-engine test fails the run.');
      status = status || 1;
    }
  }
  process.exit(status);
});
