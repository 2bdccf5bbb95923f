/**
 * Authentication on every endpoint of the route table: a request with no,
 * wrong, revoked (key or whole application), malformed or wrong-kind
 * credentials gets 401 in the service's own shape and never reaches the
 * handler; endpoints that answer strangers are exactly the listed public ones.
 * The console's admin API takes the operator's password or session instead:
 * an application's key or token, a wrong password, a forged or signed-out
 * session all get 401 in the console's own shape.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type Tenant, type TestApp } from '../../../fixtures/servers/app.js';
import { endpoints, fill, isConsoleApi, isPublic, PUBLIC, type Endpoint } from '../../support/security/routes.js';

const PASSWORD = 'security suite operator passphrase';
let t: TestApp;
let revokedKey: Tenant;
let revokedApp: Tenant;
/** A console session that signed out: its cookie must not work any more. */
let signedOutCookie = '';

before(async () => {
  // The console on, and its lock-out far enough away that the wrong passwords below are all answered 401.
  t = await startTestApp({ env: { SAOLA_ADMIN_PASSWORD: PASSWORD, SAOLA_CONSOLE_MAX_FAILURES: '1000' } });
  revokedKey = await t.newTenant('revoked-key');
  await t.deps.credentials.revokeCredential(revokedKey.apiKey);
  await t.deps.credentials.revokeCredential(revokedKey.token);
  revokedApp = await t.newTenant('revoked-app');
  await t.deps.credentials.revokeApp(revokedApp.appCode);
  const login = await fetch(`${t.url}/console/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ password: PASSWORD }),
  });
  assert.equal(login.status, 200);
  const { csrf } = (await login.json()) as { csrf: string };
  signedOutCookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
  assert.match(signedOutCookie, /^saola_console=./);
  const logout = await fetch(`${t.url}/console/api/logout`, {
    method: 'POST',
    headers: { cookie: signedOutCookie, 'x-csrf-token': csrf, 'content-type': 'application/json' },
    body: '{}',
  });
  assert.equal(logout.status, 200);
});
after(() => t.close());

/**
 * The eKYC flow's document and selfie steps refuse a missing or wrong api-key the way the integration
 * guide's tables say: HTTP 200 with code 400 in the body (docs/ekyc.md).
 */
const GUIDE_REFUSALS: Record<string, { field: string; code: string }> = {
  'POST /ocr': { field: 'errorCode', code: '400' },
  'POST /face/liveness': { field: 'code', code: '400' },
};
const refusalStatus = (e: Endpoint) => (`${e.method} ${e.url}` in GUIDE_REFUSALS ? 200 : 401);

/** Where a service takes its credential: the NLU service a bearer token, the others an api_key. */
const usesBearer = (e: Endpoint) => e.url.startsWith('/api/v3');

interface Attempt {
  name: string;
  headers: Record<string, string>;
  query?: string;
}

function attempts(e: Endpoint): Attempt[] {
  const sk = 'sk_' + 'A'.repeat(43);
  if (isConsoleApi(e)) {
    return [
      { name: 'no session', headers: {} },
      { name: "an application's api_key", headers: { api_key: t.apiKey } },
      { name: "an application's api_key in the query", headers: {}, query: `api_key=${encodeURIComponent(t.apiKey)}` },
      { name: "an application's bearer token", headers: { authorization: `Bearer ${t.token}` } },
      { name: "an application's api_key as a bearer", headers: { authorization: `Bearer ${t.apiKey}` } },
      { name: "an application's api_key as the session cookie", headers: { cookie: `saola_console=${t.apiKey}` } },
      { name: 'a made-up session cookie', headers: { cookie: `saola_console=${'a'.repeat(43)}` } },
      { name: 'a signed-out session', headers: { cookie: signedOutCookie } },
      { name: 'the password as an api_key', headers: { api_key: PASSWORD } },
      { name: 'the password as a cookie', headers: { cookie: `saola_console=${encodeURIComponent(PASSWORD)}` } },
      { name: 'the password in another scheme', headers: { authorization: `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}` } },
      { name: 'a wrong password', headers: { authorization: 'Bearer wrong passphrase' } },
      { name: 'the password with a character changed', headers: { authorization: `Bearer ${PASSWORD.slice(0, -1)}X` } },
      { name: 'the password cut short', headers: { authorization: `Bearer ${PASSWORD.slice(0, 10)}` } },
      { name: 'Bearer with nothing after it', headers: { authorization: 'Bearer ' } },
      { name: 'a 10 kB password', headers: { authorization: `Bearer ${'p'.repeat(10_000)}` } },
    ];
  }
  if (usesBearer(e)) {
    return [
      { name: 'no token', headers: {} },
      { name: 'a wrong token', headers: { authorization: `Bearer st_${'A'.repeat(43)}` } },
      { name: 'a revoked token', headers: { authorization: `Bearer ${revokedKey.token}` } },
      { name: 'a revoked application', headers: { authorization: `Bearer ${revokedApp.token}` } },
      { name: 'an API key as the token', headers: { authorization: `Bearer ${t.apiKey}` } },
      { name: 'the token as an api_key header', headers: { api_key: t.token } },
      { name: 'Bearer with nothing after it', headers: { authorization: 'Bearer ' } },
      { name: 'another scheme', headers: { authorization: `Basic ${Buffer.from(`x:${t.token}`).toString('base64')}` } },
      { name: 'two tokens', headers: { authorization: `Bearer ${t.token} ${t.token}` } },
      { name: 'a 10 kB token', headers: { authorization: `Bearer ${'x'.repeat(10_000)}` } },
      { name: 'the token with a character changed', headers: { authorization: `Bearer ${t.token.slice(0, -1)}${t.token.endsWith('A') ? 'B' : 'A'}` } },
      { name: 'the token cut short', headers: { authorization: `Bearer ${t.token.slice(0, 20)}` } },
      { name: 'a SQL-looking token', headers: { authorization: "Bearer ' OR '1'='1" } },
    ];
  }
  return [
    { name: 'no key', headers: {} },
    { name: 'a wrong key', headers: { api_key: sk } },
    { name: 'a revoked key', headers: { api_key: revokedKey.apiKey } },
    { name: 'a revoked application', headers: { api_key: revokedApp.apiKey } },
    { name: 'a revoked key in the query', headers: {}, query: `api_key=${encodeURIComponent(revokedKey.apiKey)}` },
    { name: 'a bearer token as the key', headers: { api_key: t.token } },
    { name: 'the key as a bearer token', headers: { authorization: `Bearer ${t.apiKey}` } },
    { name: 'an empty key', headers: { api_key: '' } },
    { name: 'a blank key', headers: { api_key: '   ' } },
    { name: 'a 10 kB key', headers: { api_key: 'k'.repeat(10_000) } },
    { name: 'the key with a character changed', headers: { api_key: `${t.apiKey.slice(0, -1)}${t.apiKey.endsWith('A') ? 'B' : 'A'}` } },
    { name: 'the key cut short', headers: { api_key: t.apiKey.slice(0, 20) } },
    { name: 'the key with a suffix', headers: { api_key: `${t.apiKey}x` } },
    { name: 'a SQL-looking key', headers: { 'api-key': "' OR '1'='1" } },
    { name: 'an empty key in the query', headers: {}, query: 'api_key=' },
  ];
}

function request(e: Endpoint, a: Attempt) {
  const path = fill(e.url);
  const hasBody = !['GET', 'HEAD', 'DELETE'].includes(e.method);
  return fetch(`${t.url}${path}${a.query ? `?${a.query}` : ''}`, {
    method: e.method,
    headers: { ...a.headers, ...(hasBody ? { 'content-type': 'application/json' } : {}) },
    body: hasBody ? '{}' : undefined,
  });
}

describe('authentication on every endpoint', () => {
  it('the route table is walked, and the public endpoints are only the listed ones', async () => {
    const all = endpoints(t.app);
    assert.ok(all.length >= 40, `${all.length} endpoints`);
    const publicOnes = all.filter(isPublic).map((e) => `${e.method} ${e.url}`);
    for (const e of all.filter((x) => !isPublic(x))) {
      const res = await request(e, { name: 'none', headers: {} });
      await res.arrayBuffer();
      assert.equal(res.status, refusalStatus(e), `${e.method} ${e.url} answers ${res.status} without credentials; if that is meant, list it in PUBLIC with the reason`);
    }
    for (const key of publicOnes) assert.ok(PUBLIC[key]);
  });

  it('refuses missing, wrong, revoked, malformed and wrong-kind credentials with 401 in the service shape', async () => {
    let cases = 0;
    for (const e of endpoints(t.app).filter((x) => !isPublic(x))) {
      for (const a of attempts(e)) {
        const res = await request(e, a);
        const text = await res.text();
        const where = `${e.method} ${e.url} with ${a.name}: ${res.status} ${text.slice(0, 200)}`;
        assert.equal(res.status, refusalStatus(e), where);
        assert.match(res.headers.get('content-type') ?? '', /application\/json/, where);
        const body = JSON.parse(text) as Record<string, unknown>;
        assert.ok(Object.keys(body).length > 0, where);
        const guide = GUIDE_REFUSALS[`${e.method} ${e.url}`];
        if (guide) assert.equal(body[guide.field], guide.code, where);
        if (isConsoleApi(e)) {
          // The console's own shape, naming why.
          assert.equal(body.statusCode, 401, where);
          assert.equal(typeof body.error, 'string', where);
          assert.ok(body.code === 'SIGNED_OUT' || body.code === 'WRONG_PASSWORD', where);
          assert.equal(typeof body.message, 'string', where);
        }
        // The answer never repeats the secret that was sent.
        for (const secret of [t.apiKey, t.token, revokedKey.apiKey, revokedKey.token, revokedApp.apiKey, PASSWORD]) assert.ok(!text.includes(secret), where);
        cases++;
      }
    }
    const protectedOnes = endpoints(t.app).filter((x) => !isPublic(x));
    console.log(`# auth: ${protectedOnes.length} protected endpoints (${protectedOnes.filter(isConsoleApi).length} of the console API), ${cases} credential cases`);
    assert.ok(cases > 500, `${cases} cases`);
  });

  it('the same endpoints accept the valid credential (the refusals above are about the credential)', async () => {
    // A sample of one read endpoint per service: a valid credential gets past authentication.
    const reads: [string, Record<string, string>][] = [
      ['/api/v3/entity', { authorization: `Bearer ${t.token}` }],
      ['/hmi/tts/v5/status/nope', { api_key: t.apiKey }],
    ];
    for (const [path, headers] of reads) {
      const res = await fetch(t.url + path, { headers });
      await res.arrayBuffer();
      assert.notEqual(res.status, 401, path);
    }
    // The recognition endpoints merged later take the api_key like the others: an empty body is refused for what it is, not for the key.
    for (const path of ['/dmp/checklive/v2', '/dmp/liveness/v3', '/vision/dlr/vnm', '/vision/passport/vnm']) {
      const res = await fetch(t.url + path, { method: 'POST', headers: { api_key: t.apiKey, 'content-type': 'application/json' }, body: '{}' });
      const text = await res.text();
      assert.notEqual(res.status, 401, `${path}: ${text.slice(0, 200)}`);
    }
    // The console API takes the operator's password, or the session it signs in.
    assert.equal((await fetch(`${t.url}/console/api/apps`, { headers: { authorization: `Bearer ${PASSWORD}` } })).status, 200);
    const login = await fetch(`${t.url}/console/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ password: PASSWORD }),
    });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
    const apps = await fetch(`${t.url}/console/api/apps`, { headers: { cookie } });
    assert.equal(apps.status, 200);
    assert.ok(((await apps.json()) as { applications: { app_code: string }[] }).applications.some((x) => x.app_code === t.appCode));
  });

  it('keys and tokens are stored hashed: no secret appears in the credentials table', async () => {
    const rows = await t.deps.store.db.selectFrom('credentials').selectAll().execute();
    const dump = JSON.stringify(rows);
    for (const secret of [t.apiKey, t.token, revokedKey.apiKey, revokedApp.token]) {
      assert.ok(!dump.includes(secret), 'secret stored in clear');
      assert.ok(!dump.includes(secret.slice(12)), 'secret tail stored');
    }
  });
});
