/**
 * Compares two V8 heap snapshots (e.g. the soak's start and end, `bench/soak.ts --snapshots DIR`): objects
 * grouped by constructor (or kind) name, with count and self size in each, sorted by growth in size.
 *
 *   npx tsx bench/support/heap-diff.ts DIR/start.heapsnapshot DIR/end.heapsnapshot [--top 30]
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';

interface Group {
  count: number;
  size: number;
}

/** Constructor name (objects, closures) or node type (strings, arrays, code) -> count and self size. */
export function groupsOf(file: string): Map<string, Group> {
  const snap = JSON.parse(fs.readFileSync(file, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: (string[] | string)[] } };
    nodes: number[];
    strings: string[];
  };
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0] as string[];
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const out = new Map<string, Group>();
  for (let i = 0; i < snap.nodes.length; i += fields.length) {
    const type = types[snap.nodes[i + typeAt]];
    const key = type === 'object' || type === 'closure' ? `${type} ${snap.strings[snap.nodes[i + nameAt]]}` : type;
    const g = out.get(key) ?? { count: 0, size: 0 };
    g.count++;
    g.size += snap.nodes[i + sizeAt];
    out.set(key, g);
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '30' } } });
  if (positionals.length !== 2) throw new Error('usage: heap-diff.ts BEFORE.heapsnapshot AFTER.heapsnapshot [--top N]');
  const [a, b] = positionals.map(groupsOf);
  const keys = new Set([...a.keys(), ...b.keys()]);
  const rows = [...keys].map((k) => {
    const x = a.get(k) ?? { count: 0, size: 0 };
    const y = b.get(k) ?? { count: 0, size: 0 };
    return { k, dCount: y.count - x.count, dSize: y.size - x.size, count: y.count, size: y.size };
  });
  rows.sort((p, q) => q.dSize - p.dSize);
  const total = (m: Map<string, Group>) => [...m.values()].reduce((s, g) => s + g.size, 0);
  console.log(`self size: ${(total(a) / 2 ** 20).toFixed(1)} MiB -> ${(total(b) / 2 ** 20).toFixed(1)} MiB`);
  console.log('| group | count (change) | self size KiB (change) |');
  console.log('|---|---:|---:|');
  for (const r of rows.slice(0, Number(values.top)))
    console.log(
      `| ${r.k} | ${r.count} (${r.dCount >= 0 ? '+' : ''}${r.dCount}) | ${(r.size / 1024).toFixed(0)} (${r.dSize >= 0 ? '+' : ''}${(r.dSize / 1024).toFixed(0)}) |`,
    );
}
