#!/usr/bin/env node
// Runs every test/**/*.test.ts with Node's test runner under tsx. Node 20's
// runner takes no glob patterns, so the files are listed here. Arguments
// narrow the run: `npm test -- nlu platform` runs files whose path has either word.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

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
const child = spawn(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=1', '--test-timeout=600000', ...files],
  { stdio: 'inherit', env: { ...process.env, SAOLA_TEST: '1' } },
);
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
