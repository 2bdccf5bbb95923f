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
 * Tested against every address form and rebinding in test/api/security/fetch-guard.test.ts.
 */
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';

export interface GuardOptions {
  /** Reach loopback/private/link-local addresses too (tests, trusted intranets). Default false. */
  allowPrivate?: boolean;
  /**
   * Addresses or subnets (`10.1.2.3`, `10.1.0.0/16`, `fd00::/8`) reachable even
   * though not public: one trusted intranet host without opening every private
   * address. Checked wherever the public check is (literal, DNS, connect, redirect).
   */
  allowSubnets?: string[];
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

export type FetchGuardReason = 'invalid_url' | 'blocked_address' | 'dns' | 'timeout' | 'too_large' | 'too_many_redirects' | 'network';

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
  // :: and ::1, and the deprecated IPv4-compatible ::a.b.c.d (the URL parser writes ::127.0.0.1 as ::7f00:1).
  ['::', 96],
  // SIIT ::ffff:0:a.b.c.d, Teredo 2001::/32 (tunnels to an address the check cannot see).
  ['::ffff:0:0:0', 96],
  ['2001::', 32],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(net6, prefix, 'ipv6');
}

/** The eight 16-bit groups of an IPv6 literal (a dotted IPv4 tail counts as two). */
function ipv6Groups(address: string): number[] | undefined {
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    text = text.slice(0, dotted.index) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const part = (p: string | undefined) => (p ? p.split(':').map((g) => parseInt(g, 16)) : []);
  const left = part(head);
  const right = part(tail);
  const groups = tail === undefined ? left : [...left, ...new Array(8 - left.length - right.length).fill(0), ...right];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}

/**
 * The IPv4 address an IPv6 address carries: mapped ::ffff:a.b.c.d, NAT64
 * 64:ff9b::/96, compatible ::a.b.c.d, 6to4 2002:AABB:CCDD::/48.
 */
function embeddedIpv4(address: string): string | undefined {
  const g = ipv6Groups(address);
  if (!g) return undefined;
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && g[5] === 0xffff) return v4(g[6], g[7]);
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return v4(g[6], g[7]);
  // ::a.b.c.d except :: and ::1 themselves, which the IPv6 list handles.
  if (zeros(0, 6) && g[6] !== 0) return v4(g[6], g[7]);
  if (g[0] === 0x2002) return v4(g[1], g[2]);
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

/** A BlockList of the allowed subnets, built once per option array. */
const allowLists = new WeakMap<string[], net.BlockList>();
function allowList(subnets: string[]): net.BlockList {
  let list = allowLists.get(subnets);
  if (!list) {
    list = new net.BlockList();
    for (const entry of subnets) {
      const [address, bits] = entry.trim().split('/');
      const family = net.isIP(address);
      if (!family) throw new FetchGuardError('invalid_url', `Allowed subnet ${entry} is not an IP address or subnet`);
      const type = family === 4 ? 'ipv4' : 'ipv6';
      const prefix = bits === undefined ? (family === 4 ? 32 : 128) : Number(bits);
      if (!Number.isInteger(prefix) || prefix < 0 || prefix > (family === 4 ? 32 : 128)) {
        throw new FetchGuardError('invalid_url', `Allowed subnet ${entry} has a bad prefix length`);
      }
      list.addSubnet(address, prefix, type);
    }
    allowLists.set(subnets, list);
  }
  return list;
}

/** Whether the options let the request reach this IP literal. */
function reachable(address: string, opts: Pick<GuardOptions, 'allowPrivate' | 'allowSubnets'>): boolean {
  if (opts.allowPrivate || isPublicAddress(address)) return true;
  if (!opts.allowSubnets?.length) return false;
  const list = allowList(opts.allowSubnets);
  const v4 = net.isIPv6(address) ? embeddedIpv4(address) : undefined;
  return v4 ? list.check(v4, 'ipv4') : list.check(address, net.isIPv4(address) ? 'ipv4' : 'ipv6');
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
export async function assertPublicUrl(raw: string, opts: Pick<GuardOptions, 'allowPrivate' | 'allowSubnets'> = {}): Promise<URL> {
  const url = parseUrl(raw);
  if (opts.allowPrivate) return url;
  const host = hostOf(url);
  if (net.isIP(host)) {
    if (!reachable(host, opts)) throw new FetchGuardError('blocked_address', `Address ${host} is not public`);
    return url;
  }
  let addresses: dns.LookupAddress[];
  try {
    addresses = await dns.promises.lookup(host, { all: true, verbatim: true });
  } catch {
    throw new FetchGuardError('dns', `Host ${host} cannot be resolved`);
  }
  const bad = addresses.find((a) => !reachable(a.address, opts));
  if (addresses.length === 0 || bad) throw new FetchGuardError('blocked_address', `Host ${host} resolves to a non-public address`);
  return url;
}

/** A DNS lookup for sockets that refuses non-public answers: the check sits on the address connected to. */
function guardedLookup(opts: Pick<GuardOptions, 'allowPrivate' | 'allowSubnets'>): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true, verbatim: true }, (err, addresses) => {
      if (err) return callback(err, '', 4);
      const list = addresses as unknown as dns.LookupAddress[];
      const usable = list.filter((a) => reachable(a.address, opts));
      if (usable.length === 0 || usable.length !== list.length) {
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
  if (net.isIP(host) && !reachable(host, opts)) {
    return Promise.reject(new FetchGuardError('blocked_address', `Address ${host} is not public`));
  }
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(
      url,
      {
        method: opts.method ?? 'GET',
        headers: { 'user-agent': 'saola', accept: '*/*', ...opts.headers },
        lookup: guardedLookup(opts),
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
