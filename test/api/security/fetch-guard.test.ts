/**
 * Outbound requests whose address a caller controls (image_url, callback_url)
 * and operator-set ones (credit sources): every non-public address form is
 * refused before anything is sent, after DNS, after redirects and at connect
 * time (DNS rebinding); timeouts and size caps hold. Test servers listen on
 * loopback only: 127.0.0.1 plays the protected internal host, 127.0.0.2 a host
 * the options explicitly allow (`allowSubnets`), standing in for "public".
 */
import assert from 'node:assert/strict';
import dns from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { HttpFeatureSource, SourceUnavailableError } from '../../../src/credit/sources/http.js';
import { assertPublicUrl, FetchGuardError, guardedFetch, isPublicAddress } from '../../../src/platform/fetch-guard.js';

const reason = (r: string) => (err: unknown) => {
  assert.ok(err instanceof FetchGuardError, String(err));
  assert.equal(err.reason, r, err.message);
  return true;
};

describe('isPublicAddress', () => {
  const notPublic = [
    '127.0.0.1',
    '127.255.255.254',
    '0.0.0.0',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '192.0.2.1',
    '198.18.0.1',
    '224.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '2001:db8::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:a9fe:a9fe',
    '0:0:0:0:0:ffff:7f00:0001',
    '64:ff9b::127.0.0.1',
    '64:ff9b::a00:1',
    '::127.0.0.1',
    '::7f00:1',
    '::a00:1',
    '2002:7f00:1::1',
    '2002:c0a8:101::',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    '::ffff:0:7f00:1',
    'localhost',
    'not an address',
    '',
  ];
  const isPublic = [
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '172.32.0.1',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ];
  it(`refuses ${notPublic.length} loopback, private, link-local, reserved and IPv6-wrapped forms`, () => {
    for (const a of notPublic) assert.equal(isPublicAddress(a), false, a);
  });
  it(`accepts ${isPublic.length} public unicast addresses`, () => {
    for (const a of isPublic) assert.equal(isPublicAddress(a), true, a);
  });
});

describe('assertPublicUrl', () => {
  it('refuses decimal, octal, hex, short and IPv6 spellings of internal addresses', async () => {
    const urls = [
      'http://2130706433/',
      'http://0177.0.0.1/',
      'http://0x7f.0.0.1/',
      'http://0x7f000001/',
      'http://127.1/',
      'http://0/',
      'http://017700000001/',
      'http://0xa9.0xfe.0xa9.0xfe/latest/meta-data/',
      'http://3232235777/',
      'http://[::1]:80/',
      'http://[::ffff:127.0.0.1]/',
      'http://[0:0:0:0:0:ffff:169.254.169.254]/',
      'http://[::127.0.0.1]/',
      'http://[fe80::1]/',
      'https://[64:ff9b::10.0.0.1]/',
      'http://127.0.0.1./',
      'HTTP://LOCALHOST/',
    ];
    for (const u of urls) await assert.rejects(assertPublicUrl(u), reason('blocked_address'), u);
  });
  it('refuses other schemes, credentials in the URL and garbage', async () => {
    for (const u of [
      'file:///etc/passwd',
      'gopher://127.0.0.1:6379/_INFO',
      'ftp://example.com/',
      'data:text/plain,hi',
      'javascript:alert(1)',
      'http://user:pw@example.com/',
      'not a url',
      'http://',
      '',
    ]) {
      await assert.rejects(assertPublicUrl(u), reason('invalid_url'), u);
    }
  });
  it('accepts a public literal without any lookup', async () => {
    assert.equal((await assertPublicUrl('https://8.8.8.8/x')).hostname, '8.8.8.8');
  });
  it('allowPrivate and allowSubnets open exactly what they name', async () => {
    await assertPublicUrl('http://127.0.0.1/', { allowPrivate: true });
    await assertPublicUrl('http://10.1.2.3/', { allowSubnets: ['10.1.0.0/16'] });
    await assertPublicUrl('http://[::ffff:10.1.2.3]/', { allowSubnets: ['10.1.0.0/16'] });
    await assert.rejects(assertPublicUrl('http://10.2.0.1/', { allowSubnets: ['10.1.0.0/16'] }), reason('blocked_address'));
    await assert.rejects(assertPublicUrl('http://127.0.0.1/', { allowSubnets: ['10.1.0.0/16'] }), reason('blocked_address'));
    await assert.rejects(assertPublicUrl('http://10.1.2.3/', { allowSubnets: ['10.1.0.0/99'] }), reason('invalid_url'));
  });
});

/** Names resolved by a table (the test's DNS); a name maps to a list of answers used in turn (the last one repeats). */
const answers = new Map<string, string[][]>();
const lookups: string[] = [];
const realLookup = dns.lookup;
const realPromisesLookup = dns.promises.lookup;
function fakeAnswer(hostname: string): dns.LookupAddress[] | undefined {
  const queue = answers.get(hostname);
  if (!queue) return undefined;
  lookups.push(hostname);
  const list = queue.length > 1 ? queue.shift()! : queue[0];
  return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
}

