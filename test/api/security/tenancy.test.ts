/**
 * Tenancy over the whole route table: application A writes records in every
 * service (samples, entities, intents and their links, face collections and
 * users, TTS requests, credit history), then application B, with its own valid
 * credentials, goes at each of them through every endpoint. Every endpoint must
 * have a probe below (or be listed as holding no records), so a new endpoint
 * fails this suite until someone says how it keeps applications apart. The
 * console's admin API is the operator's, across all applications: no
 * application's credentials reach it, and its per-application views show only
 * the application named.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import { startTestApp, type Tenant, type TestApp } from '../../../fixtures/servers/app.js';
import type { EkycTables } from '../../../src/ekyc/schema.js';
import { call, type Reply } from '../../support/http.js';
import { historyCsv, importCsv } from '../../support/credit/support.js';
import { waitForStatus } from '../../support/speech/tts/helpers.js';
import { eventually } from '../../support/wait.js';
import { endpoints, fill, isConsoleApi, isPublic, type Endpoint } from '../../support/security/routes.js';

const T = Math.floor(Date.parse('2025-03-01T00:00:00Z') / 1000);
const PHONE = '84912345678';
const FS = '/dmp/facesearch/v2';
const PASSWORD = 'tenancy suite operator passphrase';

let t: TestApp;
let b: Tenant;
/** A's records. */
const a = {
  sample: '',
  entity: 'sec_entity',
  entityCode: '',
  intent: '',
  intentSample: '',
  entitySample: '',
  ttsRequest: '',
  history: '',
};

/** NLU calls as A (default) or as B. */
const nlu = (who: Tenant, method: string, path: string, json?: unknown): Promise<Reply> => call(t.url, method, `/api/v3${path}`, { token: who.token, json });

async function face(who: Tenant, method: string, path: string, fields: Record<string, string | Buffer>): Promise<Reply> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) {
    if (typeof v === 'string') form.append(k, v);
    else form.append(k, new Blob([new Uint8Array(v)], { type: 'image/jpeg' }), 'photo.jpg');
  }
  const res = await fetch(t.url + FS + path, { method, headers: { api_key: who.apiKey }, body: method === 'GET' ? undefined : form });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: JSON.parse(text) };
}
const faceList = (who: Tenant, collection: string) => call(t.url, 'GET', `${FS}/list?collection=${collection}`, { headers: { api_key: who.apiKey } });
const grace = () => fs.readFileSync(new URL('../../fixtures/face/grace_hopper.jpg', import.meta.url));

/** Everything A can see of its own records, to compare before and after B's attempts. */
async function snapshotOfA() {
  return {
    samples: (await nlu(t, 'GET', '/sample')).body,
    entities: (await nlu(t, 'GET', '/entity')).body,
    intents: (await nlu(t, 'GET', '/intent')).body,
    export: (await nlu(t, 'GET', '/export')).body,
    entitySamples: (await nlu(t, 'GET', `/entity/${a.entity}/samples`)).body,
    history: (await nlu(t, 'GET', '/history')).body,
    inbox: (await nlu(t, 'GET', '/inbox')).body,
    inboxSettings: (await nlu(t, 'GET', '/inbox/settings')).body,
    settings: (await nlu(t, 'GET', '/settings')).body,
    trainStatus: (await nlu(t, 'GET', '/train/status')).body,
    keywords: (await nlu(t, 'GET', `/entity/${a.entity}/keywords`)).body,
    faces: (await faceList(t, 'sec')).body,
    tts: (await call(t.url, 'GET', `/hmi/tts/v5/status/${a.ttsRequest}`, { headers: { api_key: t.apiKey } })).body,
    credit: (await call(t.url, 'GET', `/dmp/creditscoring/v1?phone=${PHONE}&dltype=1&decision_time=${T}`, { headers: { api_key: t.apiKey } })).body,
  };
}

/** B's attempt must be a not-found in the service's shape, and must not mention A's record. */
function notFound(r: Reply, where: string) {
  assert.equal(r.status, 404, `${where}: ${r.status} ${r.text.slice(0, 200)}`);
  assert.ok(!r.text.includes(t.appCode), `${where} names A's application`);
}

