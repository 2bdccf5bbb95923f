import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';

/** Where `npm run build` puts the console's front end (vite), from src/console or dist/console alike. */
export const CONSOLE_UI_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/console-ui');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

/**
 * Everything the page loads comes from this server: the console works with no
 * internet. Deny by default and name each kind the page uses (the platform's
 * own policy for API answers, sandbox and all, would stop its scripts).
 */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "font-src 'self'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob:",
  "style-src 'self' 'unsafe-inline'",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Saola console</title>
<body style="font-family:sans-serif;max-width:40em;margin:3em auto">
<h1>Saola console</h1><p>The console's front end has not been built. Run <code>npm run build</code> (npm install runs it) and restart.</p>`;

/**
 * Serves the built console: the files found at start-up and nothing else (no
 * path from the request ever reaches the file system), hashed assets cached
 * for a year, the page itself never.
 */
export function serveConsoleFiles(app: FastifyInstance, dir = CONSOLE_UI_DIR): void {
  const files = new Map<string, Buffer>();
  const walk = (d: string) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else files.set('/' + path.relative(dir, full).split(path.sep).join('/'), fs.readFileSync(full));
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  const page = files.get('/index.html');

  const sendPage = (_request: unknown, reply: import('fastify').FastifyReply) =>
    reply
      .header('content-security-policy', CSP)
      .header('cache-control', 'no-store')
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .type('text/html; charset=utf-8')
      .send(page ?? NOT_BUILT);

  app.get('/console', { schema: { hide: true } }, sendPage);
  app.get<{ Params: { '*': string } }>('/console/*', { schema: { hide: true } }, async (request, reply) => {
    const wanted = '/' + request.params['*'];
    const body = files.get(wanted);
    if (body && wanted !== '/index.html') {
      return reply
        .header('cache-control', wanted.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache')
        .header('x-content-type-options', 'nosniff')
        .type(TYPES[path.extname(wanted)] ?? 'application/octet-stream')
        .send(body);
    }
    if (wanted.startsWith('/assets/') || wanted.startsWith('/api/')) {
      return reply
        .code(404)
        .type('application/json; charset=utf-8')
        .send({ statusCode: 404, error: 'Not Found', code: 'ROUTE_NOT_FOUND', message: `No console file ${wanted}` });
    }
    // Any other path is a page of the single-page app.
    return sendPage(request, reply);
  });
}
