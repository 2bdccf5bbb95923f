// Lint: ESLint with typescript-eslint's type-aware rules over the server, tests, benchmarks, scripts,
// the console's front end and the TypeScript client. Layout is Prettier's (.prettierrc), not ESLint's.
import fs from 'node:fs';
import path from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeGlobals = Object.fromEntries(
  ['process', 'console', 'Buffer', 'URL', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'fetch', 'AbortController', 'performance'].map((name) => [
    name,
    'readonly',
  ]),
);

/**
 * The service boundary: a file under a service folder (a folder of src/ holding a module.ts) imports the
 * platform, its own folder and another service only through that service's public entry (its index.ts);
 * src/platform imports no service. A folder above services (src/speech) holds code its services share,
 * which no other service imports. The specifiers are matched as written, so one rule per folder depth
 * spells the relative path to each other folder; type-only imports count too.
 */
function serviceBoundaries() {
  const src = path.join(import.meta.dirname, 'src');
  const files = fs.readdirSync(src, { recursive: true }).map((f) => f.split(path.sep).join('/'));
  const services = files.filter((f) => f.endsWith('/module.ts')).map((f) => f.slice(0, -'/module.ts'.length));
  const areas = [...new Set(services.map((s) => s.split('/')[0]))];
  const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const depthsUnder = (folder) => [
    ...new Set(files.filter((f) => f.startsWith(`${folder}/`) && f.endsWith('.ts')).map((f) => f.slice(folder.length + 1).split('/').length - 1)),
  ];
  const message = 'A service imports the platform and only the public entry (index.ts) of another service (ARCHITECTURE.md, "Service folders").';
  const platformMessage = 'The platform imports no service: services hand it what it needs (ARCHITECTURE.md, "Service folders").';
  /** A file in `folder`, `depth` folders down, may not reach into `targets` (folders of src/) except their services' entries. */
  const rulesFor = (folder, depth, targets, { entries = true, why = message } = {}) => {
    const from = path.posix.join(folder, ...Array(depth).fill('x'));
    const patterns = targets.map((target) => {
      const open = entries
        ? services.filter((s) => s === target || s.startsWith(`${target}/`)).map((s) => path.posix.join(path.posix.relative(target, s), 'index.js'))
        : [];
      const except = open.length ? `(?!(${open.map(escape).join('|')})$)` : '';
      return { regex: `^${escape(path.posix.relative(from, target))}/${except}`, message: why };
    });
    return { files: [`src/${folder}/${'*/'.repeat(depth)}*.ts`], rules: { 'no-restricted-imports': ['error', { patterns }] } };
  };
  const configs = [];
  for (const service of services) {
    const area = service.split('/')[0];
    const targets = [...areas.filter((a) => a !== area), ...services.filter((s) => s !== service && s.startsWith(`${area}/`))];
    for (const depth of depthsUnder(service)) configs.push(rulesFor(service, depth, targets));
  }
  // The shared files of an area above services (src/speech/*.ts) may use its services' folders.
  for (const area of areas.filter((a) => !services.includes(a)))
    configs.push(
      rulesFor(
        area,
        0,
        areas.filter((a) => a !== area),
      ),
    );
  for (const depth of depthsUnder('platform')) configs.push(rulesFor('platform', depth, areas, { entries: false, why: platformMessage }));
  return configs;
}

export default tseslint.config(
  { ignores: ['dist/', '**/dist/', 'node_modules/', 'models/', 'data/', '.bench/', 'scratch/', 'test-screenshots/', '.test-build-*/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        // Files outside every tsconfig (plain JS scripts, the console's Vite config) get a default project.
        projectService: {
          allowDefaultProject: ['*.js', 'scripts/*.mjs', 'bench/support/*.mjs', 'test/support/*.mjs', 'console-ui/vite.config.ts'],
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // A promise nobody awaits loses its error: the rule this setup exists for. node:test's describe/test
      // return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] }] },
      ],
      // Event handlers in the console's JSX may be async: Preact ignores what they return.
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // JSON replies, worker messages and Kysely<any> in migrations are untyped by nature; the code checks
      // their shape where it matters (TypeBox schemas), so `any` and its uses are not flagged.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // An async function without await implements an async interface (stores, engines) on purpose.
      '@typescript-eslint/require-await': 'off',
      // Style rather than bugs; left to review (the assertions are often kept for the reader).
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      '@typescript-eslint/restrict-template-expressions': 'off',
      // String(v) after the object case is ruled out; a caught error passed on as the rejection it was.
      '@typescript-eslint/no-base-to-string': 'off',
      '@typescript-eslint/prefer-promise-reject-errors': 'off',
    },
  },
  { files: ['**/*.mjs', '**/*.js'], languageOptions: { globals: nodeGlobals } },
  ...serviceBoundaries(),
);
