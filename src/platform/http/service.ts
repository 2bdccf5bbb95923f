import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PlatformError, ServiceError, type CatalogueEntry, type PlatformCondition, type ServiceErrorShape } from './errors.js';

interface Resolved {
  entry: CatalogueEntry;
  message: string;
  details?: unknown;
  /** Our own fault: log it with its stack. */
  internal: boolean;
}

interface ValidationIssue {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

/**
 * A schema's alternatives read as one sentence: a field that may be one of
 * a few values is "body/type must be one of "intent", "entity"" instead of
 * ajv's "must be equal to constant" for each value, then "must match a
 * schema in anyOf" and the other branch's "body must be null". Undefined when
 * the errors hold no such alternatives (ajv's own text is clear then).
 */
export function validationMessage(where: string, issues: readonly ValidationIssue[]): string | undefined {
  const allowed = new Map<string, unknown[]>();
  for (const issue of issues) {
    if (issue.keyword === 'const') allowed.set(issue.instancePath, [...(allowed.get(issue.instancePath) ?? []), issue.params.allowedValue]);
    if (issue.keyword === 'enum') allowed.set(issue.instancePath, [...(allowed.get(issue.instancePath) ?? []), ...((issue.params.allowedValues as unknown[]) ?? [])]);
  }
  if (allowed.size === 0) return undefined;
  const parts: string[] = [];
  for (const [path, values] of allowed) parts.push(`${where}${path} must be one of ${[...new Set(values)].map((v) => JSON.stringify(v)).join(', ')}`);
  // Other errors at paths without alternatives (a field of the wrong type beside the one above); the union's own
  // "must match a schema in anyOf" and a sibling branch's errors at a parent path say nothing more.
  for (const issue of issues) {
    if (issue.keyword === 'const' || issue.keyword === 'enum' || issue.keyword === 'anyOf' || issue.keyword === 'oneOf') continue;
    if ([...allowed.keys()].some((path) => path.startsWith(issue.instancePath))) continue;
    parts.push(`${where}${issue.instancePath} ${issue.message ?? 'is invalid'}`);
  }
  return parts.join('; ');
}

function resolve(shape: ServiceErrorShape, err: unknown): Resolved {
  if (err instanceof ServiceError) return { entry: err.entry, message: err.message, details: err.details, internal: false };
  if (err instanceof PlatformError) {
    return { entry: shape.platform[err.condition], message: err.message, internal: err.condition === 'internal' };
  }
  const e = err as FastifyError & { name?: string };
  if (e && e.validation) {
    const where = e.validationContext ?? 'request';
    return { entry: shape.platform.invalidRequest, message: `Invalid ${where}: ${validationMessage(where, e.validation) ?? e.message}`, internal: false };
  }
  // A hostile blob key (path traversal) is the caller's mistake, not ours.
  if (e && e.name === 'BlobKeyError') {
    return { entry: shape.platform.invalidRequest, message: e.message, internal: false };
  }
  const status = typeof e?.statusCode === 'number' ? e.statusCode : 500;
  if (status === 413 || e?.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    // The service's own text: it names the limit (liveness: 409 with the video and image limits).
    return { entry: shape.platform.bodyTooLarge, message: shape.platform.bodyTooLarge.message, internal: false };
  }
  if (status === 429) return { entry: shape.platform.busy, message: e.message, internal: false };
  if (status >= 400 && status < 500) {
    return { entry: { ...shape.platform.invalidRequest, status }, message: e.message, internal: false };
  }
  return { entry: shape.platform.internal, message: shape.platform.internal.message, internal: true };
}

/** Sends an error in the service's shape; never a stack trace. */
export function sendServiceError(shape: ServiceErrorShape, err: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const resolved = resolve(shape, err);
  if (resolved.internal) request.log.error({ err, service: shape.service }, 'request failed');
  else request.log.info({ service: shape.service, code: resolved.entry.code, reason: resolved.message }, 'request refused');
  return reply
    .code(resolved.entry.status)
    .type('application/json; charset=utf-8')
    .send(shape.render(resolved.entry, resolved.message, resolved.details));
}

/** 404 for an unknown path; 405 with Allow when the path exists under other methods. */
export function sendRouteNotFound(shape: ServiceErrorShape, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const path = request.url.split('?')[0];
  const allowed = request.server.allowedMethods?.(path).filter((m) => m !== 'HEAD') ?? [];
  if (allowed.length > 0) {
    reply.header('allow', allowed.join(', '));
    return sendServiceError(
      shape,
      new ServiceError(shape.platform.methodNotAllowed, `Method ${request.method} is not allowed on ${path}; use ${allowed.join(', ')}`),
      request,
      reply,
    );
  }
  return sendServiceError(shape, new PlatformError('routeNotFound', `Route ${request.method} ${path} not found`), request, reply);
}

/**
 * Gives a service's encapsulated scope its error handler and its not-found
 * handler, so everything under its prefix answers in its own shape.
 */
export function useServiceErrors(scope: FastifyInstance, shape: ServiceErrorShape): void {
  scope.setErrorHandler((err, request, reply) => sendServiceError(shape, err, request, reply));
  scope.setNotFoundHandler((request, reply) => sendRouteNotFound(shape, request, reply));
}

const REASON: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
};

/** fastify's own error body plus a stable `code`: for services whose spec shows no error body. */
export function fastifyStyleBody(entry: CatalogueEntry, message: string, details?: unknown): unknown {
  return {
    statusCode: entry.status,
    error: REASON[entry.status] ?? 'Error',
    code: entry.code,
    message,
    ...(details === undefined ? {} : { details }),
  };
}

/** Platform conditions in the fastify style, for services whose spec shows no error body. */
export const fastifyStyleConditions = {
  unauthorized: { code: 'UNAUTHORIZED', message: 'Missing or invalid credentials', status: 401 },
  bodyTooLarge: { code: 'PAYLOAD_TOO_LARGE', message: 'Request body too large', status: 413 },
  busy: { code: 'BUSY', message: 'Too many requests; try again shortly', status: 429 },
  invalidRequest: { code: 'INVALID_REQUEST', message: 'Invalid request', status: 400 },
  routeNotFound: { code: 'ROUTE_NOT_FOUND', message: 'Route not found', status: 404 },
  methodNotAllowed: { code: 'METHOD_NOT_ALLOWED', message: 'Method not allowed', status: 405 },
  internal: { code: 'INTERNAL', message: 'Internal error; it has been logged', status: 500 },
} as const satisfies Record<PlatformCondition, CatalogueEntry>;

/** The shape of routes that belong to no service (health, docs, unknown paths). */
export const platformErrorShape: ServiceErrorShape = {
  service: 'platform',
  platform: fastifyStyleConditions,
  render: fastifyStyleBody,
};
