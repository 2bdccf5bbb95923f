/**
 * Headers and leaks on every endpoint of the route table: security headers on
 * every answer (success, refusal, not-found, method-not-allowed), no stack
 * trace, source path or internal error name in any body. (An answer given
 * before the upload was read closes its connection: test/api/security/fuzz.test.ts
 * checks that the server still shuts down at once after its hostile uploads.)
 * The console's page keeps its own policy (its scripts from this server, nothing
 * from outside); everything else that is not the API reference gets the strict one.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../../../fixtures/servers/app.js';
import { endpoints, fill, isConsoleApi } from '../../support/security/routes.js';

const PASSWORD = 'headers suite operator passphrase';
let t: TestApp;
before(async () => {
  // The console on, so its API answers past the sign-in too; no lock-out from the empty sign-ins below.
  t = await startTestApp({ env: { SAOLA_ADMIN_PASSWORD: PASSWORD, SAOLA_CONSOLE_MAX_FAILURES: '1000' } });
});
after(() => t.close());

const LEAK = /\bat [\w.<>]+ \(|node:internal|\/work\/|\/home\/|\/tmp\/|node_modules|\.ts:\d+|\.js:\d+|\bTypeError\b|\bReferenceError\b|SQLITE_|"stack"/;

/** The console page's own policy: deny by default, scripts only from this server, nothing from outside, no framing. */
function checkConsolePolicy(where: string, csp: string) {
  assert.match(csp, /(^|; )default-src 'none'(;|$)/, `${where}: ${csp}`);
  assert.match(csp, /(^|; )script-src 'self'(;|$)/, `${where}: scripts only from this server (${csp})`);
  assert.match(csp, /frame-ancestors 'none'/, `${where}: ${csp}`);
  assert.match(csp, /base-uri 'none'/, `${where}: ${csp}`);
  assert.doesNotMatch(csp, /unsafe-eval|https?:|\*/, `${where}: nothing from outside (${csp})`);
}

/** The console's page (not its API): a text/html answer under /console. */
const consolePage = (path: string, type: string) => /^\/console(\/|$)/.test(path) && !path.startsWith('/console/api') && type.startsWith('text/html');

function checkHeaders(where: string, h: Headers, docs: boolean, path = '') {
  assert.equal(h.get('x-content-type-options'), 'nosniff', where);
  assert.equal(h.get('x-frame-options'), 'DENY', where);
  assert.equal(h.get('referrer-policy'), 'no-referrer', where);
  assert.ok(h.get('x-request-id'), where);
  assert.equal(h.get('x-powered-by'), null, where);
  assert.equal(h.get('server'), null, where);
  if (!docs) {
    assert.ok(h.get('cache-control'), `${where}: cache-control`);
    const type = h.get('content-type') ?? '';
    if (consolePage(path, type)) checkConsolePolicy(where, h.get('content-security-policy') ?? '');
    else if (!/^(audio|image)\//.test(type)) assert.match(h.get('content-security-policy') ?? '', /default-src 'none'/, where);
  }
}

describe('headers and leaks', () => {
  it('every endpoint, with and without credentials, answers with the security headers and no internals', async () => {
    let cases = 0;
    for (const e of endpoints(t.app)) {
      const docs = e.url.startsWith('/docs');
      const auth = e.url.startsWith('/api/v3')
        ? { authorization: `Bearer ${t.token}` }
        : isConsoleApi(e)
          ? { authorization: `Bearer ${PASSWORD}` }
          : { api_key: t.apiKey };
      for (const headers of [{}, auth]) {
        for (const body of [undefined, '{"x":', '{}']) {
          if (body !== undefined && ['GET', 'HEAD'].includes(e.method)) continue;
          const path = fill(e.url, () => 'no-such-thing');
          const res = await fetch(t.url + path, {
            method: e.method,
            headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
            body,
          });
          const text = await res.text();
          const where = `${e.method} ${e.url} (${Object.keys(headers).join() || 'no credentials'}, body ${body ?? 'none'}): ${res.status}`;
          // 503 is the ASR service's answer while no recognition model is installed (its spec).
          assert.ok(res.status < 500 || (res.status === 503 && e.url === '/hmi/asr/general'), `${where} ${text.slice(0, 200)}`);
          checkHeaders(where, res.headers, docs, path);
          if (!docs) assert.ok(!LEAK.test(text), `${where} leaks ${text.match(LEAK)?.[0]}: ${text.slice(0, 200)}`);
          cases++;
        }
      }
    }
    // Unknown routes and wrong methods, in each service's space.
    for (const [method, path] of [
      ['GET', '/nothing'],
      ['PATCH', '/api/v3/sample'],
      ['GET', '/cmt'],
      ['PUT', '/hmi/tts/v5'],
      ['GET', '/dmp/facesearch/v2/nothing'],
      ['OPTIONS', '/api/v3/sample'],
      ['GET', '/console/api/nothing'],
      ['PUT', '/dmp/liveness/v3'],
      ['GET', '/vision/passport/vnm'],
    ] as const) {
      const res = await fetch(t.url + path, { method });
      const text = await res.text();
      assert.ok([401, 404, 405].includes(res.status), `${method} ${path}: ${res.status}`);
      checkHeaders(`${method} ${path}`, res.headers, false);
      assert.ok(!LEAK.test(text));
      cases++;
    }
    console.log(`# headers: ${endpoints(t.app).length} routes, ${cases} answers checked`);
    assert.ok(cases > 150, `${cases} cases`);
  });

  it("the console's page and files keep the console's own policy and the other headers; its API the strict one", async () => {
    const page = await fetch(`${t.url}/console`);
    const html = await page.text();
    assert.equal(page.status, 200);
    checkHeaders('GET /console', page.headers, false, '/console');
    assert.equal(page.headers.get('cache-control'), 'no-store');
    // Every script and style the page names is served from /console, with the strict headers of a file.
    const assets = [...html.matchAll(/(?:src|href)="(\/console\/[^"]+)"/g)].map((m) => m[1]);
    for (const asset of assets) {
      const res = await fetch(t.url + asset);
      await res.arrayBuffer();
      assert.equal(res.status, 200, asset);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff', asset);
      assert.doesNotMatch(res.headers.get('content-type') ?? '', /text\/html/, asset);
    }
    const deep = await fetch(`${t.url}/console/apps/x`);
    await deep.arrayBuffer();
    checkHeaders('GET /console/apps/x', deep.headers, false, '/console/apps/x');
    const api = await fetch(`${t.url}/console/api/apps`, { headers: { authorization: `Bearer ${PASSWORD}` } });
    await api.arrayBuffer();
    assert.equal(api.status, 200);
    assert.match(api.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    console.log(`# headers: the console page and ${assets.length} of its files`);
  });
});