describe('guardedFetch against loopback servers', () => {
  let internal: http.Server;
  let allowedHost: http.Server;
  let port: number;
  const internalHits: string[] = [];
  const allowed = { allowSubnets: ['127.0.0.2'] };

  before(async () => {
    // The protected host: any request reaching it is a failure of the guard.
    internal = http.createServer((req, res) => {
      internalHits.push(req.url ?? '');
      res.end('secret');
    });
    await new Promise<void>((r) => internal.listen(0, '127.0.0.1', r));
    port = (internal.address() as AddressInfo).port;
    allowedHost = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/ok') return res.end('hello');
      if (url.pathname === '/redirect') {
        res.writeHead(Number(url.searchParams.get('status') ?? 302), { location: url.searchParams.get('to') ?? '/' });
        return res.end();
      }
      if (url.pathname === '/loop') {
        res.writeHead(302, { location: '/loop' });
        return res.end();
      }
      if (url.pathname === '/big') {
        res.writeHead(200, { 'content-length': String(10 << 20) });
        return res.end(Buffer.alloc(10 << 20));
      }
      if (url.pathname === '/big-chunked') {
        // No content-length: the cap must hold while streaming.
        res.writeHead(200);
        const chunk = Buffer.alloc(64 << 10, 'x');
        let sent = 0;
        const push = () => {
          while (sent < 200 && res.write(chunk)) sent++;
          if (sent < 200) res.once('drain', push);
          else res.end();
        };
        res.on('close', () => (sent = 200));
        return push();
      }
      if (url.pathname === '/slow-headers') return setTimeout(() => res.end('late'), 5_000).unref();
      if (url.pathname === '/slow-body') {
        res.writeHead(200);
        const timer = setInterval(() => res.write('.'), 50);
        res.on('close', () => clearInterval(timer));
        return;
      }
      res.statusCode = 404;
      res.end();
    });
    await new Promise<void>((r) => allowedHost.listen(port, '127.0.0.2', r));
    // The test's DNS: names in `answers` resolve from the table, every other name fails (no network here).
    (dns as { lookup: unknown }).lookup = ((hostname: string, options: unknown, callback: unknown) => {
      const cb = (typeof options === 'function' ? options : callback) as (e: Error | null, a?: unknown, f?: number) => void;
      const opts = (typeof options === 'object' && options) || {};
      const list = fakeAnswer(hostname);
      if (!list) return process.nextTick(() => cb(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' })));
      if ((opts as { all?: boolean }).all) return process.nextTick(() => cb(null, list));
      process.nextTick(() => cb(null, list[0].address, list[0].family));
    }) as typeof dns.lookup;
    (dns.promises as { lookup: unknown }).lookup = (async (hostname: string) => {
      const list = fakeAnswer(hostname);
      if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
      return list;
    }) as unknown as typeof dns.promises.lookup;
  });
  after(async () => {
    dns.lookup = realLookup;
    dns.promises.lookup = realPromisesLookup;
    internal.closeAllConnections();
    allowedHost.closeAllConnections();
    await Promise.all([new Promise((r) => internal.close(r)), new Promise((r) => allowedHost.close(r))]);
  });
  beforeEach(() => {
    answers.clear();
    lookups.length = 0;
  });

  const at = (host: string, path: string) => `http://${host}:${port}${path}`;

  it('fetches from an allowed host, and the internal host is only reached when allowPrivate is set', async () => {
    const res = await guardedFetch(at('127.0.0.2', '/ok'), allowed);
    assert.equal(res.status, 200);
    assert.equal(res.body.toString(), 'hello');
    await assert.rejects(guardedFetch(at('127.0.0.1', '/'), allowed), reason('blocked_address'));
    await assert.rejects(guardedFetch(at('127.0.0.1', '/')), reason('blocked_address'));
    assert.deepEqual(internalHits, []);
    assert.equal((await guardedFetch(at('127.0.0.1', '/x'), { allowPrivate: true })).body.toString(), 'secret');
    assert.deepEqual(internalHits.splice(0), ['/x']);
  });

  it('refuses a name resolving to a private address, or to a mix of public and private ones', async () => {
    answers.set('intranet.test', [['127.0.0.1']]);
    answers.set('mixed.test', [['127.0.0.2', '127.0.0.1']]);
    answers.set('v6.test', [['::ffff:127.0.0.1']]);
    for (const host of ['intranet.test', 'mixed.test', 'v6.test']) {
      await assert.rejects(guardedFetch(at(host, '/'), allowed), reason('blocked_address'), host);
    }
    await assert.rejects(guardedFetch(at('nowhere.test', '/'), allowed), reason('dns'));
    assert.deepEqual(internalHits, []);
  });

  it('follows redirects between allowed hosts and refuses one to an internal address, in every spelling', async () => {
    answers.set('public.test', [['127.0.0.2']]);
    const ok = await guardedFetch(at('127.0.0.2', `/redirect?to=${encodeURIComponent(at('public.test', '/ok'))}`), allowed);
    assert.equal(ok.body.toString(), 'hello');
    assert.equal(ok.url, at('public.test', '/ok'));
    answers.set('intranet.test', [['127.0.0.1']]);
    const targets = [at('127.0.0.1', '/'), at('2130706433', '/'), at('0x7f.1', '/'), at('[::ffff:127.0.0.1]', '/'), at('intranet.test', '/'), 'file:///etc/passwd'];
    for (const target of targets) {
      for (const status of [301, 302, 303, 307, 308]) {
        await assert.rejects(
          guardedFetch(at('127.0.0.2', `/redirect?status=${status}&to=${encodeURIComponent(target)}`), allowed),
          (err: unknown) => err instanceof FetchGuardError && ['blocked_address', 'invalid_url'].includes(err.reason),
          `${status} to ${target}`,
        );
      }
    }
    await assert.rejects(guardedFetch(at('127.0.0.2', '/loop'), { ...allowed, maxRedirects: 3 }), reason('too_many_redirects'));
    assert.deepEqual(internalHits, []);
  });

  it('refuses DNS rebinding: a name that resolves to an allowed address at the check and an internal one at connect', async () => {
    answers.set('rebind.test', [['127.0.0.2'], ['127.0.0.1']]);
    await assert.rejects(guardedFetch(at('rebind.test', '/'), allowed), reason('blocked_address'));
    assert.deepEqual(lookups, ['rebind.test', 'rebind.test'], 'checked once before and once at connect');
    assert.deepEqual(internalHits, []);
    // The control: a name that stays on the allowed address is fetched.
    answers.set('stable.test', [['127.0.0.2']]);
    assert.equal((await guardedFetch(at('stable.test', '/ok'), allowed)).body.toString(), 'hello');
  });

  it('caps the body by content-length and while streaming', async () => {
    await assert.rejects(guardedFetch(at('127.0.0.2', '/big'), { ...allowed, maxBytes: 1 << 20 }), reason('too_large'));
    const rssBefore = process.memoryUsage().rss;
    await assert.rejects(guardedFetch(at('127.0.0.2', '/big-chunked'), { ...allowed, maxBytes: 256 << 10 }), reason('too_large'));
    assert.ok(process.memoryUsage().rss - rssBefore < 64 << 20, 'the refused body was not buffered whole');
    assert.equal((await guardedFetch(at('127.0.0.2', '/ok'), { ...allowed, maxBytes: 5 })).body.toString(), 'hello');
  });

  it('gives up on slow headers and on a body that never ends, within the timeout', async () => {
    for (const path of ['/slow-headers', '/slow-body']) {
      const started = Date.now();
      await assert.rejects(guardedFetch(at('127.0.0.2', path), { ...allowed, timeoutMs: 300 }), reason('timeout'), path);
      const took = Date.now() - started;
      assert.ok(took >= 250 && took < 3_000, `${path}: ${took} ms`);
    }
  });
});

