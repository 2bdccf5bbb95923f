/**
 * Per-application flow settings through the API (the application's key) and
 * the console (its eKYC section): validation, what init answers, the
 * session's lifetime, selfie attempts, per-application retention, and
 * tenancy. No engine runs here: the selfie that spends the attempt is not an
 * image.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EkycSettingsStore, SqlEkycStore, sweepEkyc } from '../../../src/ekyc/index.js';
import { deploymentFlowSettings } from '../../../src/ekyc/settings.js';
import { loadEkycConfig } from '../../../src/ekyc/config.js';
import { call } from '../../support/http.js';
import { startTestApp, type TestApp } from '../../../fixtures/servers/app.js';

const PASSWORD = 'operator passphrase for eKYC settings';
const DAY = 86_400_000;

describe('eKYC flow settings per application', () => {
  let app: TestApp;
  let store: SqlEkycStore;
  const env = { SAOLA_EKYC_RETRIES_WEB_SDK: '2', SAOLA_EKYC_SESSION_MINUTES: '20', SAOLA_ADMIN_PASSWORD: PASSWORD };
  const settings = (key: string | null, method = 'GET', json?: unknown) => call(app.url, method, '/session/settings', { headers: key ? { 'api-key': key } : {}, json });
  const init = async (key: string, device: string) => (await call(app.url, 'POST', '/session/init', { headers: { 'api-key': key, 'device-type': device } })).body;

  before(async () => {
    app = await startTestApp({ env });
    store = SqlEkycStore.over(app.deps.store.db);
  });
  after(async () => app?.close());

  it("GET answers the deployment's values until the application overrides some; 401 without a key", async () => {
    const r = await settings(app.apiKey);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, {
      code: '200',
      message: 'success',
      settings: {
        is_show_ekyc_result: true,
        ekyc_flow: 1,
        liveness_type: 1,
        is_skip_nfc: true,
        retries: { android: 5, ios: 5, 'web-sdk': 2, api: 5 },
        session_minutes: 20,
        retention_days: 30,
        fraud_memory_hours: 6,
        face_search_collections: [],
        face_search_top_k: 1,
      },
      overrides: {},
      updated_time: null,
      allowed_origins: [],
    });
    const refused = await settings(null);
    assert.deepEqual([refused.status, refused.body], [401, { code: '401', message: 'get api key info failed' }]);
  });

  it('PUT refuses what the schema does not allow, naming the setting', async () => {
    for (const [body, words] of [
      [{ retries: { android: 0 } }, /retries\.android/],
      [{ session_minutes: 'ten' }, /session_minutes/],
      [{ colour: 'blue' }, /additional properties \(colour\)/],
      [{ retries: { fax: 3 } }, /retries.*fax/],
      [{ fraud_memory_hours: -1 }, /fraud_memory_hours/],
      [[1, 2], /object/],
      [{ allowed_origins: ['https://shop.example/path'] }, /allowed_origins/],
    ] as const) {
      const r = await settings(app.apiKey, 'PUT', body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.body.code, '400');
      assert.match(r.body.message, words);
    }
    assert.deepEqual((await settings(app.apiKey)).body.overrides, {}, 'nothing was stored');
  });

  it("an application's overrides: sdk_config, limit, the session's lifetime; another application keeps the deployment's", async () => {
    const put = await settings(app.apiKey, 'PUT', {
      is_show_ekyc_result: false,
      ekyc_flow: 2,
      liveness_type: 3,
      is_skip_nfc: false,
      retries: { android: 3 },
      session_minutes: 5,
    });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.body.overrides, { is_show_ekyc_result: false, ekyc_flow: 2, liveness_type: 3, is_skip_nfc: false, retries: { android: 3 }, session_minutes: 5 });
    assert.deepEqual(put.body.settings.retries, { android: 3, ios: 5, 'web-sdk': 2, api: 5 });
    const started = await init(app.apiKey, 'android');
    assert.deepEqual(started.sdk_config, { is_show_ekyc_result: false, ekyc_flow: 2, liveness_type: 3, is_skip_nfc: false, limit: 3 });
    assert.equal((await init(app.apiKey, 'web-sdk')).sdk_config.limit, 2);
    const row = (await store.session(app.appCode, started['session-id']))!;
    assert.equal(Date.parse(row.expires_time) - Date.parse(row.created_time), 5 * 60_000);

    const other = await app.newTenant('settings-other');
    const theirs = await init(other.apiKey, 'android');
    assert.deepEqual(theirs.sdk_config, { is_show_ekyc_result: true, ekyc_flow: 1, liveness_type: 1, is_skip_nfc: true, limit: 5 });
    const theirRow = (await store.session(other.appCode, theirs['session-id']))!;
    assert.equal(Date.parse(theirRow.expires_time) - Date.parse(theirRow.created_time), 20 * 60_000);
    // An empty document: the deployment's values again.
    assert.deepEqual((await settings(app.apiKey, 'PUT', {})).body.overrides, {});
    assert.equal((await init(app.apiKey, 'android')).sdk_config.limit, 5);
  });

  it("the application's selfie attempts end its session", async () => {
    await settings(app.apiKey, 'PUT', { retries: { ios: 1 } });
    const sid = (await init(app.apiKey, 'ios'))['session-id'] as string;
    const accepted = JSON.stringify({ kind: 'cccd_12_front', items: [], fields: {}, image: `ekyc/${sid}/front.jpg` });
    await app.deps.blobs.put(`ekyc/${sid}/front.jpg`, Buffer.from('portrait'));
    await store.updateSession(app.appCode, sid, { status: 'open' }, { front: accepted, back: accepted, document_type: 'idr' });
    const form = new FormData();
    form.append('selfies', new Blob([new Uint8Array(Buffer.from('not an image'))], { type: 'image/jpeg' }), 'selfie.jpg');
    const res = await fetch(`${app.url}/face/liveness`, { method: 'POST', headers: { 'api-key': app.apiKey, 'session-id': sid, 'device-type': 'ios' }, body: form });
    const body = (await res.json()) as Record<string, unknown>;
    assert.equal(body.code, '409', JSON.stringify(body));
    assert.equal(body.is_complete_session, true);
    assert.equal((await store.session(app.appCode, sid))!.status, 'failed');
  });

  it("retention follows each application's setting", async () => {
    const short = await app.newTenant('settings-short-retention');
    assert.equal((await settings(short.apiKey, 'PUT', { retention_days: 1 })).status, 200);
    const kept = (await init(app.apiKey, 'api'))['session-id'] as string;
    const gone = (await init(short.apiKey, 'api'))['session-id'] as string;
    await app.deps.blobs.put(`ekyc/${gone}/front.jpg`, Buffer.from('image'));
    await store.addImage({
      id: `img-${gone}`,
      app_code: short.appCode,
      session_id: gone,
      kind: 'front',
      blob_key: `ekyc/${gone}/front.jpg`,
      created_time: new Date().toISOString(),
    });
    const cfg = loadEkycConfig({});
    const byApp = await new EkycSettingsStore(app.deps.store.db, deploymentFlowSettings(cfg)).retentionOverrides();
    assert.equal(byApp.get(short.appCode), DAY);
    // Two days on: past the one-day retention, within the deployment's 30 days.
    await sweepEkyc(store, app.deps.blobs, { defaultMs: cfg.retentionMs, byApp }, new Date(Date.now() + 2 * DAY));
    assert.equal(await store.session(short.appCode, gone), undefined);
    assert.equal(await app.deps.blobs.stat(`ekyc/${gone}/front.jpg`), undefined);
    assert.ok(await store.session(app.appCode, kept));
  });

  it("the console's eKYC section: the schema, the deployment's values and the overrides; the same document the API sees", async () => {
    const login = await call(app.url, 'POST', '/console/api/login', { json: { password: PASSWORD } });
    const cookie = /saola_console=[^;]*/.exec(login.headers.get('set-cookie') ?? '')![0];
    const headers = { cookie, 'x-csrf-token': login.body.csrf as string };
    const tenant = await app.newTenant('settings-console');
    const listed = await call(app.url, 'GET', `/console/api/apps/${tenant.appCode}/sections`, { headers });
    assert.equal(listed.status, 200, listed.text);
    const section = listed.body.sections.find((s: { key: string }) => s.key === 'ekyc.flow');
    assert.ok(section, JSON.stringify(listed.body));
    assert.deepEqual(section.values, {});
    assert.equal(section.defaults.retries['web-sdk'], 2);
    assert.equal(section.schema.properties.session_minutes.maximum, 1440);
    const wrong = await call(app.url, 'PUT', `/console/api/apps/${tenant.appCode}/sections/ekyc.flow`, { headers, json: { values: { ekyc_flow: 0 } } });
    assert.equal(wrong.status, 400);
    assert.match(wrong.body.message, /ekyc_flow/);
    const unknown = await call(app.url, 'PUT', `/console/api/apps/${tenant.appCode}/sections/ekyc.nothing`, { headers, json: { values: {} } });
    assert.equal(unknown.status, 404);
    const saved = await call(app.url, 'PUT', `/console/api/apps/${tenant.appCode}/sections/ekyc.flow`, {
      headers,
      json: { values: { liveness_type: 2, retries: { api: 7 } } },
    });
    assert.equal(saved.status, 200, saved.text);
    assert.deepEqual(saved.body, { key: 'ekyc.flow', values: { liveness_type: 2, retries: { api: 7 } } });
    assert.deepEqual((await settings(tenant.apiKey)).body.overrides, { liveness_type: 2, retries: { api: 7 } });
    assert.deepEqual((await init(tenant.apiKey, 'api')).sdk_config, { is_show_ekyc_result: true, ekyc_flow: 1, liveness_type: 2, is_skip_nfc: true, limit: 7 });
  });
});
