// The repository as plain JavaScript, for one test run (scripts/run-tests.mjs): every test file, the `saola`
// child processes the suites start, and every worker thread either of them starts runs that JavaScript with
// no loader. Under tsx each of them pays for the loader: Node 20 runs module hooks on a thread of their own
// and every import (packages included) makes a round trip to it, about 1.5 CPU-seconds for the server's ~300
// modules, in each test file's process, in each child process and again in each worker thread.
//
// The folder mirrors the repository: the folders holding TypeScript the tests import are copied whole, each
// `.ts` file beside its JavaScript (tests that read the sources, the import graph and the docs check, still
// find them), and every other top-level entry (models, node_modules, dist, docs, package.json) is a link, so
// a path a file finds relative to its own (`../../models`, `test/fixtures/...`, `dist/console-ui`) resolves as
// it does in the repository. The JavaScript is TypeScript's own emit, file by file (types erased), what
// `npm run build` makes of src/; type checking is `npm run typecheck`'s job, not this one's.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(import.meta.dirname, '..');
/** The folders that hold TypeScript a test imports, directly or through another file. */
const TRANSPILED = ['src', 'test', 'fixtures', 'eval', 'bench', 'scripts', 'clients/typescript'];
const compilerOptions = {
  module: ts.ModuleKind.ESNext,
  target: ts.ScriptTarget.ES2022,
  esModuleInterop: true,
  verbatimModuleSyntax: false,
  sourceMap: false,
};

function copyTree(from, to) {
  fs.mkdirSync(to, { recursive: true });
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) copyTree(source, target);
    else if (!entry.isFile()) continue;
    else {
      fs.copyFileSync(source, target);
      if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
        const { outputText } = ts.transpileModule(fs.readFileSync(source, 'utf8'), { compilerOptions, fileName: source });
        fs.writeFileSync(target.slice(0, -3) + '.js', outputText);
      }
    }
  }
}

/**
 * Writes the mirror to `out` (a new folder directly under the repository root, so that it sits at the depth
 * of the repository's own files); returns `out`.
 */
export function buildTestTree(out) {
  if (path.dirname(path.resolve(out)) !== ROOT) throw new Error(`${out}: the folder must sit directly under the repository root`);
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out);
  const tops = new Set(TRANSPILED.map((dir) => dir.split('/')[0]));
  // dist/ is linked even before it exists: the console's browser suite builds the front end there when
  // `npm run build` has not, and the server finds it relative to its own file.
  const linked = new Set([...fs.readdirSync(ROOT), 'dist']);
  for (const name of linked) {
    if (name === '.git' || /^\.test-build-/.test(name) || tops.has(name)) continue;
    fs.symlinkSync(path.join(ROOT, name), path.join(out, name));
  }
  for (const dir of TRANSPILED) {
    copyTree(path.join(ROOT, dir), path.join(out, dir));
    // A transpiled folder's parent (clients/) keeps its other entries as links.
    const parent = path.dirname(dir);
    if (parent !== '.')
      for (const name of fs.readdirSync(path.join(ROOT, parent)))
        if (!fs.existsSync(path.join(out, parent, name))) fs.symlinkSync(path.join(ROOT, parent, name), path.join(out, parent, name));
  }
  return out;
}
