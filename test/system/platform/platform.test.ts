import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { migrations } from '../../../src/services.js';
import { AuthAdminError, Credentials, hashSecret } from '../../../src/platform/auth/credentials.js';
import { ConfigError, loadConfig } from '../../../src/platform/config.js';
import { migrateToLatest, type Store } from '../../../src/platform/db/database.js';
import { startTestApp, type TestApp } from '../../../fixtures/servers/app.js';
import { runSaola } from '../../../fixtures/servers/saola-process.js';
import { call } from '../../support/http.js';
import { useMigratedStore } from '../../support/store.js';


describe('configuration', () => {
  test('defaults work on a fresh machine', () => {
    const config = loadConfig({});
    assert.equal(config.port, 8000);
    assert.equal(config.dataDir, path.resolve('./data'));
    assert.equal(config.databaseUrl, `sqlite:${path.resolve('./data/saola.db')}`);
    assert.equal(config.publicUrl, 'http://127.0.0.1:8000');
    assert.ok(config.poolThreads >= 1);
  });

  test('settings are read from SAOLA_* variables', () => {
    const config = loadConfig({
      SAOLA_PORT: '9001',
      SAOLA_DATA_DIR: '/tmp/x',
      SAOLA_PUBLIC_URL: 'https://saola.example.vn/',
      SAOLA_DATABASE_URL: 'postgres://u:p@db:5432/saola',
    });
    assert.equal(config.port, 9001);
    assert.equal(config.dataDir, '/tmp/x');
    assert.equal(config.publicUrl, 'https://saola.example.vn', 'trailing slash removed');
    assert.equal(config.databaseUrl, 'postgres://u:p@db:5432/saola');
  });

  test('invalid values are refused with the variable named', () => {
    assert.throws(
      () => loadConfig({ SAOLA_PORT: 'eighty' }),
      (e: unknown) => e instanceof ConfigError && /SAOLA_PORT/.test(e.message),
    );
    assert.throws(() => loadConfig({ SAOLA_PORT: '70000' }), ConfigError);
    assert.throws(() => loadConfig({ SAOLA_DATABASE_URL: 'mysql://x' }), /SAOLA_DATABASE_URL/);
    assert.throws(() => loadConfig({ SAOLA_PUBLIC_URL: 'not a url' }), /SAOLA_PUBLIC_URL/);
    assert.throws(() => loadConfig({ SAOLA_LOG_LEVEL: 'loud' }), /SAOLA_LOG_LEVEL/);
    assert.throws(() => loadConfig({ SAOLA_RUN_WORKERS: 'maybe' }), /SAOLA_RUN_WORKERS/);
  });
});

/** The credential store suite, run on both engines. */
function credentialSuite(engine: 'sqlite' | 'postgres') {
  describe(`applications and credentials on ${engine}`, () => {
    const current = useMigratedStore(engine, 'saola-cred-');
    let store: Store;
    before(() => {
      store = current();
    });

    test('migrations are idempotent', async () => {
      assert.deepEqual(await migrateToLatest(store, migrations), []);
    });

    test('secrets are stored only as hashes and authenticate their own kind', async () => {
      const credentials = new Credentials(store, 0);
      const app = await credentials.createApp('bank-a');
      const key = await credentials.issue('bank-a', 'api_key');
      const token = await credentials.issue(app.app_code, 'token');
      const rows = await store.db.selectFrom('credentials').selectAll().where('app_code', '=', app.app_code).execute();
      assert.equal(rows.length, 2);
      for (const row of rows) {
        assert.ok(![key.secret, token.secret].includes(row.secret_hash));
        assert.ok(!JSON.stringify(row).includes(key.secret.slice(12)), 'no part of the secret beyond its prefix is stored');
      }
      assert.equal(rows.find((r) => r.kind === 'api_key')?.secret_hash, hashSecret(key.secret));
      assert.equal(await credentials.authenticate(key.secret, 'api_key'), app.app_code);
      assert.equal(await credentials.authenticate(token.secret, 'token'), app.app_code);
      assert.equal(await credentials.authenticate(key.secret, 'token'), null, 'a key is not a token');
      assert.equal(await credentials.authenticate('sk_guess', 'api_key'), null);
    });

    test('revoking a key, and revoking an application, cut access', async () => {
      const credentials = new Credentials(store, 60);
      const app = await credentials.createApp('bank-b');
      const k1 = await credentials.issue(app.app_code, 'api_key');
      const k2 = await credentials.issue(app.app_code, 'api_key');
      assert.equal(await credentials.authenticate(k1.secret, 'api_key'), app.app_code);
      await credentials.revokeCredential(k1.id);
      assert.equal(await credentials.authenticate(k1.secret, 'api_key'), null, 'revocation clears the cache');
      assert.equal(await credentials.authenticate(k2.secret, 'api_key'), app.app_code);
      await credentials.revokeCredential(k2.secret);
      assert.equal(await credentials.authenticate(k2.secret, 'api_key'), null, 'revocable by the secret too');
      const k3 = await credentials.issue(app.app_code, 'token');
      await credentials.revokeApp('bank-b');
      assert.equal(await credentials.authenticate(k3.secret, 'token'), null);
      await assert.rejects(credentials.issue('bank-b', 'api_key'), AuthAdminError);
      const listed = (await credentials.listApps()).find((a) => a.app_code === app.app_code);
      assert.equal(listed?.revoked, true);
    });

    test('names are unique and unknown applications are reported', async () => {
      const credentials = new Credentials(store, 0);
      await credentials.createApp('bank-c');
      await assert.rejects(credentials.createApp('bank-c'), /already exists/);
      await assert.rejects(credentials.createApp('   '), AuthAdminError);
      await assert.rejects(credentials.issue('no-such-app', 'token'), /No application/);
    });
  });
}
credentialSuite('sqlite');
credentialSuite('postgres');

