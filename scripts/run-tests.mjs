#!/usr/bin/env node
// Runs the test suite with Node's test runner under tsx, tier by tier (Node 20's runner takes no glob
// patterns, so the files are listed here):
//   test/unit    no server, no child process, no database server: every file in parallel, one per core;
//   test/api     one in-process server per file (SQLite, its own temp folder, port 0);
//   test/system  Saola or other programs as child processes, PostgreSQL, Redis, a browser.
// Unit runs first; api and system then run together, a few files at a time (every file makes its own
// database, Redis prefix, temp folder and port, so files never share state).
//
// `--checks` first runs `npm run typecheck` and `npm run lint` side by side (`npm test` does): each is one
// single-threaded program building its own TypeScript program, so on two cores together they take as long as
// the slower one. A failed check fails the run before any test starts.
//
// `--tier unit` (repeatable) picks tiers; other arguments are path words that narrow the run:
// `npm test -- nlu platform` runs files whose path has either word. SAOLA_TEST_CONCURRENCY sets how
// many api/system files run at once.
//
// A test that needs a Debian program the machine lacks (tesseract, ffmpeg, espeak-ng) is skipped with a
// reason starting "native engine missing:" (test/support/programs.ts). Those skips are listed at the end;
// under CI (CI=true), where .ci/run installs the programs, any of them fails the run.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const MISSING_PROGRAM = 'native engine missing:';
const TIERS = ['unit', 'api', 'system'];
const cores = os.availableParallelism();

function find(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return find(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

const args = process.argv.slice(2);
const tiers = [];
const filters = [];
let checks = false;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--checks') checks = true;
  else if (args[i] === '--tier') {
    const tier = args[++i];
    if (!TIERS.includes(tier)) {
      console.error(`--tier takes one of ${TIERS.join(', ')}`);
      process.exit(2);
    }
    tiers.push(tier);
  } else filters.push(args[i]);
}
const chosen = (tiers.length > 0 ? tiers : TIERS).map((tier) => ({
  tier,
  files: find(path.join('test', tier))
    .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
    .sort(),
}));
if (chosen.every((t) => t.files.length === 0)) {
  console.error(`no test file matches ${filters.join(' ')}`);
  process.exit(1);
}

/**
 * The api and system files that take longest (over a minute each on a 2-core machine), slowest first: they
 * start first, so the run does not end on one of them running alone while the other core idles.
 */
const SLOWEST = [
  'test/api/face/liveness.test.ts',
  'test/api/reader/passport.test.ts',
  'test/api/reader/idr.test.ts',
  'test/api/reader/licence.test.ts',
  'test/api/security/fuzz.test.ts',
  'test/system/face/liveness-units.test.ts',
  'test/api/reader/fraud-check.test.ts',
  'test/api/reader/passport-any-state.test.ts',
  'test/api/speech/asr/http.test.ts',
  'test/api/speech/tts/api.test.ts',
  'test/api/reader/quality-check.test.ts',
];
const rank = (file) => {
  const i = SLOWEST.indexOf(file.split(path.sep).join('/'));
  return i === -1 ? SLOWEST.length : i;
};

const unit = chosen.find((t) => t.tier === 'unit')?.files ?? [];
// One run for both tiers, so that a slow system file (crash harness, topology) overlaps api files.
const servers = ['api', 'system'].flatMap((tier) => chosen.find((t) => t.tier === tier)?.files ?? []).sort((a, b) => rank(a) - rank(b));
const serverConcurrency = Number(process.env.SAOLA_TEST_CONCURRENCY) || Math.max(2, cores);

// The usual report on the terminal, and a TAP copy to read the skip reasons from.
const tapDir = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-tests-'));

/** Runs files in one `node --test` with `concurrency` files at a time; resolves to its exit status. */
function runFiles(name, files, concurrency) {
  if (files.length === 0) return Promise.resolve(0);
  console.log(`# ${name}: ${files.length} file(s), ${concurrency} at a time`);
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--test',
      `--test-concurrency=${concurrency}`,
      // A hang detector, not a speed check: a heavy file beside others on a loaded 2-core machine takes longer.
      '--test-timeout=1200000',
      `--test-reporter=${process.stdout.isTTY ? 'spec' : 'tap'}`,
      '--test-reporter-destination=stdout',
      '--test-reporter=tap',
      `--test-reporter-destination=${path.join(tapDir, `${name}.tap`)}`,
      ...files,
    ],
    // Servers the suites start as child processes shed load on a late event loop, or a full worker pool,
    // only where a test asks (test/system/reliability/overload.test.ts): on a loaded 2-core machine a
    // starved main thread would otherwise answer 429 to a suite that checks another code.
    { stdio: 'inherit', env: { SAOLA_MAX_EVENT_LOOP_DELAY_MS: '0', SAOLA_POOL_MAX_WAIT_MS: '0', ...process.env, SAOLA_TEST: '1' } },
  );
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

/** `ok N - name # SKIP native engine missing: ...` lines of the TAP reports. */
function missingProgramSkips() {
  return fs
    .readdirSync(tapDir)
    .flatMap((f) => fs.readFileSync(path.join(tapDir, f), 'utf8').split('\n'))
    .filter((line) => /^\s*ok \d+ - /.test(line) && line.includes(`# SKIP ${MISSING_PROGRAM}`))
    .map((line) => line.trim().replace(/^ok \d+ - /, ''));
}

/** `npm run NAME`, its output held back and printed whole when it ends (two at once would interleave); resolves to its exit status. */
function npmRun(name) {
  const began = Date.now();
  const child = spawn('npm', ['run', '--silent', name], { stdio: ['ignore', 'pipe', 'pipe'] });
  const output = [];
  child.stdout.on('data', (c) => output.push(c));
  child.stderr.on('data', (c) => output.push(c));
  return new Promise((resolve) =>
    child.on('close', (code, signal) => {
      const status = code ?? (signal ? 1 : 0);
      process.stdout.write(Buffer.concat(output));
      console.log(`# npm run ${name}: ${status === 0 ? 'passed' : `failed (${status})`} in ${seconds(began)}`);
      resolve(status);
    }),
  );
}

const started = Date.now();
const seconds = (since, until = Date.now()) => `${Math.round((until - since) / 1000)} s`;
if (checks) {
  const failed = (await Promise.all([npmRun('typecheck'), npmRun('lint')])).find((s) => s !== 0);
  if (failed !== undefined) process.exit(failed);
}
const testsStarted = Date.now();
let status = await runFiles('unit', unit, cores);
const unitTime = seconds(testsStarted);
const serversStarted = Date.now();
status = (await runFiles('api+system', servers, serverConcurrency)) || status;
if (unit.length > 0 && servers.length > 0) console.log(`# ${checks ? `checks ${seconds(started, testsStarted)}, ` : ''}unit ${unitTime}, api+system ${seconds(serversStarted)}, total ${seconds(started)}`);

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
