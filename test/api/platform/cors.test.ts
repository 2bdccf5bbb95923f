/**
 * Browser access: closed by default (a preflight answers 405 with no CORS
 * header); an application's origins, set through the API or the console,
 * open preflights for them and the answers to that application's key; a
 * disallowed origin, another application's key or the console gets no CORS
 * header.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call } from '../../support/http.js';
import { startTestApp, type TestApp, type Tenant } from '../../../fixtures/servers/app.js';

const PASSWORD = 'operator passphrase for CORS';
const SHOP = 'https://shop.example';
const OTHER = 'https://elsewhere.example';

describe('CORS per application', () => {
  let app: TestApp;
  let stranger: Tenant;
  const preflight = (path: string, origin: string, method = 'POST') =>
    fetch(app.url + path, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'api-key, device-type' } });
  const initFrom = (origin: string, key: string) => fetch(`${app.url}/session/init`, { method: 'POST', headers: { origin, 'api-key': key, 'device-type': 'web-sdk' } });
  const corsHeaders = (res: Response) => [...res.headers.keys()].filter((k) => k.startsWith('access-control-'));

  before(async () => {
    app = await startTestApp({ env: { SAOLA_ADMIN_PASSWORD: PASSWORD } });
    stranger = await app.newTenant('cors-stranger');
  });
  after(async () => app?.close());

  it('nothing is open by default', async () => {
    const pre = await preflight('/session/init', SHOP);
    assert.equal(pre.status, 405);
    assert.deepEqual(corsHeaders(pre), []);
    const res = await initFrom(SHOP, app.apiKey);
    assert.equal(res.status, 200);
    assert.deepEqual(corsHeaders(res), []);
  });

  it("an application's origins, set with its key: preflight answered, its answers readable from them only", async () => {
    const put = await call(app.url, 'PUT', '/session/settings', { headers: { 'api-key': app.apiKey }, json: { allowed_origins: [SHOP, 'http://localhost:5173/'] } });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.body.allowed_origins, ['http://localhost:5173', SHOP]);

    const pre = await preflight('/session/init', SHOP);
    assert.equal(pre.status, 204);
    assert.equal(pre.headers.get('access-control-allow-origin'), SHOP);
    assert.equal(pre.headers.get('access-control-allow-methods'), 'POST');
    assert.equal(pre.headers.get('access-control-allow-headers'), 'api-key, device-type');
    assert.match(pre.headers.get('vary') ?? '', /Origin/);
    // A method the path does not have, an origin nobody allows: not answered.
    assert.equal((await preflight('/session/init', SHOP, 'DELETE')).status, 405);
    const elsewhere = await preflight('/session/init', OTHER);
    assert.equal(elsewhere.status, 405);
    assert.deepEqual(corsHeaders(elsewhere), []);
    // A preflight naming a key is answered for that key's application only.
    const withKey = await fetch(`${app.url}/session/init?api_key=${stranger.apiKey}`, {
      method: 'OPTIONS',
      headers: { origin: SHOP, 'access-control-request-method': 'POST' },
    });
    assert.deepEqual(corsHeaders(withKey), []);

    const ok = await initFrom(SHOP, app.apiKey);
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('access-control-allow-origin'), SHOP);
    assert.match(ok.headers.get('access-control-expose-headers') ?? '', /x-request-id/);
    assert.deepEqual(corsHeaders(await initFrom(OTHER, app.apiKey)), []);
    // Another application's key, a wrong key: no CORS header on its answers.
    assert.deepEqual(corsHeaders(await initFrom(SHOP, stranger.apiKey)), []);
    const refused = await initFrom(SHOP, 'sk_wrong');
    assert.equal(refused.status, 401);
    assert.deepEqual(corsHeaders(refused), []);
    // Every service of the platform, not the eKYC flow only.
    const cmt = await fetch(`${app.url}/cmt`, { method: 'POST', headers: { origin: SHOP, api_key: app.apiKey } });
    assert.equal(cmt.headers.get('access-control-allow-origin'), SHOP);
  });

  it('the console never answers cross-origin; it edits the origins; an empty list closes them', async () => {
    const login = await call(app.url, 'POST', '/console/api/login', { json: { password: PASSWORD } });
    const cookie = /saola_console=[^;]*/.exec(login.headers.get('set-cookie') ?? '')![0];
    const headers = { cookie, 'x-csrf-token': login.body.csrf as string };
    assert.deepEqual(corsHeaders(await preflight('/console/api/apps', SHOP, 'GET')), []);
    const apps = await fetch(`${app.url}/console/api/apps`, { headers: { ...headers, origin: SHOP } });
    assert.equal(apps.status, 200);
    assert.deepEqual(corsHeaders(apps), []);

    const path = `/console/api/apps/${stranger.appCode}/origins`;
    assert.deepEqual((await call(app.url, 'GET', path, { headers })).body, { allowed_origins: [] });
    const wrong = await call(app.url, 'PUT', path, { headers, json: { allowed_origins: ['ftp://files.example'] } });
    assert.equal(wrong.status, 400);
    assert.match(wrong.body.message, /ftp:\/\/files\.example/);
    const saved = await call(app.url, 'PUT', path, { headers, json: { allowed_origins: [OTHER] } });
    assert.deepEqual(saved.body, { allowed_origins: [OTHER] });
    assert.equal((await initFrom(OTHER, stranger.apiKey)).headers.get('access-control-allow-origin'), OTHER);
    assert.deepEqual(corsHeaders(await initFrom(OTHER, app.apiKey)), []);

    assert.deepEqual((await call(app.url, 'PUT', path, { headers, json: { allowed_origins: [] } })).body, { allowed_origins: [] });
    assert.deepEqual(corsHeaders(await initFrom(OTHER, stranger.apiKey)), []);
    assert.equal((await preflight('/session/init', OTHER)).status, 405);
  });
});
