import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { call } from '../../support/http.js';
import { startTestApp, type TestApp } from '../../../fixtures/servers/app.js';

const PASSWORD = 'operator passphrase for tests';

function sessionCookie(headers: Headers): string {
  const set = headers.get('set-cookie') ?? '';
  const m = /saola_console=([^;]*)/.exec(set);
  assert.ok(m, `no session cookie in "${set}"`);
  return `saola_console=${m[1]}`;
}

describe('console API without SAOLA_ADMIN_PASSWORD', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  test('the page says how to turn it on and the API refuses everything', async () => {
    const status = await call(app.url, 'GET', '/console/api/status');
    assert.equal(status.body.enabled, false);
    assert.match(status.body.how_to_enable, /SAOLA_ADMIN_PASSWORD/);
    const login = await call(app.url, 'POST', '/console/api/login', { json: { password: '' } });
    assert.equal(login.status, 403);
    assert.equal(login.body.code, 'CONSOLE_DISABLED');
    for (const [method, path] of [
      ['GET', '/console/api/apps'],
      ['POST', '/console/api/apps'],
      ['GET', `/console/api/apps/${app.appCode}/usage`],
    ] as const) {
      const r = await call(app.url, method, path, { headers: { authorization: 'Bearer ' }, json: method === 'POST' ? { name: 'x' } : undefined });
      assert.equal(r.status, 403, `${method} ${path}`);
    }
    const page = await fetch(`${app.url}/console`);
    assert.equal(page.status, 200);
    // The page's own policy (the platform's strict one for API answers would stop its scripts): nothing from outside.
    const csp = page.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.doesNotMatch(csp, /sandbox|https?:|\*/);
  });
});

describe('console API with a password', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ env: { SAOLA_ADMIN_PASSWORD: PASSWORD, SAOLA_CONSOLE_MAX_FAILURES: '3' } });
  });
  after(() => app.close());

  test('sign-in sets an HttpOnly SameSite=Strict cookie; changes need the CSRF header; sign-out ends the session', async () => {
    assert.equal((await call(app.url, 'GET', '/console/api/apps')).status, 401);
    const login = await call(app.url, 'POST', '/console/api/login', { json: { password: PASSWORD } });
    assert.equal(login.status, 200, login.text);
    const setCookie = login.headers.get('set-cookie') ?? '';
    assert.match(setCookie, /HttpOnly/);
    assert.match(setCookie, /SameSite=Strict/);
    assert.match(setCookie, /Path=\/console/);
    assert.doesNotMatch(setCookie, /Secure/, 'plain http here: no Secure flag');
    const cookie = sessionCookie(login.headers);
    const csrf = login.body.csrf as string;
    assert.ok(csrf.length >= 20);

    const list = await call(app.url, 'GET', '/console/api/apps', { headers: { cookie } });
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.applications.map((a: { name: string }) => a.name),
      ['test-app'],
    );
    const status = await call(app.url, 'GET', '/console/api/status', { headers: { cookie } });
    assert.equal(status.body.signed_in, true);
    assert.equal(status.body.csrf, csrf);

    const forged = await call(app.url, 'POST', '/console/api/apps', { headers: { cookie }, json: { name: 'forged' } });
    assert.equal(forged.status, 403);
    assert.equal(forged.body.code, 'CSRF');
    const wrongToken = await call(app.url, 'POST', '/console/api/apps', { headers: { cookie, 'x-csrf-token': csrf + 'x' }, json: { name: 'forged' } });
    assert.equal(wrongToken.status, 403);
    const made = await call(app.url, 'POST', '/console/api/apps', { headers: { cookie, 'x-csrf-token': csrf }, json: { name: 'Shop' } });
    assert.equal(made.status, 201, made.text);
    assert.match(made.body.api_key, /^sk_/);
    // The key works on the public API at once.
    assert.equal((await call(app.url, 'GET', '/dmp/creditscoring/v1?phone=0912345678&dltype=1', { headers: { api_key: made.body.api_key } })).status, 200);

    const out = await call(app.url, 'POST', '/console/api/logout', { headers: { cookie, 'x-csrf-token': csrf } });
    assert.equal(out.status, 200);
    assert.equal((await call(app.url, 'GET', '/console/api/apps', { headers: { cookie } })).status, 401);
  });

  test('repeated wrong passwords lock the address out, with Retry-After, even for the right password', async () => {
    // The earlier test signed in successfully, which clears the count.
    for (let i = 0; i < 2; i++) assert.equal((await call(app.url, 'POST', '/console/api/login', { json: { password: 'guess' + i } })).status, 401);
    const third = await call(app.url, 'POST', '/console/api/login', { json: { password: 'guess3' } });
    assert.equal(third.status, 429);
    assert.equal(third.body.code, 'LOCKED_OUT');
    assert.ok(Number(third.headers.get('retry-after')) > 60);
    const right = await call(app.url, 'POST', '/console/api/login', { json: { password: PASSWORD } });
    assert.equal(right.status, 429, 'locked even with the right password');
    const script = await call(app.url, 'GET', '/console/api/apps', { headers: { authorization: `Bearer ${PASSWORD}` } });
    assert.equal(script.status, 429, 'the bearer form is locked too');
  });
});

