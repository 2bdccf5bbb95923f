// The docs are reference: every setting, file, npm script and section they name must exist, so a doc that
// falls behind the code fails here with the doc's file and line.
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

const DOCS = [path.join(ROOT, 'README.md'), path.join(ROOT, 'ARCHITECTURE.md'), ...files(path.join(ROOT, 'docs'), '.md')];

interface DocLine {
  doc: string; // relative to the repository root
  line: number;
  text: string;
  fenced: boolean; // inside a ``` block
}

function docLines(doc: string): DocLine[] {
  let fenced = false;
  return fs
    .readFileSync(doc, 'utf8')
    .split('\n')
    .map((text, i) => {
      if (/^\s*```/.test(text)) fenced = !fenced;
      return { doc: path.relative(ROOT, doc), line: i + 1, text, fenced };
    });
}

const where = (l: DocLine) => `${l.doc}:${l.line}`;

test('every SAOLA_* setting the docs name is one the code reads', () => {
  // The server's settings, and the ones test suites and the client package read (named in the docs as such).
  const sources = [...files(path.join(ROOT, 'src'), '.ts'), ...files(path.join(ROOT, 'scripts'), '.mjs'), ...files(path.join(ROOT, 'test'), '.ts'), ...files(path.join(ROOT, 'fixtures'), '.ts')];
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
  const missing: string[] = [];
  for (const doc of DOCS) {
    const text = fs.readFileSync(doc, 'utf8');
    for (const name of new Set(text.match(/\bSAOLA_[A-Z0-9_]*[A-Z0-9]\b/g) ?? [])) {
      if (!known(name)) missing.push(`${path.relative(ROOT, doc)}: ${name}`);
    }
  }
  assert.deepEqual(missing, []);
});

// A repository path is a word that starts with one of the repository's top folders and a slash. Inside an
// inline code span each whitespace-separated word is checked (so `tsx bench/x.ts --flag` checks
// bench/x.ts); a word holding a placeholder (<kind>, *, {a,b}, ...) names a pattern, not a file, and is
// skipped. Fenced blocks are examples for a shell or another machine and are not checked.
const TOP_FOLDERS = ['src', 'test', 'bench', 'eval', 'fixtures', 'scripts', 'models', 'clients', 'console-ui', 'docs', 'training'];
const REPO_PATH = new RegExp(`^(?:${TOP_FOLDERS.join('|')})/[\\w./@-]*$`);
const PLACEHOLDER = /[<>*{}]|\.\.\./;

function pathInCode(word: string): string | undefined {
  // Trailing punctuation of prose inside the span, and a ":line" or "#section" suffix, are not the path.
  const bare = word
    .replace(/[,;:)]+$/, '')
    .replace(/(?::\d+)+$/, '')
    .replace(/#.*$/, '');
  if (PLACEHOLDER.test(word) || !REPO_PATH.test(bare)) return undefined;
  return bare;
}

// Links: [text](target) with a target that is not a URL or a bare #section, resolved from the doc's folder.
const LINK = /\[[^\]]*\]\(([^)\s]+)\)/g;
const isUrl = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target);

function codeSpans(text: string): string[] {
  return [...text.matchAll(/(`+)([^`]+?)\1/g)].map((m) => m[2]);
}

test('every repository path a doc names exists', () => {
  const stale: string[] = [];
  for (const doc of DOCS) {
    for (const l of docLines(doc)) {
      if (l.fenced) continue;
      for (const span of codeSpans(l.text)) {
        for (const word of span.split(/\s+/)) {
          const p = pathInCode(word);
          if (p !== undefined && !fs.existsSync(path.join(ROOT, p))) stale.push(`${where(l)}: ${p}`);
        }
      }
      for (const [, target] of l.text.matchAll(LINK)) {
        if (isUrl(target) || target.startsWith('#')) continue;
        const file = target.replace(/#.*$/, '');
        if (!fs.existsSync(path.resolve(path.dirname(path.join(ROOT, l.doc)), file))) stale.push(`${where(l)}: ${target}`);
      }
    }
  }
  if (stale.length > 0) assert.fail(`paths named in the docs that do not exist:\n${stale.join('\n')}`);
});

test('every npm script a doc names is in package.json', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const unknown: string[] = [];
  for (const doc of DOCS) {
    for (const l of docLines(doc)) {
      // `npm test` and `npm start` are the scripts test and start; `npm run X` is X, and `npm run eval:*` a
      // pattern, not a script. Fenced blocks count: their commands are meant to be run as written.
      for (const m of l.text.matchAll(/\bnpm (?:run(?:-script)? ([\w:.-]+)(\*?)|(test|start)\b)/g)) {
        if (m[2] === '*') continue;
        const script = m[1] ?? m[3];
        if (!(script in pkg.scripts)) unknown.push(`${where(l)}: npm ${m[1] ? 'run ' : ''}${script}`);
      }
    }
  }
  if (unknown.length > 0) assert.fail(`npm scripts named in the docs that package.json lacks:\n${unknown.join('\n')}`);
});

// GitHub's anchor of a heading: lower case, punctuation dropped (letters of any script, digits, spaces,
// hyphens and underscores kept), spaces to hyphens, a repeated anchor numbered -1, -2...
function anchors(doc: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const l of docLines(doc)) {
    for (const [, id] of l.text.matchAll(/<a (?:id|name)="([^"]+)"/g)) out.add(id);
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(l.text);
    if (l.fenced || !heading) continue;
    const slug = heading[1]
      .replace(/`/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return out;
}

test('every section a link or a code comment points to exists', () => {
  const broken: string[] = [];
  const check = (from: string, file: string, anchor: string) => {
    if (!file.endsWith('.md') || !fs.existsSync(file)) return; // a missing file is the path test's to report
    if (!anchors(file).has(decodeURIComponent(anchor))) broken.push(`${from}: ${path.relative(ROOT, file)}#${anchor}`);
  };
  for (const doc of DOCS) {
    for (const l of docLines(doc)) {
      if (l.fenced) continue;
      for (const [, target] of l.text.matchAll(LINK)) {
        if (isUrl(target) || !target.includes('#')) continue;
        const [file, anchor] = target.split('#');
        check(where(l), file === '' ? doc : path.resolve(path.dirname(doc), file), anchor);
      }
    }
  }
  // Code comments cite the contract and other docs as docs/<page>.md#<section>.
  const sources = ['src', 'test', 'bench', 'eval', 'fixtures', 'scripts'].flatMap((dir) =>
    fs.existsSync(path.join(ROOT, dir)) ? [...files(path.join(ROOT, dir), '.ts'), ...files(path.join(ROOT, dir), '.mjs')] : [],
  );
  for (const source of sources) {
    fs.readFileSync(source, 'utf8')
      .split('\n')
      .forEach((text, i) => {
        for (const [, file, anchor] of text.matchAll(/\b(docs\/[\w.-]+\.md)#([\w-]+)/g)) {
          check(`${path.relative(ROOT, source)}:${i + 1}`, path.join(ROOT, file), anchor);
        }
      });
  }
  if (broken.length > 0) assert.fail(`sections named that do not exist:\n${broken.join('\n')}`);
});
