/**
 * The import graph of `src/`, built with the TypeScript compiler the project already has: every static
 * import and re-export, type-only ones included (a type-only circle still ties the files' meanings
 * together), and `import()` expressions. Edges go only to files under `src/`; packages are left out.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const SRC = path.join(ROOT, 'src');

const compilerOptions: ts.CompilerOptions = { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, resolveJsonModule: true };

/** Every .ts file under `dir`, as absolute paths. */
export function sourceFiles(dir: string = SRC): string[] {
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true }).flatMap((entry) => {
    const full = path.join(entry.parentPath, entry.name);
    return entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

export interface ImportEdge {
  /** The specifier as written, e.g. `../face/index.js`. */
  specifier: string;
  /** The file it resolves to (absolute). */
  target: string;
}

/** Each file under `src/` with the `src/` files it imports. */
export function importGraph(files: readonly string[] = sourceFiles()): Map<string, ImportEdge[]> {
  const host = ts.createCompilerHost(compilerOptions);
  const cache = ts.createModuleResolutionCache(ROOT, (f) => f, compilerOptions);
  const graph = new Map<string, ImportEdge[]>();
  for (const file of files) {
    const info = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
    const edges: ImportEdge[] = [];
    for (const { fileName: specifier } of info.importedFiles) {
      if (!specifier.startsWith('.')) continue;
      const resolved = ts.resolveModuleName(specifier, file, compilerOptions, host, cache, undefined, ts.ModuleKind.ESNext).resolvedModule;
      if (!resolved) throw new Error(`${path.relative(ROOT, file)}: cannot resolve ${specifier}`);
      const target = path.resolve(resolved.resolvedFileName);
      if (target.startsWith(SRC + path.sep)) edges.push({ specifier, target });
    }
    graph.set(file, edges);
  }
  return graph;
}

/**
 * Import circles found by depth-first search, each as the files around it (the first repeated at the end).
 * Empty exactly when the graph has no circle; with circles, at least one through each tangle of files.
 */
export function importCycles(graph: ReadonlyMap<string, readonly ImportEdge[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const { target } of graph.get(file) ?? []) {
      const seen = state.get(target);
      if (seen === 'open') cycles.push([...stack.slice(stack.indexOf(target)), target]);
      else if (seen === undefined) visit(target);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
  return cycles;
}
