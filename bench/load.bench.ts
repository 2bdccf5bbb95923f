import type { BenchRow } from './harness.js';
import { rowsOf, runLoad, TARGETS } from './load.js';

/**
 * `npm run bench -- load`: the load bench of bench/load.ts for every service with a
 * shorter overload window (BENCH_LOAD_SECONDS, default 12; BENCH_LOAD_SERVICES to pick;
 * BENCH_LOAD_SERVER_CPU=0.5 caps the NLU and credit servers as `--server-cpu` does, root only).
 */
export default async function loadBench(): Promise<BenchRow[]> {
  const seconds = Number(process.env.BENCH_LOAD_SECONDS ?? 12);
  const names = (process.env.BENCH_LOAD_SERVICES ?? Object.keys(TARGETS).join(',')).split(',');
  const rows: BenchRow[] = [];
  for (const name of names) {
    try {
      const cap = Number(process.env.BENCH_LOAD_SERVER_CPU ?? NaN);
      const target = Number.isFinite(cap) && TARGETS[name].pin ? { ...TARGETS[name], serverCpu: cap } : TARGETS[name];
      rows.push(...rowsOf(await runLoad(target, { seconds, capacitySeconds: 3 })));
    } catch (err) {
      rows.push({ benchmark: `load ${name}`, metric: 'error', value: NaN, unit: '', note: (err as Error).message.split('\n')[0] });
    }
  }
  return rows;
}
