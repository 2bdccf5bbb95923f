/**
 * The full flow end to end on an in-process server (SQLite): the guide's
 * header refusals, the session's order (E101, E103), input and quality
 * errors, a generated citizen card read side by side, the selfie step,
 * expiry (403), the fraud memory (DB01), retries ending the session, the
 * retention sweep and the application purge.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { SqlEkycStore, sweepEkyc } from '../../../src/ekyc/index.js';
import { purgeApplication } from '../../../src/platform/purge.js';
import { purgeHooks } from '../../../src/services.js';
import { startTestApp, type TestApp } from '../../../fixtures/servers/app.js';
import { citizenCard, face, type Card } from '../../support/ekyc/cards.js';

type Body = Record<string, any>;

describe('eKYC full flow', () => {
  let app: TestApp;
  let card: Card;
  let store: SqlEkycStore;

  const post = async (path: string, headers: Record<string, string>, files: [string, Buffer][] = [], apiKey: string | null = app.apiKey) => {
    const form = new FormData();
    for (const [k, v] of files) form.append(k, new Blob([new Uint8Array(v)], { type: 'image/jpeg' }), `${k}.jpg`);
    const res = await fetch(app.url + path, { method: 'POST', headers: { ...(apiKey ? { 'api-key': apiKey } : {}), ...headers }, body: files.length ? form : undefined });
    return { status: res.status, body: (await res.json()) as Body };
  };
  const init = async (device = 'api') => (await post('/session/init', { 'device-type': device })).body['session-id'] as string;
  const ocrHeaders = (sid: string, side?: 'front' | 'back') => ({
    'session-id': sid,
    'device-type': 'api',
    'document-type': 'idr',
    ...(side ? { 'side-type': side } : {}),
  });

  before(async () => {
    // One selfie attempt on the web SDK: the retry limit is reached by one failed selfie.
    app = await startTestApp({ env: { SAOLA_EKYC_RETRIES_WEB_SDK: '1', SAOLA_EKYC_DOCUMENT_TYPES: 'idr,passport' } });
    store = SqlEkycStore.over(app.deps.store.db);
    card = await citizenCard(20, face('person-a.jpg'));
  });
  after(async () => app?.close());

  it('init: the session and sdk_config; 400 device type, 401 api key', async () => {
    const ok = await post('/session/init', { 'device-type': 'android', client_uuid: 'c-1' });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.code, '200');
    assert.match(ok.body['session-id'], /^[0-9a-f-]{36}$/);
    assert.deepEqual(ok.body.sdk_config, { is_show_ekyc_result: true, ekyc_flow: 1, liveness_type: 1, is_skip_nfc: true, limit: 5 });
    assert.equal((await post('/session/init', { 'device-type': 'web-sdk' })).body.sdk_config.limit, 1);
    assert.deepEqual(await post('/session/init', { 'device-type': 'fax' }), { status: 400, body: { code: '400', message: 'device type must be provided' } });
    assert.deepEqual(await post('/session/init', {}), { status: 400, body: { code: '400', message: 'device type must be provided' } });
    assert.deepEqual(await post('/session/init', { 'device-type': 'ios' }, [], null), { status: 401, body: { code: '401', message: 'get api key info failed' } });
    assert.equal((await post('/session/init', { 'device-type': 'ios' }, [], 'wrong')).status, 401);
  });

  it("/ocr's header refusals: HTTP 200 with code 400, E102, and lang vi", async () => {
    const sid = await init();
    const refusal = (errorCode: string, errorMessage: string) => ({ status: 200, body: { data: [], errorCode, errorMessage, total_data: [] } });
    const files: [string, Buffer][] = [['files', Buffer.from('x')]];
    assert.deepEqual(await post('/ocr', ocrHeaders(sid), files, null), refusal('400', 'api-key must be provided'));
    assert.deepEqual(await post('/ocr', { 'device-type': 'api', 'document-type': 'idr' }, files), refusal('400', 'uuid must be provided'));
    assert.deepEqual(await post('/ocr', { ...ocrHeaders(sid), 'session-id': '00000000-0000-7000-8000-000000000000' }, files), refusal('400', 'uuid must be provided'));
    assert.deepEqual(await post('/ocr', { 'session-id': sid, 'device-type': 'api' }, files), refusal('400', 'document-type header must be provided'));
    assert.deepEqual(await post('/ocr', { ...ocrHeaders(sid), 'document-type': 'visa' }, files), refusal('400', 'document-type value is invalid'));
    assert.deepEqual(await post('/ocr', { ...ocrHeaders(sid), lang: 'fr' }, files), refusal('400', 'country code value is invalid'));
    // This server's flow takes ID cards and passports only.
    assert.deepEqual(await post('/ocr', { ...ocrHeaders(sid), 'document-type': 'dlr' }, files), refusal('E102', 'Document type is not supported'));
    assert.deepEqual(await post('/ocr', ocrHeaders(sid, 'back'), files), refusal('E101', 'Front picture must be taken first'));
    assert.deepEqual(await post('/ocr', { ...ocrHeaders(sid, 'back'), lang: 'vi' }, files), refusal('E101', 'Vui lòng chụp mặt trước giấy tờ trước'));
    // Another application's key does not see this session.
    const other = await app.newTenant('other');
    assert.deepEqual(await post('/ocr', ocrHeaders(sid, 'front'), files, other.apiKey), refusal('400', 'uuid must be provided'));
  });

  it('input errors 1 and 7 (HTTP 400) and the quality check (QC01, QC03, QC04)', async () => {
    const sid = await init();
    const input = (errorCode: string, errorMessage: string) => ({ status: 400, body: { data: [], errorCode, errorMessage, total_data: [] } });
    assert.deepEqual(await post('/ocr', ocrHeaders(sid, 'front')), input('1', 'Invalid Parameters or Values'));
    assert.deepEqual(await post('/ocr', ocrHeaders(sid, 'front'), [['files', Buffer.from('not an image at all')]]), input('7', 'Invalid image file'));
    const small = await sharp(card.front).resize(400).jpeg().toBuffer();
    const low = await post('/ocr', ocrHeaders(sid, 'front'), [['files', small]]);
    assert.deepEqual(low, { status: 200, body: { data: [], errorCode: 'QC01', errorMessage: 'Image resolution is too low', total_data: [] } });
    // The real quality check on the generated card blurred, then darkened: QC03, QC04.
    const blurred = await sharp(card.front).blur(12).jpeg().toBuffer();
    assert.equal((await post('/ocr', ocrHeaders(sid, 'front'), [['files', blurred]])).body.errorCode, 'QC03');
    const dark = await sharp(card.front).linear(0.12, 0).jpeg().toBuffer();
    assert.equal((await post('/ocr', ocrHeaders(sid, 'front'), [['files', dark]])).body.errorCode, 'QC04');
  });

  it('a session: front, E103, back with both sides, the selfie (lang vi), then 403 on the ended session', async () => {
    const sid = await init();
    const front = await post('/ocr', { ...ocrHeaders(sid, 'front'), lang: 'vi' }, [['files', card.front]]);
    assert.equal(front.body.errorCode, '0', JSON.stringify(front.body));
    const keys = front.body.data.map((d: Body) => d.key);
    assert.deepEqual(keys, [
      'ID',
      'Name',
      'Date of birth',
      'Sex',
      'Nationality',
      'Home',
      'Address',
      'Expired Date',
      'QRcode',
      'Type',
      'Province',
      'District',
      'Ward',
      'Street',
    ]);
    assert.deepEqual(Object.keys(front.body.data[0]), ['key', 'locale', 'name', 'score', 'value']);
    assert.equal(front.body.data[0].value, card.person.id12);
    assert.equal((await post('/ocr', ocrHeaders(sid, 'front'), [['files', card.front]])).body.errorCode, 'E103');
    // The selfie waits for the back.
    assert.deepEqual((await post('/face/liveness', { 'session-id': sid, 'device-type': 'api' }, [['selfies', face('person-a.jpg')]])).body, {
      code: 'E103',
      message: 'Please capture your rear document',
    });
    const back = await post('/ocr', ocrHeaders(sid, 'back'), [['files', card.back]]);
    assert.equal(back.body.errorCode, '0', JSON.stringify(back.body));
    const backKeys = back.body.data.map((d: Body) => d.key);
    assert.ok(
      ['ID', 'Features', 'Issue Date', 'Issue Location', 'MRZ'].every((k) => backKeys.includes(k)),
      backKeys.join(),
    );

    const selfie = await post('/face/liveness', { 'session-id': sid, 'device-type': 'api', auto: 'False', lang: 'vi' }, [['selfies', face('person-a.jpg')]]);
    assert.equal(selfie.status, 200);
    const body = selfie.body;
    assert.deepEqual(Object.keys(body), ['code', 'message', 'liveness', 'face_match', 'video_face_url', 'compared_face_url', 'is_complete_session']);
    assert.deepEqual(Object.keys(body.liveness), [
      'code',
      'message',
      'is_live',
      'spoof_prob',
      'need_to_review',
      'is_deepfake',
      'deepfake_prob',
      'warning',
      'error_frame_url',
    ]);
    assert.deepEqual(Object.keys(body.face_match), ['code', 'message', 'isMatch', 'similarity', 'warning']);
    assert.ok(['200', '301', '303', '406', '410', '411', '412', '413', '422', '423'].includes(body.code), JSON.stringify(body));
    if (body.code === '200') {
      assert.equal(body.is_complete_session, true);
      assert.equal(body.message, 'Yêu cầu thành công');
      const ended = await post('/face/liveness', { 'session-id': sid, 'device-type': 'api' }, [['selfies', face('person-a.jpg')]]);
      assert.deepEqual(ended, { status: 403, body: { code: '403', message: 'Session expired' } });
    } else {
      assert.equal(body.is_complete_session, false, 'api sessions get 5 attempts');
    }
    const images = await app.deps.store.db
      .selectFrom('ekyc_images' as never)
      .selectAll()
      .where('session_id' as never, '=', sid as never)
      .execute();
    assert.deepEqual(images.map((i: Body) => i.kind).sort(), ['back', 'front', 'selfie']);
  });

  it('a session past its lifetime answers 403 "Session expired" on every step', async () => {
    const sid = await init();
    await store.db
      .updateTable('ekyc_sessions')
      .set({ expires_time: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', sid)
      .execute();
    const expired = { status: 403, body: { data: [], errorCode: '403', errorMessage: 'Session expired', total_data: [] } };
    assert.deepEqual(await post('/ocr', ocrHeaders(sid, 'front'), [['files', card.front]]), expired);
    assert.deepEqual(await post('/face/liveness', { 'session-id': sid, 'device-type': 'api' }, [['selfies', face('person-a.jpg')]]), {
      status: 403,
      body: { code: '403', message: 'Session expired' },
    });
  });

  it('the fraud memory: an ID number remembered from a fraud result refuses a later session (DB01)', async () => {
    const now = Date.now();
    await store.remember({
      id: `m-${now}`,
      app_code: app.appCode,
      session_id: 'earlier',
      id_number: card.person.id12,
      face: null,
      reason: 'FC01',
      created_time: new Date(now).toISOString(),
      expires_time: new Date(now + 3600_000).toISOString(),
    });
    const sid = await init();
    const r = await post('/ocr', ocrHeaders(sid, 'front'), [['files', card.front]]);
    assert.deepEqual(r.body, { data: [], errorCode: 'DB01', errorMessage: 'ID number was used in a recent fraudulent session', total_data: [] });
    // Another application's memory is not this one's.
    assert.equal(await store.rememberedId('another-app', card.person.id12, new Date().toISOString()), undefined);
  });

  it('a selfie step out of attempts ends the session (web-sdk: 1 attempt)', async () => {
    const sid = await init('web-sdk');
    const row = await store.session(app.appCode, sid);
    const accepted = { kind: 'cccd_12_front', items: [], fields: {}, image: 'ekyc/none.jpg' };
    await app.deps.blobs.put(accepted.image, card.front);
    await store.updateSession(
      app.appCode,
      sid,
      { status: 'open' },
      { front: JSON.stringify(accepted), back: JSON.stringify(accepted), document_type: row!.document_type ?? 'idr' },
    );
    // Not an image: liveness answers 409, the one attempt is spent.
    const r = await post('/face/liveness', { 'session-id': sid, 'device-type': 'web-sdk' }, [['selfies', Buffer.from('not an image')]]);
    assert.equal(r.body.code, '409', JSON.stringify(r.body));
    assert.equal(r.body.is_complete_session, true);
    assert.equal((await store.session(app.appCode, sid))!.status, 'failed');
  });

  it("retention deletes old sessions with their images; the purge deletes an application's images and rows", async () => {
    const keys = await store.imageKeysOfApp(app.appCode);
    assert.ok(keys.length >= 3);
    // Nothing is old yet.
    assert.equal(await sweepEkyc(store, app.deps.blobs, { defaultMs: 30 * 86_400_000, byApp: new Map() }), 0);
    const tenant = await app.newTenant('purged');
    const sid = (await post('/session/init', { 'device-type': 'ios' }, [], tenant.apiKey)).body['session-id'];
    await store.addImage({
      id: `img-${sid}`,
      app_code: tenant.appCode,
      session_id: sid,
      kind: 'front',
      blob_key: `ekyc/${sid}/front.jpg`,
      created_time: new Date().toISOString(),
    });
    await app.deps.blobs.put(`ekyc/${sid}/front.jpg`, card.front);
    const report = await purgeApplication({ store: app.deps.store, blobs: app.deps.blobs }, tenant.appCode, purgeHooks);
    assert.equal(report.blobs, 1);
    assert.equal(report.rows.ekyc_sessions, 1);
    assert.equal(await app.deps.blobs.stat(`ekyc/${sid}/front.jpg`), undefined);
    // A year on, every session of this application is past retention.
    const swept = await sweepEkyc(store, app.deps.blobs, { defaultMs: 30 * 86_400_000, byApp: new Map() }, new Date(Date.now() + 365 * 86_400_000));
    assert.ok(swept >= 5, String(swept));
    for (const key of keys) assert.equal(await app.deps.blobs.stat(key), undefined, key);
    assert.deepEqual(await store.imageKeysOfApp(app.appCode), []);
  });
});
