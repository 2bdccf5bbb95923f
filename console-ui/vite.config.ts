import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The console's front end: Preact through esbuild's JSX, built into dist/console-ui, served under /console. */
export default defineConfig({
  root: here,
  base: '/console/',
  logLevel: 'warn',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: path.resolve(here, '../dist/console-ui'),
    emptyOutDir: true,
    // Inline nothing from outside; the console must work with no internet.
    assetsInlineLimit: 0,
    sourcemap: false,
    target: 'es2020',
  },
});
