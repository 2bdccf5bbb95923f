// Lint: ESLint with typescript-eslint's type-aware rules over the server, tests, benchmarks, scripts,
// the console's front end and the TypeScript client. Layout is Prettier's (.prettierrc), not ESLint's.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeGlobals = Object.fromEntries(
  ['process', 'console', 'Buffer', 'URL', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'fetch', 'AbortController', 'performance'].map((name) => [
    name,
    'readonly',
  ]),
);

export default tseslint.config(
  { ignores: ['dist/', '**/dist/', 'node_modules/', 'models/', 'data/', '.bench/', 'scratch/', 'test-screenshots/'] },
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
);
