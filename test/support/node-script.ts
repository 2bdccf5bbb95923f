/**
 * `node` arguments that run one of the repository's TypeScript files (a path relative to the repository root,
 * or absolute). scripts/run-tests.mjs runs the tests from a folder of the repository written as JavaScript
 * (SAOLA_TEST_BUILD), with each file's JavaScript beside it: the child then runs that, without tsx's loader
 * (about 1.5 CPU-seconds a process). Elsewhere the source runs under tsx.
 */
import fs from 'node:fs';
import path from 'node:path';

export function nodeScript(file: string): string[] {
  const build = process.env.SAOLA_TEST_BUILD;
  if (build && file.endsWith('.ts')) {
    const inBuild = path.isAbsolute(file) ? file : path.join(build, file);
    const js = inBuild.slice(0, -'.ts'.length) + '.js';
    if (inBuild.startsWith(build + path.sep) && fs.existsSync(js)) return [js];
  }
  return ['--import', 'tsx', file];
}
