/** No import circle in `src/`, type-only imports included: each file can be read, loaded and moved on its own terms. */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { importCycles, importGraph, ROOT } from '../../support/import-graph.js';

test('src/ has no import cycle', () => {
  const graph = importGraph();
  assert.ok(graph.size > 100, `the graph holds the source files (${graph.size})`);
  const cycles = importCycles(graph).map((files) => files.map((f) => path.relative(ROOT, f)).join(' -> '));
  assert.deepEqual(cycles, [], `import cycles:\n${cycles.join('\n')}`);
});