describe('console API: applications, credentials, quotas, deletion', () => {
  let app: TestApp;
  const admin = { authorization: `Bearer ${PASSWORD}` };
  before(async () => {
    app = await startTestApp({ env: { SAOLA_ADMIN_PASSWORD: PASSWORD } });
  });
  after(() => app.close());

  test('rename, issue and revoke keys, and a deletion that says what it deletes and then deletes it', async () => {
    const made = await call(app.url, 'POST', '/console/api/apps', { headers: admin, json: { name: 'Bank' } });
    const code = made.body.application.app_code as string;
    assert.equal((await call(app.url, 'POST', '/console/api/apps', { headers: admin, json: { name: 'Bank' } })).status, 409);
    assert.equal((await call(app.url, 'POST', '/console/api/apps', { headers: admin, json: { name: '' } })).status, 400);

    const renamed = await call(app.url, 'PATCH', `/console/api/apps/${code}`, { headers: admin, json: { name: 'Bank two' } });
    assert.equal(renamed.body.application.name, 'Bank two');
    assert.equal((await call(app.url, 'PATCH', `/console/api/apps/${code}`, { headers: admin, json: { name: 'test-app' } })).status, 409);

    const key = await call(app.url, 'POST', `/console/api/apps/${code}/credentials`, { headers: admin, json: { kind: 'api_key' } });
    assert.equal(key.status, 201);
    assert.equal((await call(app.url, 'GET', '/dmp/creditscoring/v1?phone=0912345678&dltype=1', { headers: { api_key: key.body.secret } })).status, 200);
    const creds = await call(app.url, 'GET', `/console/api/apps/${code}/credentials`, { headers: admin });
    assert.equal(creds.body.credentials.length, 3);
    const used = creds.body.credentials.filter((c: { last_used_time: string | null }) => c.last_used_time !== null);
    assert.deepEqual(
      used.map((c: { id: string }) => c.id),
      [key.body.id],
      'only the key just used has a last use',
    );
    assert.ok(Date.now() - Date.parse(used[0].last_used_time) < 60_000);
    assert.ok(
      creds.body.credentials.every((c: Record<string, unknown>) => !('secret' in c) && !('secret_hash' in c)),
      'no secrets listed',
    );
    const revoke = await call(app.url, 'DELETE', `/console/api/credentials/${key.body.id}`, { headers: admin });
    assert.equal(revoke.status, 200);
    assert.equal((await call(app.url, 'GET', '/dmp/creditscoring/v1?phone=0912345678&dltype=1', { headers: { api_key: key.body.secret } })).status, 401);

    // Some records: NLU samples with the app's token, and a quota.
    for (const content of ['một', 'hai']) await call(app.url, 'POST', '/api/v3/sample', { token: made.body.token, json: { content } });
    const quota = await call(app.url, 'PUT', `/console/api/apps/${code}/quotas`, { headers: admin, json: { service: 'nlu', per_day: 1000 } });
    assert.deepEqual(
      quota.body.quotas.map((q: { service: string; per_minute: null; per_day: number }) => [q.service, q.per_minute, q.per_day]),
      [['nlu', null, 1000]],
    );
    assert.equal((await call(app.url, 'PUT', `/console/api/apps/${code}/quotas`, { headers: admin, json: { service: 'nlu', per_day: -1 } })).status, 400);
    assert.equal((await call(app.url, 'PUT', `/console/api/apps/${code}/quotas`, { headers: admin, json: { service: 'weather', per_day: 5 } })).status, 400);

    // The NLU history's masking and the reader's features arrangement, through the registry the services fill.
    const settings = await call(app.url, 'GET', `/console/api/apps/${code}/settings`, { headers: admin });
    assert.deepEqual(
      settings.body.settings.map((x: { key: string; on: boolean }) => [x.key, x.on]),
      [
        ['nlu.mask_history', false],
        ['reader.features', false],
      ],
    );
    const masked = await call(app.url, 'PUT', `/console/api/apps/${code}/settings`, { headers: admin, json: { key: 'nlu.mask_history', on: true } });
    assert.deepEqual(masked.body, { key: 'nlu.mask_history', on: true });
    const on = await call(app.url, 'PUT', `/console/api/apps/${code}/settings`, { headers: admin, json: { key: 'reader.features', on: true } });
    assert.deepEqual(on.body, { key: 'reader.features', on: true });
    assert.equal((await call(app.url, 'PUT', `/console/api/apps/${code}/settings`, { headers: admin, json: { key: 'nope', on: true } })).status, 400);
    assert.equal((await call(app.url, 'PUT', `/console/api/apps/${code}/settings`, { headers: admin, json: { key: 'reader.features', on: 'yes' } })).status, 400);

    const records = await call(app.url, 'GET', `/console/api/apps/${code}/records`, { headers: admin });
    assert.equal(records.body.records.nlu_samples, 2);
    assert.equal(records.body.records.credentials, 3);
    assert.equal(records.body.records.usage_quotas, 1);
    assert.equal(records.body.records.reader_app_settings, 1);
    assert.equal(records.body.records.nlu_history_settings, 1);
    assert.ok(records.body.records.usage_daily >= 1, 'usage rows are listed too');

    const gone = await call(app.url, 'DELETE', `/console/api/apps/${code}`, { headers: admin });
    assert.equal(gone.status, 200, gone.text);
    assert.equal(gone.body.deleted.nlu_samples, 2);
    assert.equal(gone.body.deleted.applications, 1);
    assert.equal((await call(app.url, 'GET', `/console/api/apps/${code}/records`, { headers: admin })).status, 404);
    assert.equal((await call(app.url, 'GET', '/api/v3/sample', { token: made.body.token })).status, 401);
    // The other application is untouched.
    assert.equal((await call(app.url, 'GET', '/api/v3/sample', { token: app.token })).status, 200);
  });

  test('unknown console paths answer 404 in JSON; the page is served for any other console path', async () => {
    const api = await call(app.url, 'GET', '/console/api/nothing', { headers: admin });
    assert.equal(api.status, 404);
    const asset = await call(app.url, 'GET', '/console/assets/../../package.json');
    assert.notEqual(asset.status, 200, asset.text.slice(0, 80));
    const page = await fetch(`${app.url}/console/apps/whatever`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<title>Saola console<\/title>/);
  });
});

