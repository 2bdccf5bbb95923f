import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { printTable, type Benchmark, type BenchRow } from './harness.js';

/**
 * Runs every `bench/*.bench.ts` (or those whose name contains an argument:
 * `npm run bench -- nlu`) and prints one table.
 */
const dir = path.dirname(fileURLToPath(import.meta.url));
const filters = process.argv.slice(2);
const files = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
if (files.length === 0) {
  console.error(`No benchmark matches ${filters.join(', ')}`);
  process.exit(2);
}
const rows: BenchRow[] = [];
for (const file of files) {
  console.error(`running ${file} ...`);
  const mod = (await import(pathToFileURL(path.join(dir, file)).href)) as { default: Benchmark };
  try {
    rows.push(...(await mod.default()));
  } catch (err) {
    rows.push({ benchmark: file, metric: 'error', value: NaN, unit: '', note: (err as Error).message });
  }
}
printTable(rows);
