#!/usr/bin/env node
// Runs the test suite with Node's test runner under tsx, tier by tier (Node 20's runner takes no glob
// patterns, so the files are listed here):
//   test/unit    no server, no child process, no database server: every file in parallel, one per core;
//   test/api     one in-process server per file (SQLite, its own temp folder, port 0);
//   test/system  Saola or other programs as child processes, PostgreSQL, Redis, a browser.
// Unit runs first; api and system then run together, a few files at a time (every file makes its own
// database, Redis prefix, temp folder and port, so files never share state).
//
// `--checks` also runs `npm run typecheck` and `npm run lint` (`npm test` does), side by side with each other
// and with the build of the run's JavaScript and the unit files: each check is one single-threaded program
// building its own TypeScript program, of different lengths, so alone they would leave a core idle for most
// of the slower one. A failed check fails the run before the api and system files start.
//
// `--tier unit` (repeatable) picks tiers; other arguments are path words that narrow the run:
// `npm test -- nlu platform` runs files whose path has either word. SAOLA_TEST_CONCURRENCY sets how
// many api/system files run at once.
//
// Time: at the end the run lists each file's CPU time (user+sys, its child processes included) and wall
// time (scripts/test-usage.mjs records them); compare CPU between runs, since wall time on a shared machine
// says more about the neighbours. api and system files start longest first, by the wall times recorded in
// test/durations.json (`--record` rewrites the entries of the files that ran and passed; record on a quiet
// machine with a full `npm test -- --record`), so that the run does not end on one long file alone.
//
// No file runs under tsx: the run first writes the repository as JavaScript to a folder of its own
// (scripts/test-build.mjs), and the test files, the `saola` child processes the suites start
// (SAOLA_TEST_ENTRY) and their worker threads run that, with no module loader (tsx's costs about 1.5
// CPU-seconds in every process and worker thread). The CPU report and test/durations.json name the
// sources; a failing test's location is its JavaScript there.
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
let record = false;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--checks') checks = true;
  else if (args[i] === '--record') record = true;
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

/** Recorded wall seconds per file, `{ "test/api/...": { "wall": 61, "cpu": 58 } }`: the order api and system files start in. */
const DURATIONS = path.join('test', 'durations.json');
const durations = fs.existsSync(DURATIONS) ? JSON.parse(fs.readFileSync(DURATIONS, 'utf8')) : {};
/** A file not recorded yet (new) is taken for a middling one. */
const UNRECORDED_SECONDS = 30;
const posix = (file) => file.split(path.sep).join('/');
const expectedSeconds = (file) => durations[posix(file)]?.wall ?? UNRECORDED_SECONDS;

const unit = chosen.find((t) => t.tier === 'unit')?.files ?? [];
// One run for both tiers, so that a slow system file (crash harness, topology) overlaps api files.
const servers = ['api', 'system'].flatMap((tier) => chosen.find((t) => t.tier === tier)?.files ?? []).sort((a, b) => expectedSeconds(b) - expectedSeconds(a));
const serverConcurrency = Number(process.env.SAOLA_TEST_CONCURRENCY) || Math.max(2, cores);

// The usual report on the terminal, and a TAP copy to read the skip reasons from.
const tapDir = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-tests-'));
// Each test file's wall and CPU time (scripts/test-usage.mjs writes one record per file here).
const usageDir = path.join(tapDir, 'usage');
fs.mkdirSync(usageDir);
const USAGE_HOOK = path.join(import.meta.dirname, 'test-usage.mjs');

/**
 * The repository as JavaScript for this run (scripts/test-build.mjs), in a folder beside src/; the test files
 * run from there, and the `saola` child processes from its src/main.js (fixtures/servers/saola-process.ts reads
 * SAOLA_TEST_ENTRY). Folders left by runs that died are removed.
 */
const ROOT = path.resolve(import.meta.dirname, '..');
const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
for (const entry of fs.readdirSync(ROOT)) {
  const m = /^\.test-build-(\d+)$/.exec(entry);
  if (m && !alive(Number(m[1]))) fs.rmSync(path.join(ROOT, entry), { recursive: true, force: true });
}
const built = path.join(ROOT, `.test-build-${process.pid}`);
process.on('exit', () => fs.rmSync(built, { recursive: true, force: true }));
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));
const { buildTestTree } = await import('./test-build.mjs');
const entry = path.join(built, 'src', 'main.js');
/** A test file's JavaScript in the built folder. */
const builtFile = (file) => path.join(built, file.slice(0, -'.ts'.length) + '.js');