describe('console API: the face match playground boxes', () => {
  let app: TestApp;
  const admin = { authorization: `Bearer ${PASSWORD}` };
  const photo = (name: string) => fs.readFileSync(path.resolve('test/fixtures/face', name));
  const faces = (image: Buffer, headers: Record<string, string> = admin) =>
    call(app.url, 'POST', '/console/api/playground/faces', { headers, json: { image_base64: `data:image/jpeg;base64,${image.toString('base64')}` } });
  before(async () => {
    app = await startTestApp({ env: { SAOLA_ADMIN_PASSWORD: PASSWORD } });
  });
  after(() => app.close());

  test("one portrait: the subject boxed around the face, in the photo's own pixels", async () => {
    const image = photo('grace_hopper.jpg');
    const meta = await sharp(image).metadata();
    const r = await faces(image);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.width, meta.width);
    assert.equal(r.body.height, meta.height);
    assert.equal(r.body.verdict, 'ok');
    assert.equal(r.body.rotation, 0);
    assert.deepEqual(r.body.others, []);
    const s = r.body.subject;
    assert.ok(s.x1 >= 0 && s.y1 >= 0 && s.x2 <= meta.width! && s.y2 <= meta.height!, JSON.stringify(s));
    // The face fills a good part of this portrait, in its upper middle.
    const w = s.x2 - s.x1;
    assert.ok(w > 0.25 * meta.width! && w < 0.9 * meta.width!, `face width ${w}`);
    assert.ok((s.y1 + s.y2) / 2 < 0.6 * meta.height!, 'face centre in the upper part');
    assert.ok(s.score > 0.5 && s.score <= 1);
  });

  test("the face search playground's collections: the active recogniser, and each collection's faces embedded by it", async () => {
    const { appCode, apiKey } = await app.newTenant('faces-console');
    const collections = (headers: Record<string, string> = admin, code = appCode) => call(app.url, 'GET', `/console/api/apps/${code}/face-collections`, { headers });
    const empty = await collections();
    assert.equal(empty.status, 200, empty.text);
    assert.deepEqual(empty.body, {
      recogniser: { name: 'faceplugin-fr_feature-512', embedding: 512, similarityMap: 'fr_feature-2026-11-v1', installed: ['faceplugin-fr_feature-512'] },
      collections: [],
    });
    const form = new FormData();
    form.append('collection', 'staff');
    form.append('id', 'grace');
    form.append('file', new Blob([new Uint8Array(photo('grace_hopper.jpg'))], { type: 'image/jpeg' }), 'g.jpg');
    const added = await fetch(`${app.url}/dmp/facesearch/v2/add`, { method: 'POST', headers: { api_key: apiKey }, body: form });
    assert.equal(((await added.json()) as { code: string }).code, '200');
    const created = new FormData();
    created.append('collection', 'staff');
    created.append('id', 'nobody-yet');
    created.append('name', 'No face yet');
    await fetch(`${app.url}/dmp/facesearch/v2/create`, { method: 'POST', headers: { api_key: apiKey }, body: created });
    const one = await collections();
    assert.deepEqual(one.body.collections, [
      {
        name: 'staff',
        recogniser: 'faceplugin-fr_feature-512',
        similarityMap: 'fr_feature-2026-11-v1',
        faces: 1,
        users: 2,
        withoutCrop: 0,
        notSearchable: 0,
        state: 'current',
      },
    ]);
    // Another application's collections are not listed; unknown applications and unsigned calls are refused.
    assert.deepEqual((await collections(admin, app.appCode)).body.collections, []);
    assert.equal((await collections(admin, 'no-such-app')).status, 404);
    assert.equal((await collections({})).status, 401);
  });

  test("a photo turned by 90 degrees: the box is turned with it (not left in the engine's upright view)", async () => {
    const image = photo('grace_hopper.jpg');
    const upright = (await faces(image)).body;
    const turned = await sharp(image).rotate(90).jpeg({ quality: 92 }).toBuffer();
    const r = await faces(turned);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.width, upright.height);
    assert.equal(r.body.height, upright.width);
    assert.notEqual(r.body.rotation, 0, 'the engine turned the photo to find the face');
    // Turning clockwise maps (x, y) to (H - y, x).
    const u = upright.subject;
    const expected = { x1: upright.height - u.y2, y1: u.x1, x2: upright.height - u.y1, y2: u.x2 };
    const tolerance = 0.1 * (u.x2 - u.x1);
    for (const k of ['x1', 'y1', 'x2', 'y2'] as const) {
      assert.ok(Math.abs(r.body.subject[k] - expected[k]) < tolerance, `${k}: ${r.body.subject[k]} vs ${expected[k]}`);
    }
  });

  test('a group photo: one subject and the other faces, none overlapping it', async () => {
    const image = photo('group.jpg');
    const r = await faces(image);
    assert.equal(r.status, 200, r.text);
    assert.ok(r.body.subject, 'a subject');
    assert.ok(r.body.others.length >= 1, `other faces: ${JSON.stringify(r.body.others)}`);
    const s = r.body.subject;
    for (const o of r.body.others) assert.ok(o.x2 <= s.x1 || o.x1 >= s.x2 || o.y2 <= s.y1 || o.y1 >= s.y2, 'another face is a different place');
    for (const x of r.body.rejected) assert.equal(typeof x.reason, 'string');
  });

  test("bad input is refused in the console's shape; a session needs the CSRF header", async () => {
    const notImage = await faces(Buffer.from('this is not a photo at all, just text'));
    assert.equal(notImage.status, 400);
    assert.equal(notImage.body.code, 'INVALID_REQUEST');
    const missing = await call(app.url, 'POST', '/console/api/playground/faces', { headers: admin, json: {} });
    assert.equal(missing.status, 400);
    assert.equal((await faces(photo('grace_hopper.jpg'), {})).status, 401);
    const login = await call(app.url, 'POST', '/console/api/login', { json: { password: PASSWORD } });
    const cookie = sessionCookie(login.headers);
    assert.equal((await faces(photo('grace_hopper.jpg'), { cookie })).status, 403);
    const ok = await faces(photo('grace_hopper.jpg'), { cookie, 'x-csrf-token': login.body.csrf });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.verdict, 'ok');
  });
});