/**
 * One probe per endpoint: B's requests against A's records there. Each runs
 * after A's records exist and must not change them (checked at the end).
 */
let aSession: string | undefined;
/** An eKYC session of A's, started once. */
async function ekycSessionOfA(): Promise<string> {
  if (aSession) return aSession;
  const r = await call(t.url, 'POST', '/session/init', { headers: { api_key: t.apiKey, 'device-type': 'api' }, json: {} });
  assert.equal(r.status, 200, r.text);
  aSession = r.body['session-id'] as string;
  return aSession;
}

const probes: Record<string, () => Promise<number>> = {
  'GET /api/v3/sample': async () => {
    const r = await nlu(b, 'GET', '/sample');
    assert.ok(!r.text.includes(a.sample) && !r.text.includes('riêng của A'), 'B lists A samples');
    return 1;
  },
  'POST /api/v3/sample': async () => {
    const r = await nlu(b, 'POST', '/sample', { content: 'riêng của A' });
    assert.equal(r.status, 200);
    assert.notEqual(r.body.code, a.sample);
    assert.equal(r.body.app_code, b.appCode);
    await nlu(b, 'DELETE', `/sample/${r.body.code}`);
    return 1;
  },
  'GET /api/v3/sample/:sample_code': async () => (notFound(await nlu(b, 'GET', `/sample/${a.sample}`), 'GET sample'), 1),
  'PUT /api/v3/sample/:sample_code': async () => (notFound(await nlu(b, 'PUT', `/sample/${a.sample}`, { content: 'hijack' }), 'PUT sample'), 1),
  'DELETE /api/v3/sample/:sample_code': async () => (notFound(await nlu(b, 'DELETE', `/sample/${a.sample}`), 'DELETE sample'), 1),
  'GET /api/v3/entity': async () => {
    const r = await nlu(b, 'GET', '/entity');
    assert.ok(!r.text.includes(a.entity) && !r.text.includes(a.entityCode));
    return 1;
  },
  'POST /api/v3/entity': async () => {
    // The same label in B is B's own entity.
    const r = await nlu(b, 'POST', '/entity', { label: a.entity, description: 'B', type: 1 });
    assert.equal(r.status, 200, r.text);
    assert.notEqual(r.body.code, a.entityCode);
    assert.equal((await nlu(b, 'DELETE', `/entity/${a.entity}`)).status, 200);
    return 1;
  },
  'GET /api/v3/entity/:label': async () => (notFound(await nlu(b, 'GET', `/entity/${a.entity}`), 'GET entity'), 1),
  'PUT /api/v3/entity/:label': async () => (notFound(await nlu(b, 'PUT', `/entity/${a.entity}`, { description: 'x', type: 1 }), 'PUT entity'), 1),
  'DELETE /api/v3/entity/:label': async () => (notFound(await nlu(b, 'DELETE', `/entity/${a.entity}`), 'DELETE entity'), 1),
  'GET /api/v3/entity/:label/samples': async () => (notFound(await nlu(b, 'GET', `/entity/${a.entity}/samples`), 'GET entity samples'), 1),
  'PUT /api/v3/entity/:label/samples': async () => (notFound(await nlu(b, 'PUT', `/entity/${a.entity}/samples`), 'PUT entity samples'), 1),
  'DELETE /api/v3/entity/:label/samples': async () => (notFound(await nlu(b, 'DELETE', `/entity/${a.entity}/samples`), 'DELETE entity samples'), 1),
  'POST /api/v3/entity-sample': async () => {
    // A's entity on A's sample, A's entity on B's sample, B's entity on A's sample.
    const theirs = (await nlu(b, 'POST', '/sample', { content: 'abc def' })).body;
    const theirEntity = (await nlu(b, 'POST', '/entity', { label: 'b_entity', description: 'B', type: 1 })).body;
    const tries = [
      { entity_code: a.entityCode, sample_code: a.sample, value: 'r', start: 0, end: 1 },
      { entity_code: a.entityCode, sample_code: theirs.code, value: 'a', start: 0, end: 1 },
      { entity_code: theirEntity.code, sample_code: a.sample, value: 'r', start: 0, end: 1 },
    ];
    for (const json of tries) notFound(await nlu(b, 'POST', '/entity-sample', json), `POST entity-sample ${JSON.stringify(json)}`);
    await nlu(b, 'DELETE', `/sample/${theirs.code}`);
    await nlu(b, 'DELETE', '/entity/b_entity');
    return tries.length;
  },
  'DELETE /api/v3/entity-sample/:entity_sample_code': async () => (notFound(await nlu(b, 'DELETE', `/entity-sample/${a.entitySample}`), 'DELETE entity-sample'), 1),
  'GET /api/v3/intent': async () => {
    const r = await nlu(b, 'GET', '/intent');
    assert.ok(!r.text.includes(a.intent) && !r.text.includes('sec_intent'));
    return 1;
  },
  'POST /api/v3/intent': async () => {
    const r = await nlu(b, 'POST', '/intent', { label: 'sec_intent' });
    assert.equal(r.status, 200, r.text);
    assert.notEqual(r.body.code, a.intent);
    await nlu(b, 'DELETE', `/intent/${r.body.code}`);
    return 1;
  },
  'GET /api/v3/intent/:intent_code': async () => (notFound(await nlu(b, 'GET', `/intent/${a.intent}`), 'GET intent'), 1),
  'PUT /api/v3/intent/:intent_code': async () => (notFound(await nlu(b, 'PUT', `/intent/${a.intent}`, { label: 'hijacked' }), 'PUT intent'), 1),
  'DELETE /api/v3/intent/:intent_code': async () => (notFound(await nlu(b, 'DELETE', `/intent/${a.intent}`), 'DELETE intent'), 1),
  'POST /api/v3/intent-sample': async () => {
    const theirs = (await nlu(b, 'POST', '/sample', { content: 'ghi' })).body;
    const theirIntent = (await nlu(b, 'POST', '/intent', { label: 'b_intent' })).body;
    const tries = [
      { intent_code: a.intent, sample_code: a.sample },
      { intent_code: a.intent, sample_code: theirs.code },
      { intent_code: theirIntent.code, sample_code: a.sample },
    ];
    for (const json of tries) notFound(await nlu(b, 'POST', '/intent-sample', json), `POST intent-sample ${JSON.stringify(json)}`);
    await nlu(b, 'DELETE', `/sample/${theirs.code}`);
    await nlu(b, 'DELETE', `/intent/${theirIntent.code}`);
    return tries.length;
  },
  'DELETE /api/v3/intent-sample/:intent_sample_code': async () => (notFound(await nlu(b, 'DELETE', `/intent-sample/${a.intentSample}`), 'DELETE intent-sample'), 1),
  'POST /api/v3/intent-sample/import_intent_samples': async () => {
    const r = await nlu(b, 'POST', '/intent-sample/import_intent_samples', [{ intent: 'sec_intent', sample: 'riêng của A' }]);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.number_of_duplicate_sample, 0, "A's sample is not B's duplicate");
    // Clean B up again, so its lists stay empty for the other probes.
    for (const s of (await nlu(b, 'GET', '/sample')).body) await nlu(b, 'DELETE', `/sample/${s.code}`);
    for (const i of (await nlu(b, 'GET', '/intent')).body) await nlu(b, 'DELETE', `/intent/${i.code}`);
    return 1;
  },
  // B has no model, no history, no keywords and its own threshold: A's never answer B, and B's calls never change A's.
  'POST /api/v3/predict': async () => {
    const r = await nlu(b, 'POST', '/predict', { content: 'riêng của A', save_history: true });
    assert.equal(r.status, 409, `B predicts with no model of its own: ${r.text}`);
    assert.ok(!r.text.includes('sec_intent'), "B's prediction names A's intent");
    return 1;
  },
  'POST /api/v3/predict/intent': async () => (assert.equal((await nlu(b, 'POST', '/predict/intent', { content: 'riêng của A' })).status, 409), 1),
  'POST /api/v3/predict/entity': async () => (assert.equal((await nlu(b, 'POST', '/predict/entity', { content: 'riêng của A' })).status, 409), 1),
  'POST /api/v3/train': async () => {
    const r = await nlu(b, 'POST', '/train');
    assert.equal(r.status, 400, `B has nothing to learn from, whatever A has: ${r.text}`);
    return 1;
  },
  'POST /api/v3/train/intent': async () => (assert.equal((await nlu(b, 'POST', '/train/intent')).status, 400), 1),
  'POST /api/v3/train/entity': async () => (assert.equal((await nlu(b, 'POST', '/train/entity')).status, 400), 1),
  'GET /api/v3/train/status': async () => {
    const r = await nlu(b, 'GET', '/train/status');
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.last_success_time, '', "B sees A's model");
    assert.notEqual(r.body.status, 2);
    return 1;
  },
  'POST /api/v3/train/status': async () => (assert.equal((await nlu(b, 'POST', '/train/status')).body.last_success_time, ''), 1),
  'GET /api/v3/history': async () => {
    const r = await nlu(b, 'GET', '/history');
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.total, 0, "B lists A's history");
    return 1;
  },
  'DELETE /api/v3/history': async () => (assert.equal((await nlu(b, 'DELETE', '/history')).status, 200), 1),
  'DELETE /api/v3/history/:history_id': async () => (notFound(await nlu(b, 'DELETE', `/history/${a.history}`), 'DELETE history item'), 1),
  'GET /api/v3/settings': async () => (assert.equal((await nlu(b, 'GET', '/settings')).body.threshold, 0.3, "B reads A's threshold"), 1),
  'PUT /api/v3/settings': async () => (assert.equal((await nlu(b, 'PUT', '/settings', { threshold: 0.9 })).status, 200), 1),
  'GET /api/v3/inbox': async () => {
    const r = await nlu(b, 'GET', '/inbox?reason=reported');
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.total_items, 0, "B lists A's inbox");
    return 1;
  },
  'POST /api/v3/inbox/report': async () => (notFound(await nlu(b, 'POST', '/inbox/report', { history_id: Number(a.history) }), 'report'), 1),
  'POST /api/v3/inbox/label': async () => (notFound(await nlu(b, 'POST', '/inbox/label', { intent: 'hijack', items: [{ history_id: Number(a.history) }] }), 'label'), 1),
  'POST /api/v3/inbox/dismiss': async () => (notFound(await nlu(b, 'POST', '/inbox/dismiss', { history_ids: [Number(a.history)] }), 'dismiss'), 1),
  'POST /api/v3/inbox/out-of-scope': async () => (notFound(await nlu(b, 'POST', '/inbox/out-of-scope', { history_ids: [Number(a.history)] }), 'out of scope'), 1),
  'GET /api/v3/inbox/stats': async () => {
    const r = await nlu(b, 'GET', '/inbox/stats?days=1');
    assert.deepEqual(r.body.days[0] && [r.body.days[0].added, r.body.days[0].reported], [0, 0], "B counts A's inbox");
    return 1;
  },
  'GET /api/v3/inbox/settings': async () => (assert.equal((await nlu(b, 'GET', '/inbox/settings')).status, 200), 1),
  'PUT /api/v3/inbox/settings': async () => (assert.equal((await nlu(b, 'PUT', '/inbox/settings', { mask_history: true, history_retention_days: 1 })).status, 200), 1),
  'GET /api/v3/train/report': async () => {
    const model = (await nlu(t, 'GET', '/train/status')).body.model_code;
    assert.ok(model, 'A has a model');
    notFound(await nlu(b, 'GET', `/train/report?model_code=${model}`), "A's report");
    notFound(await nlu(b, 'GET', '/train/report'), 'the newest report');
    return 2;
  },
  'GET /api/v3/train/report/compare': async () => {
    const model = (await nlu(t, 'GET', '/train/status')).body.model_code;
    return (notFound(await nlu(b, 'GET', `/train/report/compare?from=${model}&to=${model}`), "A's reports compared"), 1);
  },
  'GET /api/v3/sample/:sample_code/origin': async () => (notFound(await nlu(b, 'GET', `/sample/${a.sample}/origin`), 'GET sample origin'), 1),
  'GET /api/v3/entity/:label/keywords': async () => (notFound(await nlu(b, 'GET', `/entity/${a.entity}/keywords`), 'GET keywords'), 1),
  'POST /api/v3/entity/:label/keywords': async () => (notFound(await nlu(b, 'POST', `/entity/${a.entity}/keywords`, { value: 'chiếm' }), 'POST keywords'), 1),
  'DELETE /api/v3/entity/:label/keywords': async () => (notFound(await nlu(b, 'DELETE', `/entity/${a.entity}/keywords?value=riêng`), 'DELETE keywords'), 1),
  'GET /api/v3/export': async () => {
    const r = await nlu(b, 'GET', '/export');
    assert.equal(r.status, 200);
    assert.ok(!r.text.includes('riêng của A') && !r.text.includes(a.entity) && !r.text.includes('sec_intent'), r.text.slice(0, 300));
    return 1;
  },
  'POST /api/v3/import': async () => {
    // B imports a set naming A's labels: it lands in B only (A's snapshot is compared at the end).
    const set = (await nlu(t, 'GET', '/export')).body;
    const r = await nlu(b, 'POST', '/import', set);
    assert.equal(r.status, 200, r.text.slice(0, 300));
    const theirs = (await nlu(b, 'GET', '/sample')).body as { app_code: string }[];
    assert.ok(theirs.length > 0 && theirs.every((s) => s.app_code === b.appCode));
    for (const s of (await nlu(b, 'GET', '/sample')).body) await nlu(b, 'DELETE', `/sample/${s.code}`);
    for (const e of (await nlu(b, 'GET', '/entity')).body) await nlu(b, 'DELETE', `/entity/${e.label}`);
    for (const i of (await nlu(b, 'GET', '/intent')).body) await nlu(b, 'DELETE', `/intent/${i.code}`);
    return 1;
  },
  [`GET ${FS}/list`]: async () => {
    const r = await faceList(b, 'sec');
    assert.ok(!r.text.includes('a_user') && !r.text.includes('Người A'), r.text);
    return 1;
  },
  [`POST ${FS}/search`]: async () => {
    const r = await face(b, 'POST', '/search', { collection: 'sec', file: grace() });
    assert.equal(r.body.code, '404', r.text);
    assert.ok(!r.text.includes('a_user'));
    return 1;
  },
  [`POST ${FS}/create`]: async () => {
    // B's user of the same id in a collection of the same name is B's own.
    const r = await face(b, 'POST', '/create', { collection: 'sec', id: 'a_user', name: 'B' });
    assert.equal(r.body.code, '200', r.text);
    assert.equal((await face(b, 'DELETE', '/delete_collection', { collection: 'sec' })).body.code, '200');
    return 1;
  },
  [`POST ${FS}/add`]: async () => {
    const r = await face(b, 'POST', '/add', { collection: 'sec', id: 'b_user', file: grace() });
    assert.equal(r.body.code, '200', r.text);
    const search = await face(b, 'POST', '/search', { collection: 'sec', file: grace() });
    assert.equal(search.body.data?.id, 'b_user', "B's search finds only B's face");
    assert.equal((await face(b, 'DELETE', '/delete_collection', { collection: 'sec' })).body.code, '200');
    return 1;
  },
  [`DELETE ${FS}/delete`]: async () => {
    assert.equal((await face(b, 'DELETE', '/delete', { collection: 'sec', id: 'a_user' })).body.code, '404');
    return 1;
  },
  [`DELETE ${FS}/delete_faces`]: async () => {
    assert.equal((await face(b, 'DELETE', '/delete_faces', { collection: 'sec', id: 'a_user' })).body.code, '404');
    return 1;
  },
  [`DELETE ${FS}/delete_collection`]: async () => {
    assert.equal((await face(b, 'DELETE', '/delete_collection', { collection: 'sec' })).body.code, '404');
    return 1;
  },
  'GET /hmi/tts/v5/status/:request_id': async () => {
    const r = await call(t.url, 'GET', `/hmi/tts/v5/status/${a.ttsRequest}`, { headers: { api_key: b.apiKey } });
    notFound(r, 'TTS status');
    assert.equal(r.body.error, 10);
    return 1;
  },
  'POST /hmi/tts/v5': async () => {
    // B's new request gets its own id; A's request id cannot be forced on it.
    const res = await fetch(`${t.url}/hmi/tts/v5`, { method: 'POST', headers: { api_key: b.apiKey, request_id: a.ttsRequest }, body: 'Xin chào.' });
    const body = (await res.json()) as { request_id: string; error: number };
    assert.equal(body.error, 0, JSON.stringify(body));
    assert.notEqual(body.request_id, a.ttsRequest);
    return 1;
  },
  'GET /dmp/creditscoring/v1': async () => {
    const r = await call(t.url, 'GET', `/dmp/creditscoring/v1?phone=${PHONE}&dltype=1&decision_time=${T}`, { headers: { api_key: b.apiKey } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.alpha_score, -1, "B's score does not use A's history");
    assert.equal(r.body.score, -1);
    return 1;
  },
  'POST /session/init': async () => {
    const r = await call(t.url, 'POST', '/session/init', { headers: { api_key: b.apiKey, 'device-type': 'api' }, json: {} });
    assert.equal(r.status, 200, r.text);
    const row = await (t.deps.store.db as unknown as Kysely<EkycTables>)
      .selectFrom('ekyc_sessions')
      .select('app_code')
      .where('id', '=', r.body['session-id'])
      .executeTakeFirst();
    assert.equal(row?.app_code, b.appCode, "B's session belongs to B");
    return 1;
  },
  'POST /ocr': async () => {
    const r = await call(t.url, 'POST', '/ocr', {
      headers: { api_key: b.apiKey, 'session-id': await ekycSessionOfA(), 'device-type': 'api', 'document-type': 'idr' },
      json: {},
    });
    assert.equal(r.body.errorCode, '400', `B reaches A's eKYC session: ${r.text}`);
    return 1;
  },
  'GET /session/settings': async () => {
    assert.equal(
      (await call(t.url, 'PUT', '/session/settings', { headers: { api_key: t.apiKey }, json: { ekyc_flow: 3, allowed_origins: ['https://a.example'] } })).status,
      200,
    );
    const r = await call(t.url, 'GET', '/session/settings', { headers: { api_key: b.apiKey } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual([r.body.overrides, r.body.settings.ekyc_flow, r.body.allowed_origins], [{}, 1, []], "B sees A's settings");
    return 1;
  },
  'PUT /session/settings': async () => {
    const ofA = async () => (await call(t.url, 'GET', '/session/settings', { headers: { api_key: t.apiKey } })).body;
    const before = await ofA();
    const r = await call(t.url, 'PUT', '/session/settings', { headers: { api_key: b.apiKey }, json: { ekyc_flow: 4, allowed_origins: ['https://b.example'] } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(await ofA(), before, "B's settings changed A's");
    return 1;
  },
  'POST /face/liveness': async () => {
    const r = await call(t.url, 'POST', '/face/liveness', { headers: { api_key: b.apiKey, 'session-id': await ekycSessionOfA(), 'device-type': 'api' }, json: {} });
    assert.equal(r.body.code, '400', `B reaches A's eKYC session: ${r.text}`);
    return 1;
  },
};

/** Endpoints that keep no per-application record a caller could name, and why. */
const NO_RECORDS: Record<string, string> = {
  'POST /cmt': 'reads one image and answers; the face crop link it hands out is a capability URL (see PUBLIC)',
  'POST /vision/idr/vnm': 'reads one image and answers; nothing is kept',
  'POST /vision/idr-qual/vnm': 'measures one image and answers; nothing is kept',
  'POST /vision/vnm/id-fraudcheck': 'reads one image and answers; the card and face crop links it hands out are capability URLs (see PUBLIC)',
  'POST /dmp/checkface/v1': 'compares the faces of one request; nothing is kept',
  'POST /hmi/asr/general': 'recognises one upload; nothing is kept',
  'POST /vision/dlr/vnm': 'reads one licence image and answers; nothing is kept',
  'POST /vision/passport/vnm': 'reads one passport image and answers; nothing is kept',
  // The only per-application liveness row is the operator's threshold (liveness_thresholds, keyed by scope), written
  // by `saola eval liveness --write`, never through the API; it goes with the application's purge (purge.test.ts).
  'POST /dmp/checklive/v2': 'judges one video (and photo) and answers; nothing is kept',
  'POST /dmp/liveness/v3': 'judges one video (and photo) and answers; nothing is kept',
};

/**
 * The console's admin API: one operator over every application, signed in with the operator's password (never an
 * application's key or token, test/api/security/auth.test.ts); `:code` names the application the operator acts on.
 */
const OPERATOR_WIDE = (e: Endpoint) => isConsoleApi(e);

describe('tenancy over every endpoint', () => {
  before(async () => {
    // The console on; a bearer token that is not the password counts as a failed sign-in, so the lock-out is far away.
    t = await startTestApp({ env: { SAOLA_ADMIN_PASSWORD: PASSWORD, SAOLA_CONSOLE_MAX_FAILURES: '1000' } });
    b = await t.newTenant('tenant-b');
    // A's records in every service.
    a.sample = (await nlu(t, 'POST', '/sample', { content: 'riêng của A' })).body.code;
    a.entityCode = (await nlu(t, 'POST', '/entity', { label: a.entity, description: 'A', type: 1 })).body.code;
    a.intent = (await nlu(t, 'POST', '/intent', { label: 'sec_intent' })).body.code;
    const link = await nlu(t, 'POST', '/intent-sample', { intent_code: a.intent, sample_code: a.sample });
    assert.equal(link.status, 200, link.text);
    a.intentSample = link.body.intent_sample_code ?? link.body.code;
    const tag = await nlu(t, 'POST', '/entity-sample', { entity_code: a.entityCode, sample_code: a.sample, value: 'riêng', start: 0, end: 5 });
    assert.equal(tag.status, 200, tag.text);
    a.entitySample = tag.body.entity_sample_code;
    assert.equal((await face(t, 'POST', '/create', { collection: 'sec', id: 'a_user', name: 'Người A' })).body.code, '200');
    assert.equal((await face(t, 'POST', '/add', { collection: 'sec', id: 'a_user', file: grace() })).body.code, '200');
    // A's model (two intents with samples), a saved prediction, its threshold and a listed value.
    const second = await nlu(t, 'POST', '/sample', { content: 'một câu khác của A' });
    const otherIntent = (await nlu(t, 'POST', '/intent', { label: 'sec_other' })).body.code;
    assert.equal((await nlu(t, 'POST', '/intent-sample', { intent_code: otherIntent, sample_code: second.body.code })).status, 200);
    assert.equal((await nlu(t, 'POST', '/train')).status, 200);
    await eventually(async () => (await nlu(t, 'GET', '/train/status')).body.status === 2, { timeoutMs: 60_000, intervalMs: 200 });
    const predicted = await nlu(t, 'POST', '/predict', { content: 'riêng của A', save_history: true });
    assert.equal(predicted.status, 200, predicted.text);
    a.history = String(predicted.body.data.history_id);
    // In A's inbox whatever the model's confidence: B's inbox calls meet a real item of A's.
    assert.equal((await nlu(t, 'POST', '/inbox/report', { history_id: Number(a.history) })).status, 200);
    assert.equal((await nlu(t, 'PUT', '/settings', { threshold: 0.55 })).status, 200);
    assert.equal((await nlu(t, 'POST', `/entity/${a.entity}/keywords`, { value: 'riêng', synonyms: ['rieng'] })).status, 200);
    const tts = await fetch(`${t.url}/hmi/tts/v5`, { method: 'POST', headers: { api_key: t.apiKey }, body: 'Dữ liệu của A.' });
    a.ttsRequest = ((await tts.json()) as { request_id: string }).request_id;
    // Finished before the snapshots, so its status cannot move between them.
    await waitForStatus(t.url, t.apiKey, a.ttsRequest);
    const report = await importCsv(t.deps, t.appCode, historyCsv(PHONE, T));
    assert.equal(report.rejected, 0);
    for (const [k, v] of Object.entries(a)) assert.ok(v, `A's ${k} was created`);
  });
  after(() => t.close());

  it('every authenticated endpoint has a tenancy probe or is listed as holding no records', () => {
    const missing = endpoints(t.app)
      .filter((e) => !isPublic(e) && !OPERATOR_WIDE(e))
      .map((e) => `${e.method} ${e.url}`)
      .filter((k) => !(k in probes) && !(k in NO_RECORDS));
    assert.deepEqual(missing, [], 'add a probe for each new endpoint to test/api/security/tenancy.test.ts');
    const stale = Object.keys(probes).filter((k) => !endpoints(t.app).some((e) => `${e.method} ${e.url}` === k));
    assert.deepEqual(stale, [], 'probes for endpoints that no longer exist');
    const staleQuiet = Object.keys(NO_RECORDS).filter((k) => !endpoints(t.app).some((e) => `${e.method} ${e.url}` === k));
    assert.deepEqual(staleQuiet, [], 'NO_RECORDS entries for endpoints that no longer exist');
  });

  it("no application's key or token reaches the operator-wide console API, and its per-application views show only the named application", async () => {
    const consoleApi = endpoints(t.app).filter((e) => OPERATOR_WIDE(e) && !isPublic(e));
    assert.ok(consoleApi.length >= 10, `${consoleApi.length} console API routes`);
    let cases = 0;
    for (const e of consoleApi) {
      // A's and B's credentials, with A's code in the path: the console API is not theirs to call, on any application.
      for (const [who, headers] of [
        ['A key', { api_key: t.apiKey }],
        ['A token', { authorization: `Bearer ${t.token}` }],
        ['B key', { api_key: b.apiKey }],
        ['B token', { authorization: `Bearer ${b.token}` }],
      ] as const) {
        const hasBody = !['GET', 'DELETE'].includes(e.method);
        const res = await fetch(t.url + fill(e.url, () => t.appCode), {
          method: e.method,
          headers: { ...headers, ...(hasBody ? { 'content-type': 'application/json' } : {}) },
          body: hasBody ? JSON.stringify({ name: 'taken over', kind: 'api_key', service: 'tts', per_minute: 1, key: 'x', on: true }) : undefined,
        });
        const text = await res.text();
        assert.equal(res.status, 401, `${e.method} ${e.url} with ${who}: ${res.status} ${text.slice(0, 200)}`);
        assert.ok(!text.includes(t.appCode), `${e.method} ${e.url} names A`);
        cases++;
      }
    }
    // The operator's view of B holds none of A's records.
    const admin = { authorization: `Bearer ${PASSWORD}` };
    const ofA = await call(t.url, 'GET', `/console/api/apps/${t.appCode}/records`, { headers: admin });
    const ofB = await call(t.url, 'GET', `/console/api/apps/${b.appCode}/records`, { headers: admin });
    assert.equal(ofA.status, 200, ofA.text);
    assert.ok(ofA.body.records.nlu_samples >= 1, ofA.text);
    assert.equal(ofB.body.records.nlu_samples ?? 0, 0, ofB.text);
    assert.equal(ofB.body.records.face_users ?? 0, 0, ofB.text);
    const usageOfB = await call(t.url, 'GET', `/console/api/apps/${b.appCode}/usage`, { headers: admin });
    assert.equal(usageOfB.body.app_code, b.appCode);
    assert.ok(!usageOfB.text.includes(t.appCode), "B's usage names A");
    console.log(`# tenancy: ${consoleApi.length} console API routes refuse both applications' credentials (${cases} cases)`);
  });

  it("B's credentials against A's records get not-found, lists and counts never include them, and A's records are untouched", async () => {
    const before = await snapshotOfA();
    assert.equal(before.samples.length, 2, 'A has two samples (two intents to train on)');
    assert.equal(before.faces.data.length, 1);
    assert.ok(before.credit.alpha_score > 0);
    let cases = 0;
    for (const [name, probe] of Object.entries(probes)) {
      try {
        cases += await probe();
      } catch (err) {
        (err as Error).message = `${name}: ${(err as Error).message}`;
        throw err;
      }
    }
    console.log(`# tenancy: ${Object.keys(probes).length} endpoints probed, ${Object.keys(NO_RECORDS).length} hold no records, ${cases} cases`);
    assert.ok(cases >= 39, `${cases} cases`);
    const afterwards = await snapshotOfA();
    assert.deepEqual(afterwards, before, "A's records changed");
  });
});
