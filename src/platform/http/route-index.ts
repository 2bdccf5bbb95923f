import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyInstance {
    /** Methods registered for a concrete path, to tell "wrong method" (405) from "no such route" (404). */
    allowedMethods(path: string): string[];
    /** Every route as registered (method, URL pattern), for suites that must cover each endpoint. */
    routeTable(): { method: string; url: string }[];
  }
}

/** Records every route as it is registered and answers which methods a path has. */
export function indexRoutes(app: FastifyInstance): void {
  const routes: { method: string; pattern: RegExp; url: string }[] = [];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const source = route.url
      .split('/')
      .map((part) => (part.startsWith(':') ? '[^/]+' : part === '*' ? '.*' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    const pattern = new RegExp(`^${source}/?$`);
    for (const method of methods) routes.push({ method, pattern, url: route.url });
  });
  app.decorate('allowedMethods', (path: string) => {
    const found = new Set<string>();
    for (const r of routes) if (r.pattern.test(path)) found.add(r.method);
    return [...found].sort();
  });
  app.decorate('routeTable', () => routes.map(({ method, url }) => ({ method, url })));
}