describe('credit HTTP sources (operator-set URL): size cap, timeout, no redirects', () => {
  let provider: http.Server;
  let base: string;
  before(async () => {
    provider = http.createServer((req, res) => {
      const phone = new URL(req.url ?? '/', 'http://x').searchParams.get('phone');
      if (phone === '84900000001') {
        // 20 MB of JSON-looking text, no content-length.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"features":{"a":"');
        const chunk = Buffer.alloc(1 << 20, 'x');
        let sent = 0;
        const push = () => {
          while (sent < 20 && res.write(chunk)) sent++;
          if (sent < 20) res.once('drain', push);
          else res.end('"}}');
        };
        res.on('close', () => (sent = 20));
        return push();
      }
      if (phone === '84900000002') return res.writeHead(302, { location: 'http://127.0.0.1:1/' }).end();
      if (phone === '84900000003') return setTimeout(() => res.end('{"features":{}}'), 3_000).unref();
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"features":{"tenure_days":12}}');
    });
    await new Promise<void>((r) => provider.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/features`;
  });
  after(async () => {
    provider.closeAllConnections();
    await new Promise((r) => provider.close(r));
  });

  it('reads a normal answer from a loopback provider, and refuses a huge, redirecting or slow one', async () => {
    const source = new HttpFeatureSource('beta', { url: base }, 500);
    const when = new Date('2026-01-01T00:00:00Z');
    assert.deepEqual(await source.features('app', '84900000000', when), { tenure_days: 12 });
    const rss = process.memoryUsage().rss;
    for (const phone of ['84900000001', '84900000002', '84900000003']) {
      const started = Date.now();
      await assert.rejects(source.features('app', phone, when), SourceUnavailableError, phone);
      assert.ok(Date.now() - started < 2_500, `${phone} took ${Date.now() - started} ms`);
    }
    assert.ok(process.memoryUsage().rss - rss < 64 << 20, 'the 20 MB answer was not buffered');
  });
});
