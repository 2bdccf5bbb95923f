/**
 * The route table of the running app, as the security suites walk it: every
 * endpoint registered, so a new one is covered (or must be listed as public
 * here, with the reason) without anyone remembering to add it.
 */
import type { FastifyInstance } from 'fastify';

export interface Endpoint {
  method: string;
  url: string;
}

/** Endpoints that answer without credentials, and why. Anything else must refuse a stranger. */
export const PUBLIC: Record<string, string> = {
  'GET /healthz': 'liveness probe, answers {"status":"ok"} only',
  'GET /readyz': 'readiness probe for the operator (engines, no records)',
  'GET /docs': 'the API reference',
  'GET /docs/': 'the API reference',
  'GET /docs/*': 'the API reference and the OpenAPI document',
  'GET /docs/openapi.json': 'the OpenAPI document',
  'GET /docs/openapi.yaml': 'the OpenAPI document',
  'GET /docs/js/scalar.js': "the API reference's script",
  'GET /cmt/faces/:id': 'capability link handed out in a /cmt answer: a random UUIDv4 (122 bits), swept after 24 h',
  'GET /hmi/tts/v5/audio/:file': "capability link (the spec's `async` URL): a random token, not the request id",
  'GET /console': "the console's page: a static file of the build, no data (everything it shows comes from /console/api behind the operator's password)",
  'GET /console/*': "the console's built scripts, styles and icons (static files read at start-up) and its page for any other path",
  'GET /console/api/status': "tells the page whether the console is on and this browser is signed in (and the session's CSRF token to that session only); no records",
  'POST /console/api/login': "the operator's sign-in: takes the password itself, locked out after repeated failures (test/console)",
};

/** The console's admin API: the operator's password or session, never an application's key or token. */
export const isConsoleApi = (e: Endpoint) => e.url.startsWith('/console/api');

/** Every method and URL pattern, without HEAD (fastify adds it to each GET) and OPTIONS. */
export function endpoints(app: FastifyInstance): Endpoint[] {
  const seen = new Set<string>();
  const list: Endpoint[] = [];
  for (const r of app.routeTable()) {
    if (r.method === 'HEAD' || r.method === 'OPTIONS') continue;
    const key = `${r.method} ${r.url}`;
    if (seen.has(key)) continue;
    seen.add(key);
    list.push({ method: r.method, url: r.url });
  }
  return list.sort((a, b) => (a.url + a.method).localeCompare(b.url + b.method));
}

export const isPublic = (e: Endpoint) => `${e.method} ${e.url}` in PUBLIC;

/** A concrete path for a pattern: each :param gets `value(param)`, a wildcard `rest`. */
export function fill(url: string, value: (param: string) => string = () => 'x', rest = 'x'): string {
  return url
    .split('/')
    .map((part) => (part.startsWith(':') ? encodeURIComponent(value(part.slice(1))) : part === '*' ? rest : part))
    .join('/');
}
