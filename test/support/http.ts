/** A small HTTP client for tests: sends what a real client would and returns status, headers and parsed body. */
export interface Reply<T = any> {
  status: number;
  headers: Headers;
  text: string;
  body: T;
}

export async function call<T = any>(
  base: string,
  method: string,
  path: string,
  opts: { token?: string; json?: unknown; body?: string | Buffer; headers?: Record<string, string> } = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | Buffer | undefined = opts.body;
  if (opts.json !== undefined) {
    body = JSON.stringify(opts.json);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(base + path, { method, headers, body: typeof body === 'string' || body === undefined ? body : new Uint8Array(body) });
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, text, body: parsed as T };
}
