import type { BenchRow } from './harness.js';
import { rowsOf, runLoad, TARGETS } from './load.js';

/**
 * `npm run bench -- load`: the load bench of bench/load.ts for every service with a
 * shorter overload window (BENCH_LOAD_SECONDS, default 12; BENCH_LOAD_SERVICES to pick).
 */
export default async function loadBench(): Promise<BenchRow[]> {
  const seconds = Number(process.env.BENCH_LOAD_SECONDS ?? 12);
  const names = (process.env.BENCH_LOAD_SERVICES ?? Object.keys(TARGETS).join(',')).split(',');
  const rows: BenchRow[] = [];
  for (const name of names) {
    try {
      rows.push(...rowsOf(await runLoad(TARGETS[name], { seconds, capacitySeconds: 3 })));
    } catch (err) {
      rows.push({ benchmark: `load ${name}`, metric: 'error', value: NaN, unit: '', note: (err as Error).message.split('\n')[0] });
    }
  }
  return rows;
}
