/** The console's calls: its own JSON API (cookie + CSRF header) and the public API with an application's key. */
let csrf = '';

export function setCsrf(token: string): void {
  csrf = token;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
  }
}

export async function consoleApi<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['x-csrf-token'] = csrf;
  const res = await fetch(`/console/api${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin' });
  const text = await res.text();
  const parsed = text ? safeJson(text) : undefined;
  if (!res.ok) {
    const message = (parsed as { message?: string } | undefined)?.message ?? `${res.status} ${res.statusText}`;
    if (res.status === 401 && path !== '/login') window.dispatchEvent(new CustomEvent('saola:signed-out'));
    throw new ApiError(res.status, message, parsed);
  }
  return parsed as T;
}

export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Keys made in this browser tab, so the playgrounds can call the API at once (never stored beyond the tab). */
const KEY_STORE = 'saola.playground.keys';

export function rememberKey(appCode: string, kind: 'api_key' | 'token', secret: string): void {
  const all = JSON.parse(sessionStorage.getItem(KEY_STORE) ?? '{}') as Record<string, Record<string, string>>;
  all[appCode] = { ...all[appCode], [kind]: secret };
  sessionStorage.setItem(KEY_STORE, JSON.stringify(all));
}

export function rememberedKey(appCode: string, kind: 'api_key' | 'token'): string {
  const all = JSON.parse(sessionStorage.getItem(KEY_STORE) ?? '{}') as Record<string, Record<string, string>>;
  return all[appCode]?.[kind] ?? '';
}

export interface Application {
  app_code: string;
  name: string;
  created_time: string;
  revoked: boolean;
  api_keys: number;
  tokens: number;
}

export interface CredentialInfo {
  id: string;
  kind: 'api_key' | 'token';
  prefix: string;
  created_time: string;
  revoked_time: string | null;
  last_used_time?: string | null;
}

export interface Quota {
  service: string;
  per_minute: number | null;
  per_day: number | null;
}

export interface UsageLine {
  service: string;
  endpoint: string;
  count: number;
  errors: number;
  p50_ms: number | null;
  p95_ms: number | null;
  max_ms: number;
}

export interface UsageDay {
  day: string;
  service: string;
  count: number;
  errors: number;
  p50_ms: number | null;
  p95_ms: number | null;
}

export interface UsageReport {
  from: string;
  to: string;
  total: number;
  errors: number;
  endpoints: UsageLine[];
  days: UsageDay[];
}
