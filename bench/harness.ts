/** One line of the benchmark table. */
export interface BenchRow {
  /** What was measured, e.g. "POST /api/v3/sample (sqlite)". */
  benchmark: string;
  metric: string;
  value: number;
  unit: string;
  /** The goal from the issue, e.g. ">= 5000". */
  goal?: string;
  note?: string;
}

/** A benchmark file default-exports one of these. */
export type Benchmark = () => Promise<BenchRow[]>;

function format(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 100) return Math.round(value).toLocaleString('en-US');
  return value.toFixed(2);
}

export function printTable(rows: BenchRow[]): void {
  const header = ['benchmark', 'metric', 'value', 'unit', 'goal', 'note'];
  const body = rows.map((r) => [r.benchmark, r.metric, format(r.value), r.unit, r.goal ?? '', r.note ?? '']);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) => '| ' + cells.map((c, i) => (i === 2 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(' | ') + ' |';
  console.log(line(header));
  console.log('|' + widths.map((w, i) => (i === 2 ? '-'.repeat(w + 1) + ':' : '-'.repeat(w + 2))).join('|') + '|');
  for (const b of body) console.log(line(b));
}
