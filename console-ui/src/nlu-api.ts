import { safeJson } from './api';

/** A call of the public NLU API (/api/v3) with an application's bearer token, as any client makes it. */
export type NluApi = <T = any>(method: string, path: string, body?: unknown) => Promise<T>;

export function nluApi(token: string): NluApi {
  return async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`/api/v3${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const parsed = safeJson(await res.text()) as any;
    if (!res.ok) throw new Error(parsed?.message ?? `HTTP ${res.status}`);
    return parsed as T;
  };
}
