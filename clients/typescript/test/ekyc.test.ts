import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Saola, SaolaError } from '../src/index.js';
import { startTestApp, type TestApp } from '../../../fixtures/servers/app.js';

/** The eKYC flow through the client against a real server; the steps here stop before any engine runs. */
describe('@saola/client: eKYC sessions', () => {
  let app: TestApp;
  let saola: Saola;

  before(async () => {
    app = await startTestApp();
    saola = new Saola({ baseUrl: app.url, apiKey: app.apiKey, retries: 0 });
  });
  after(() => app.close());

  test('start, document and selfie send the guide headers and answer its bodies', async () => {
    await saola.ekyc.updateSettings({ retries: { 'web-sdk': 2 }, is_skip_nfc: false });
    const session = await saola.ekyc.start({ deviceType: 'web-sdk', clientUuid: 'device-1' });
    assert.match(session.id, /^[0-9a-f-]{36}$/);
    assert.deepEqual(session.sdkConfig, { is_show_ekyc_result: true, ekyc_flow: 1, liveness_type: 1, is_skip_nfc: false, limit: 2 });
    // The back before the front: the guide's HTTP 200 with E101, in Vietnamese when asked.
    const early = await session.document('idr', new Uint8Array([1, 2, 3]), { side: 'back', lang: 'vi' });
    assert.deepEqual(early, { data: [], errorCode: 'E101', errorMessage: 'Vui lòng chụp mặt trước giấy tờ trước', total_data: [] });
    assert.deepEqual(await session.selfie(new Uint8Array([1, 2, 3])), { code: 'E101', message: 'Front picture must be taken first' });
    // Not an image: HTTP 400, a SaolaError carrying the body.
    await assert.rejects(
      session.document('idr', new TextEncoder().encode('not an image'), { side: 'front' }),
      (err: unknown) => err instanceof SaolaError && err.status === 400 && (err.body as { errorCode: string }).errorCode === '7',
    );
    const settings = await saola.ekyc.settings();
    assert.deepEqual(settings.overrides, { retries: { 'web-sdk': 2 }, is_skip_nfc: false });
    await assert.rejects(saola.ekyc.updateSettings({ ekyc_flow: 0 }), (err: unknown) => err instanceof SaolaError && err.status === 400);
    await assert.rejects(new Saola({ baseUrl: app.url, apiKey: 'sk_wrong', retries: 0 }).ekyc.start(), (err: unknown) => err instanceof SaolaError && err.status === 401);
  });
});
