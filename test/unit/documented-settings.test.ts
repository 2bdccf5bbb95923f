import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function files(dir: string, ext: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return files(full, ext);
    return e.name.endsWith(ext) ? [full] : [];
  });
}

test('every SAOLA_* setting the docs name is one the code reads', () => {
  // The server's settings, and the ones test suites and the client package read (named in the docs as such).
  const sources = [...files(path.join(ROOT, 'src'), '.ts'), ...files(path.join(ROOT, 'scripts'), '.mjs'), ...files(path.join(ROOT, 'test'), '.ts')];
  sources.push(...files(path.join(ROOT, 'clients/typescript/src'), '.ts'), ...files(path.join(ROOT, 'clients/typescript/test'), '.ts'));
  const code = sources.map((f) => fs.readFileSync(f, 'utf8')).join('\n');
  // Names the code builds: `SAOLA_CREDIT_${name}_URL`, or `${name}_MIN_SECONDS` with name a 'SAOLA_...' literal.
  const templates = [...code.matchAll(/`(SAOLA_[A-Z0-9_]*\$\{[^`]*)`/g)].map(
    (m) =>
      new RegExp(
        `^${m[1]
          .split(/\$\{[^}]*\}/)
          .map((part) => part.replace(/[^A-Z0-9_]/g, ''))
          .join('[A-Z0-9_]+')}$`,
      ),
  );
  const builtFrom = (name: string) =>
    name.split('_').some((_, i, parts) => i > 1 && code.includes(`'${parts.slice(0, i).join('_')}'`) && code.includes(`}_${parts.slice(i).join('_')}`));
  // A client program's own variables in docs/console.md's example, not settings of Saola.
  const clientExample = new Set(['SAOLA_API_KEY', 'SAOLA_TOKEN']);
  const known = (name: string) => clientExample.has(name) || code.includes(name) || templates.some((t) => t.test(name)) || builtFrom(name);
  const docs = [path.join(ROOT, 'README.md'), path.join(ROOT, 'ARCHITECTURE.md'), ...files(path.join(ROOT, 'docs'), '.md')];
  const missing: string[] = [];
  for (const doc of docs) {
    const text = fs.readFileSync(doc, 'utf8');
    for (const name of new Set(text.match(/\bSAOLA_[A-Z0-9_]*[A-Z0-9]\b/g) ?? [])) {
      if (!known(name)) missing.push(`${path.relative(ROOT, doc)}: ${name}`);
    }
  }
  assert.deepEqual(missing, []);
});