/** Runs files in one `node --test` with `concurrency` files at a time; resolves to its exit status. */
function runFiles(name, files, concurrency) {
  if (files.length === 0) return Promise.resolve(0);
  console.log(`# ${name}: ${files.length} file(s), ${concurrency} at a time`);
  const child = spawn(
    process.execPath,
    [
      '--import',
      USAGE_HOOK,
      '--test',
      `--test-concurrency=${concurrency}`,
      // A hang detector, not a speed check: a heavy file beside others on a loaded 2-core machine takes longer.
      '--test-timeout=1200000',
      `--test-reporter=${process.stdout.isTTY ? 'spec' : 'tap'}`,
      '--test-reporter-destination=stdout',
      '--test-reporter=tap',
      `--test-reporter-destination=${path.join(tapDir, `${name}.tap`)}`,
      ...files.map(builtFile),
    ],
    // Servers the suites start as child processes shed load on a late event loop, or a full worker pool,
    // only where a test asks (test/system/reliability/overload.test.ts): on a loaded 2-core machine a
    // starved main thread would otherwise answer 429 to a suite that checks another code.
    {
      stdio: 'inherit',
      env: {
        SAOLA_MAX_EVENT_LOOP_DELAY_MS: '0',
        SAOLA_POOL_MAX_WAIT_MS: '0',
        ...process.env,
        SAOLA_TEST: '1',
        SAOLA_TEST_USAGE_DIR: usageDir,
        SAOLA_TEST_BUILD: built,
        SAOLA_TEST_ENTRY: entry,
      },
    },
  );
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

/** `ok N - name # SKIP native engine missing: ...` lines of the TAP reports. */
function missingProgramSkips() {
  return fs
    .readdirSync(tapDir)
    .filter((f) => f.endsWith('.tap'))
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
let checksTime;
const checking = checks
  ? Promise.all([npmRun('typecheck'), npmRun('lint')]).then((statuses) => {
      checksTime = seconds(started);
      return statuses.find((s) => s !== 0);
    })
  : Promise.resolve(undefined);
buildTestTree(built);
let status = await runFiles('unit', unit, cores);
const unitTime = seconds(started);
const failedCheck = await checking;
if (failedCheck !== undefined) process.exit(failedCheck);
const serversStarted = Date.now();
status = (await runFiles('api+system', servers, serverConcurrency)) || status;
if (unit.length > 0 && servers.length > 0)
  console.log(
    `# ${checks ? `checks ${checksTime}, ` : ''}build and unit ${unitTime} (side by side from the start), api+system ${seconds(serversStarted)}, total ${seconds(started)}`,
  );

const usage = fs.readdirSync(usageDir).map((f) => JSON.parse(fs.readFileSync(path.join(usageDir, f), 'utf8')));
if (usage.length > 0) {
  usage.sort((a, b) => b.cpu - a.cpu);
  const cpu = (list) => Math.round(list.reduce((n, u) => n + u.cpu, 0));
  const unitUsage = usage.filter((u) => u.file.startsWith('test/unit/'));
  const serverUsage = usage.filter((u) => !u.file.startsWith('test/unit/'));
  if (serverUsage.length > 0) {
    console.log('# api and system files: CPU s (user+sys, child processes included), wall s');
    for (const u of serverUsage) console.log(`# ${String(u.cpu).padStart(7)} ${String(Math.round(u.wall)).padStart(5)}  ${u.file}`);
  }
  if (unitUsage.length > 0)
    console.log(
      `# unit: CPU ${cpu(unitUsage)} s in ${unitUsage.length} file(s); slowest ${unitUsage
        .slice(0, 3)
        .map((u) => `${u.file} ${u.cpu} s`)
        .join(', ')}`,
    );
  console.log(`# total CPU ${cpu(usage)} s in ${usage.length} file(s)`);
  if (process.env.SAOLA_TEST_USAGE_OUT) fs.writeFileSync(process.env.SAOLA_TEST_USAGE_OUT, JSON.stringify(usage, null, 1) + '\n');
  if (record) {
    const recorded = { ...durations };
    for (const u of usage) if (u.code === 0 && !u.file.startsWith('test/unit/')) recorded[u.file] = { wall: Math.round(u.wall), cpu: Math.round(u.cpu) };
    const sorted = Object.fromEntries(Object.entries(recorded).sort(([a], [b]) => a.localeCompare(b)));
    fs.writeFileSync(DURATIONS, JSON.stringify(sorted, null, 2) + '\n');
    console.log(`# recorded the wall and CPU times of the files that passed in ${DURATIONS}`);
  }
}

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
