/**
 * Errors as values. Each service owns one catalogue (its spec's code table);
 * the platform raises a few conditions every service must answer in its own
 * shape (bad credentials, body too large, busy, bad request, unknown route).
 */
export interface CatalogueEntry {
  /** The code the service's clients see (`errorCode` 7, `code` 406, `"not_found"`...). */
  code: string | number;
  /** The default message, as the original service words it. */
  message: string;
  /** HTTP status. Domain outcomes of the original API are 200 with the code in the body. */
  status: number;
}

export function defineCatalogue<T extends Record<string, CatalogueEntry>>(entries: T): Readonly<T> {
  return Object.freeze(entries);
}

/** An error a service raises from its catalogue. */
export class ServiceError extends Error {
  constructor(
    readonly entry: CatalogueEntry,
    message?: string,
    readonly details?: unknown,
  ) {
    super(message ?? entry.message);
    this.name = 'ServiceError';
  }
}

/** Conditions the platform detects before a service's handler runs. */
export type PlatformCondition = 'unauthorized' | 'bodyTooLarge' | 'busy' | 'invalidRequest' | 'routeNotFound' | 'methodNotAllowed' | 'internal';

export class PlatformError extends Error {
  constructor(
    readonly condition: PlatformCondition,
    message: string,
  ) {
    super(message);
    this.name = 'PlatformError';
  }
}

/** How one service answers errors: its catalogue entries for the platform conditions, and its body shape. */
export interface ServiceErrorShape {
  service: string;
  platform: Record<PlatformCondition, CatalogueEntry>;
  /** Builds the body the service's clients expect for an error. */
  render(entry: CatalogueEntry, message: string, details?: unknown): unknown;
}

/** The platform conditions of a service authenticated by `api_key`, its 413 naming the service and the 5 MB limit. */
export function apiKeyPlatformEntries(service: string): Record<PlatformCondition, CatalogueEntry> {
  return {
    unauthorized: { code: 401, message: 'Missing or invalid api_key', status: 401 },
    bodyTooLarge: { code: 413, message: `${service}: file larger than 5 MB`, status: 413 },
    busy: { code: 429, message: 'Too many requests; try again shortly', status: 429 },
    invalidRequest: { code: 400, message: 'Invalid request', status: 400 },
    routeNotFound: { code: 404, message: 'Route not found', status: 404 },
    methodNotAllowed: { code: 405, message: 'Method not allowed', status: 405 },
    internal: { code: 500, message: 'Internal error; it has been logged', status: 500 },
  };
}