describe('HTTP platform', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t?.close());

  test('health, readiness, request ids', async () => {
    const health = await call(t.url, 'GET', '/healthz');
    assert.equal(health.status, 200);
    assert.equal(health.body.status, 'ok');
    assert.ok(health.headers.get('x-request-id'));
    const echoed = await call(t.url, 'GET', '/healthz', { headers: { 'x-request-id': 'abc-123' } });
    assert.equal(echoed.headers.get('x-request-id'), 'abc-123');
    const ready = await call(t.url, 'GET', '/readyz');
    assert.equal(ready.status, 200);
    assert.equal(ready.body.checks.database.ok, true);
    assert.equal(ready.body.checks.database.engine, 'sqlite');
  });

  test('the OpenAPI document is generated from the route schemas and /docs serves offline', async () => {
    const doc = await call(t.url, 'GET', '/docs/openapi.json');
    assert.equal(doc.status, 200);
    assert.equal(doc.body.openapi, '3.1.0');
    assert.ok(doc.body.paths['/api/v3/sample'].post, 'sample create is documented');
    assert.ok(doc.body.paths['/api/v3/entity-sample'].post.requestBody);
    const page = await fetch(`${t.url}/docs/`);
    const html = await page.text();
    assert.equal(page.status, 200);
    assert.match(html, /<script src="[^"]*scalar\.js"/);
    assert.doesNotMatch(html, /https?:\/\/(cdn|fonts)\./, 'nothing is loaded from the internet');
    const script = await fetch(`${t.url}/docs/js/scalar.js`);
    assert.equal(script.status, 200);
    assert.ok((await script.arrayBuffer()).byteLength > 100_000, 'the reference bundle is served locally');
  });

  test('unknown routes answer JSON 404; a known path with a wrong method answers 405 with Allow', async () => {
    const missing = await call(t.url, 'GET', '/no/such/thing');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.code, 'ROUTE_NOT_FOUND');
    const wrong = await call(t.url, 'POST', '/healthz');
    assert.equal(wrong.status, 405);
    assert.equal(wrong.headers.get('allow'), 'GET');
  });
});

describe('saola CLI', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-cli-'));
  const env = { SAOLA_DATA_DIR: dataDir, SAOLA_LOG_LEVEL: 'silent' };
  const saola = async (...args: string[]) => {
    try {
      const { stdout } = await runSaola(args, { env });
      return { code: 0, stdout };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  test('app create --json prints app_code, api_key and token; list, key and token commands work', async () => {
    const created = await saola('app', 'create', '--name', 'cli-bank', '--json');
    assert.equal(created.code, 0);
    const app = JSON.parse(created.stdout);
    assert.match(app.api_key, /^sk_/);
    assert.match(app.token, /^st_/);
    assert.ok(app.app_code);

    const listed = JSON.parse((await saola('app', 'list', '--json')).stdout);
    assert.deepEqual(
      listed.applications.map((a: any) => [a.name, a.api_keys, a.tokens]),
      [['cli-bank', 1, 1]],
    );
    assert.ok(!JSON.stringify(listed).includes(app.api_key), 'listings never show secrets');

    const key = JSON.parse((await saola('key', 'create', '--app', 'cli-bank', '--json')).stdout);
    assert.match(key.api_key, /^sk_/);
    const token = JSON.parse((await saola('token', 'create', '--app', app.app_code, '--json')).stdout);
    assert.match(token.token, /^st_/);
    const revoked = JSON.parse((await saola('key', 'revoke', key.id, '--json')).stdout);
    assert.equal(revoked.revoked, true);

    const dup = await saola('app', 'create', '--name', 'cli-bank', '--json');
    assert.equal(dup.code, 2);
    assert.match(JSON.parse(dup.stdout).error, /already exists/);
    const unknown = await saola('frobnicate');
    assert.equal(unknown.code, 2);
  });
});
