// Transpiles src/ to plain JavaScript for the system tests' child processes (scripts/run-tests.mjs): every
// `saola serve`, `saola worker` and `saola COMMAND` a suite starts otherwise loads ~300 TypeScript modules
// through tsx's loader (about 3 CPU-seconds a start, and again in each of its worker threads), dozens of times
// a run. The output is what `npm run build` makes of src/ (TypeScript's own emit, types erased, file by
// file), in a folder beside src/ so that paths the code finds relative to its own file (the built console,
// the models) resolve as they do from dist/. Type checking is `npm run typecheck`'s job, not this one's.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(import.meta.dirname, '..');

/** Writes src/ as JavaScript to `out` (a new folder directly under the repository root); returns main.js there. */
export function transpileSources(out) {
  if (path.dirname(path.resolve(out)) !== ROOT) throw new Error(`${out}: the folder must sit beside src/`);
  const src = path.join(ROOT, 'src');
  const compilerOptions = {
    module: ts.ModuleKind.ESNext,
    target: ts.ScriptTarget.ES2022,
    esModuleInterop: true,
    verbatimModuleSyntax: false,
    sourceMap: false,
  };
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const from = path.join(dir, entry.name);
      const to = path.join(out, path.relative(src, from));
      if (entry.isDirectory()) {
        fs.mkdirSync(to, { recursive: true });
        walk(from);
      } else if (entry.name.endsWith('.d.ts')) {
        continue;
      } else if (entry.name.endsWith('.ts')) {
        const { outputText } = ts.transpileModule(fs.readFileSync(from, 'utf8'), { compilerOptions, fileName: from });
        fs.writeFileSync(to.slice(0, -3) + '.js', outputText);
      } else {
        fs.copyFileSync(from, to);
      }
    }
  };
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out);
  walk(src);
  return path.join(out, 'main.js');
}
