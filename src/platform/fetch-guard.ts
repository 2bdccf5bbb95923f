/**
 * Outbound HTTP that a caller controls the address of (image_url, callbacks)
 * without becoming a server-side request forgery: only http/https, and never
 * loopback, private, link-local, multicast or reserved addresses unless
 * `allowPrivate`. The check runs on the address actually connected to (in the
 * socket's DNS lookup), so DNS rebinding and redirects to private hosts are
 * refused too. Bounded by a total timeout and a body size cap.
 *
 *   const res = await guardedFetch(url, { timeoutMs: 10_000, maxBytes: 5 << 20 });
 *   await guardedFetch(callbackUrl, { method: 'POST', body: JSON.stringify(x), headers: { 'content-type': 'application/json' } });
 *
 * Stable API: `guardedFetch`, `assertPublicUrl`, `isPublicAddress`, `FetchGuardError`, `GuardOptions`, `GuardedResponse`.
 */
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';

export interface GuardOptions {
  /** Reach loopback/private/link-local addresses too (tests, trusted intranets). Default false. */
  allowPrivate?: boolean;
  /** Total time for connect, redirects and body, ms. Default 10 000. */
  timeoutMs?: number;
  /** Largest response body accepted, bytes. Default 5 MiB. */
  maxBytes?: number;
  /** Redirects followed (each one re-checked). Default 3. */
  maxRedirects?: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Cancels the request. */
  signal?: AbortSignal;
}

export interface GuardedResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The URL finally answered, after redirects. */
  url: string;
}

export type FetchGuardReason =
  | 'invalid_url'
  | 'blocked_address'
  | 'dns'
  | 'timeout'
  | 'too_large'
  | 'too_many_redirects'
  | 'network';

export class FetchGuardError extends Error {
  override name = 'FetchGuardError';
  constructor(
    readonly reason: FetchGuardReason,
    message: string,
  ) {
    super(message);
  }
}

const blocked = new net.BlockList();
for (const [net4, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(net4, prefix, 'ipv4');
}
for (const [net6, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(net6, prefix, 'ipv6');
}

/** The IPv4 address an IPv6 address carries (mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96, compatible ::a.b.c.d). */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::|::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const hi = parseInt(hex[1], 16);
    const lo = parseInt(hex[2], 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return undefined;
}

/** Whether an IP literal is a public unicast address. */
export function isPublicAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return !blocked.check(address, 'ipv4');
  if (family === 6) {
    const v4 = embeddedIpv4(address);
    if (v4) return !blocked.check(v4, 'ipv4');
    return !blocked.check(address, 'ipv6');
  }
  return false;
}

function parseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new FetchGuardError('invalid_url', 'The URL is not valid');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchGuardError('invalid_url', `Only http and https URLs are fetched, not ${url.protocol}`);
  }
  if (url.username || url.password) throw new FetchGuardError('invalid_url', 'URLs with credentials are not fetched');
  return url;
}

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/**
 * Refuses a URL that is not http(s) or whose host is or resolves to a
 * non-public address (every resolved address must be public). Resolves to the
 * parsed URL. `guardedFetch` checks again at connect time.
 */
export async function assertPublicUrl(raw: string, opts: Pick<GuardOptions, 'allowPrivate'> = {}): Promise<URL> {
  const url = parseUrl(raw);
  if (opts.allowPrivate) return url;
  const host = hostOf(url);
  if (net.isIP(host)) {
    if (!isPublicAddress(host)) throw new FetchGuardError('blocked_address', `Address ${host} is not public`);
    return url;
  }
  let addresses: dns.LookupAddress[];
  try {
    addresses = await dns.promises.lookup(host, { all: true, verbatim: true });
  } catch {
    throw new FetchGuardError('dns', `Host ${host} cannot be resolved`);
  }
  const bad = addresses.find((a) => !isPublicAddress(a.address));
  if (addresses.length === 0 || bad) throw new FetchGuardError('blocked_address', `Host ${host} resolves to a non-public address`);
  return url;
}

/** A DNS lookup for sockets that refuses non-public answers: the check sits on the address connected to. */
function guardedLookup(allowPrivate: boolean): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true, verbatim: true }, (err, addresses) => {
      if (err) return callback(err, '', 4);
      const list = addresses as unknown as dns.LookupAddress[];
      const usable = allowPrivate ? list : list.filter((a) => isPublicAddress(a.address));
      if (usable.length === 0 || (!allowPrivate && usable.length !== list.length)) {
        const e = new FetchGuardError('blocked_address', `Host ${hostname} resolves to a non-public address`);
        return callback(e as unknown as NodeJS.ErrnoException, '', 4);
      }
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, usable);
      callback(null, usable[0].address, usable[0].family);
    });
  };
}

function requestOnce(url: URL, opts: Required<Pick<GuardOptions, 'allowPrivate' | 'maxBytes'>> & GuardOptions, signal: AbortSignal): Promise<GuardedResponse> {
  const host = hostOf(url);
  if (net.isIP(host) && !opts.allowPrivate && !isPublicAddress(host)) {
    return Promise.reject(new FetchGuardError('blocked_address', `Address ${host} is not public`));
  }
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(
      url,
      {
        method: opts.method ?? 'GET',
        headers: { 'user-agent': 'saola', accept: '*/*', ...opts.headers },
        lookup: guardedLookup(opts.allowPrivate),
        signal,
        agent: false,
      },
      (res) => {
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > opts.maxBytes) {
          res.destroy();
          reject(new FetchGuardError('too_large', `The response is larger than ${opts.maxBytes} bytes`));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > opts.maxBytes) {
            res.destroy();
            reject(new FetchGuardError('too_large', `The response is larger than ${opts.maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), url: url.href }));
        res.on('error', (err) => reject(err));
      },
    );
    req.on('error', (err) => reject(err));
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

/**
 * Fetches a URL under the guard. Redirects (301, 302, 303, 307, 308) are
 * followed up to `maxRedirects`, each target checked again. Any HTTP status is
 * returned as is; failures throw FetchGuardError with a reason.
 */
export async function guardedFetch(raw: string, options: GuardOptions = {}): Promise<GuardedResponse> {
  const opts = { allowPrivate: false, maxBytes: 5 * 1024 * 1024, ...options };
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxRedirects = options.maxRedirects ?? 3;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let url = await assertPublicUrl(raw, opts);
  let method = opts.method;
  let body = opts.body;
  for (let hop = 0; ; hop++) {
    let res: GuardedResponse;
    try {
      res = await requestOnce(url, { ...opts, method, body }, signal);
    } catch (err) {
      if (err instanceof FetchGuardError) throw err;
      if (timeout.aborted) throw new FetchGuardError('timeout', `No complete answer within ${timeoutMs} ms`);
      const cause = (err as NodeJS.ErrnoException).code === 'ENOTFOUND' ? 'dns' : 'network';
      throw new FetchGuardError(cause, `Fetching failed: ${(err as Error).message}`);
    }
    const location = res.headers.location;
    if (![301, 302, 303, 307, 308].includes(res.status) || !location) return res;
    if (hop >= maxRedirects) throw new FetchGuardError('too_many_redirects', `More than ${maxRedirects} redirects`);
    let next: string;
    try {
      next = new URL(location, url).href;
    } catch {
      throw new FetchGuardError('invalid_url', 'The redirect target is not a valid URL');
    }
    url = await assertPublicUrl(next, opts);
    if (res.status === 303 || ((res.status === 301 || res.status === 302) && method && method !== 'GET' && method !== 'HEAD')) {
      method = 'GET';
      body = undefined;
    }
  }
}
