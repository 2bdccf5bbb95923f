/**
 * The review desk and the webhooks on an in-process server (SQLite) through the console's API: the list's
 * filters, a session's page and images (tenancy), decisions with their audit rows, the webhook's settings
 * (SSRF refusal), and signed deliveries of `session.completed` (from a real selfie step) and
 * `session.reviewed`, retried after a receiver's 500.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EkycWebhooks, ReviewStore, SqlEkycStore, WebhookSettingsError } from '../../../src/ekyc/index.js';
import { loadWebhookConfig } from '../../../src/ekyc/webhooks.js';
import { PermanentJobError } from '../../../src/platform/jobs/queue.js';
import { startTestApp, type TestApp } from '../../../fixtures/servers/app.js';
import { call } from '../../support/http.js';
import { face } from '../../support/ekyc/cards.js';
import { addRefusedSide, seedEndedSession, signatureValid, startHookReceiver, type HookReceiver } from '../../support/ekyc/desk.js';
import { eventually } from '../../support/wait.js';

const PASSWORD = 'a long operator passphrase';
const photos = { front: face('person-a.jpg'), back: face('person-b.jpg'), selfie: face('person-c.jpg') };

describe('eKYC review desk and webhooks', () => {
  let t: TestApp;
  let receiver: HookReceiver;
  let secret: string;
  const admin = (method: string, path: string, json?: unknown) =>
    call(t.url, method, `/console/api/apps/${t.appCode}/ekyc${path}`, { headers: { authorization: `Bearer ${PASSWORD}` }, json });
  const deliveries = async () => (await admin('GET', '/deliveries')).body.deliveries as Record<string, any>[];

  before(async () => {
    t = await startTestApp({ env: { SAOLA_ADMIN_PASSWORD: PASSWORD, SAOLA_EKYC_WEBHOOK_ALLOW_PRIVATE: 'true', SAOLA_EKYC_RETRIES_WEB_SDK: '1' } });
    receiver = await startHookReceiver();
  });
  after(async () => {
    await t?.close();
    await receiver?.close();
  });

  it('webhook settings: a made secret shown once, a hint after; bad URLs are 400; the change is audited', async () => {
    assert.deepEqual((await admin('GET', '/webhook')).body, { webhook: null });
    assert.equal((await admin('PUT', '/webhook', { url: 'ftp://example.com/x' })).status, 400);
    assert.equal((await admin('PUT', '/webhook', { url: 'not a url' })).status, 400);
    assert.equal((await admin('PUT', '/webhook', { url: receiver.url, secret: 'short' })).status, 400);
    const set = await admin('PUT', '/webhook', { url: receiver.url });
    assert.equal(set.status, 200, set.text);
    secret = set.body.webhook.secret;
    assert.ok(secret.length >= 32);
    const shown = (await admin('GET', '/webhook')).body.webhook;
    assert.equal(shown.url, receiver.url);
    assert.equal(shown.secret, undefined);
    assert.equal(shown.secret_hint, `${secret.slice(0, 4)}…`);
    const audit = (await admin('GET', '/audit')).body.audit;
    assert.deepEqual(
      audit.map((a: Record<string, unknown>) => [a.action, a.actor, a.detail]),
      [['webhook.set', 'console', { url: receiver.url }]],
    );
    assert.ok(!JSON.stringify(audit).includes(secret), 'the secret is not in the audit trail');
  });

  it('without the operator setting, loopback and private targets are refused', async () => {
    const webhooks = new EkycWebhooks(ReviewStore.over(t.deps.store.db), t.deps.jobs, loadWebhookConfig({}));
    for (const url of ['http://127.0.0.1:9/x', 'http://10.1.2.3/x', 'http://[::1]/x', 'http://169.254.169.254/latest'])
      await assert.rejects(webhooks.set('ssrf-app', url, undefined), WebhookSettingsError, url);
    assert.equal(await webhooks.settings('ssrf-app'), null);
  });

  it('a try to a private address (the setting off at delivery, or a host that now resolves there) fails at once', async () => {
    const store = ReviewStore.over(t.deps.store.db);
    const webhooks = new EkycWebhooks(store, t.deps.jobs, { ...loadWebhookConfig({}), attempts: 5 });
    const tenant = await t.newTenant('ssrf-delivery');
    const s = await seedEndedSession(t, tenant.appCode, photos);
    const now = new Date().toISOString();
    await store.setWebhook({ id: tenant.appCode, app_code: tenant.appCode, url: receiver.url, secret: 'a secret of some length', created_time: now, updated_time: now });
    const id = 'ssrf-delivery-1';
    await store.addDelivery({
      id,
      app_code: tenant.appCode,
      session_id: s.id,
      event: 'session.completed',
      url: receiver.url,
      body: '{"event":"session.completed"}',
      status: 'pending',
      attempts: 0,
      response_status: null,
      last_error: null,
      created_time: now,
      updated_time: now,
    });
    const before = receiver.received.length;
    const job = {
      id: 'j',
      queue: 'ekyc-webhook',
      appCode: tenant.appCode,
      key: id,
      payload: { appCode: tenant.appCode, deliveryId: id },
      attempts: 1,
      maxAttempts: 5,
    } as never;
    await assert.rejects(webhooks.deliver(job, { signal: new AbortController().signal, progress: async () => undefined }), PermanentJobError);
    const row = await store.delivery(tenant.appCode, id);
    assert.equal(row?.status, 'failed');
    assert.match(row?.last_error ?? '', /FetchGuardError/);
    assert.equal(receiver.received.length, before, 'nothing reached the receiver');
  });

  it('a session ending in the selfie step sends a signed session.completed, retried after a 500', async () => {
    receiver.answers.push(500);
    const init = await call(t.url, 'POST', '/session/init', { headers: { 'api-key': t.apiKey, 'device-type': 'web-sdk' } });
    const sid = init.body['session-id'] as string;
    const store = SqlEkycStore.over(t.deps.store.db);
    const accepted = { kind: 'cccd_chip_front', items: [], fields: {}, image: `ekyc/${sid}/front.jpg` };
    await t.deps.blobs.put(accepted.image, photos.front);
    await store.updateSession(t.appCode, sid, { status: 'open' }, { front: JSON.stringify(accepted), back: JSON.stringify(accepted), document_type: 'idr' });
    const form = new FormData();
    form.append('selfies', new Blob([new Uint8Array(Buffer.from('not an image'))], { type: 'image/jpeg' }), 'selfie.jpg');
    const selfie = await fetch(`${t.url}/face/liveness`, { method: 'POST', headers: { 'api-key': t.apiKey, 'session-id': sid, 'device-type': 'web-sdk' }, body: form });
    const answer = (await selfie.json()) as Record<string, unknown>;
    assert.equal(answer.is_complete_session, true, JSON.stringify(answer));

    const delivered = await eventually(async () => (await deliveries()).find((d) => d.session_id === sid && d.status === 'delivered'), {
      timeoutMs: 30_000,
      what: () => JSON.stringify(receiver.received.map((r) => r.status)),
    });
    assert.equal(delivered.event, 'session.completed');
    assert.equal(delivered.attempts, 2, 'one 500, then delivered');
    assert.equal(delivered.response_status, 200);
    const hooks = receiver.received.filter((r) => JSON.parse(r.body).session_id === sid);
    assert.deepEqual(
      hooks.map((h) => h.status),
      [500, 200],
    );
    for (const hook of hooks) {
      assert.ok(signatureValid(hook, secret), 'signed with the secret over timestamp and body');
      assert.equal(hook.headers['x-saola-event'], 'session.completed');
      assert.equal(hook.headers['x-saola-delivery'], delivered.id);
    }
    assert.equal(signatureValid(hooks[1], 'another secret of some length'), false);
    const body = JSON.parse(hooks[1].body);
    assert.deepEqual(
      { event: body.event, id: body.id, status: body.data.status, code: body.data.code },
      { event: 'session.completed', id: delivered.id, status: 'failed', code: String(answer.code) },
    );
  });

  it("the list's filters, the session page, its images; another application sees none of it", async () => {
    const passed = await seedEndedSession(t, t.appCode, photos);
    const refused = await seedEndedSession(t, t.appCode, photos, { status: 'failed', code: '303', documentType: 'passport', created: new Date('2026-01-02T10:00:00Z') });
    const ids = async (q: string) => ((await admin('GET', `/sessions${q}`)).body.sessions as { id: string }[]).map((s) => s.id);
    assert.ok((await ids('')).includes(passed.id));
    assert.deepEqual(await ids('?document_type=passport'), [refused.id]);
    assert.ok((await ids('?status=complete')).includes(passed.id));
    assert.ok(!(await ids('?status=complete')).includes(refused.id));
    assert.deepEqual(await ids('?from=2026-01-02&to=2026-01-02'), [refused.id]);
    assert.ok((await ids('?needs_review=true')).includes(passed.id));
    const page = await admin('GET', '/sessions?limit=1');
    assert.equal(page.body.sessions.length, 1);
    assert.equal(page.body.next_before, page.body.sessions[0].id);
    for (const bad of ['?status=done', '?document_type=visa', '?limit=0', '?from=yesterday']) assert.equal((await admin('GET', `/sessions${bad}`)).status, 400, bad);

    const kept = await addRefusedSide(t, t.appCode, passed.id, photos.back);
    const detail = await admin('GET', `/sessions/${passed.id}?viewer=Reviewer%20One`);
    assert.equal(detail.status, 200, detail.text);
    const d = detail.body;
    assert.equal(d.session.status, 'complete');
    assert.deepEqual(
      d.sides.map((s: Record<string, any>) => [s.side, s.image_id, s.fields[0].key, s.checks.quality]),
      [
        ['front', passed.images.front, 'ID', 'passed'],
        ['back', passed.images.back, 'Issue Date', 'passed'],
      ],
    );
    assert.deepEqual(
      d.selfies.map((s: Record<string, unknown>) => s.image_id),
      [passed.images.selfie],
    );
    // The refused side: its code, its checks' results and measures, its image (served like the others).
    assert.deepEqual(
      d.refused.map((r: Record<string, unknown>) => [r.side, r.code, r.image_id, r.checks]),
      [['front', 'QC03', kept.imageId, { quality: 'failed' }]],
    );
    assert.deepEqual(d.refused[0].details.quality.final_result, { blurredLikelihood: 'likely' });
    const refusedImage = await call(t.url, 'GET', `/console/api/apps/${t.appCode}/ekyc/sessions/${passed.id}/images/${kept.imageId}`, {
      headers: { authorization: `Bearer ${PASSWORD}` },
    });
    assert.equal(refusedImage.status, 200);
    assert.equal(d.result.face_match.similarity, '91.5');
    assert.equal(d.needs_review, true);
    assert.deepEqual(
      d.audit.map((a: Record<string, unknown>) => [a.action, a.actor]),
      [],
      'the view being answered is audited after it is read',
    );
    const views = (await admin('GET', `/audit?session=${passed.id}`)).body.audit;
    assert.deepEqual(
      views.map((a: Record<string, unknown>) => [a.action, a.actor]),
      [['view', 'Reviewer One']],
    );
    const image = await call(t.url, 'GET', `/console/api/apps/${t.appCode}/ekyc/sessions/${passed.id}/images/${passed.images.selfie}`, {
      headers: { authorization: `Bearer ${PASSWORD}` },
    });
    assert.equal(image.status, 200);
    assert.equal(image.headers.get('content-type'), 'image/jpeg');
    assert.match(image.headers.get('cache-control') ?? '', /no-store/);

    // Tenancy: B's code with A's session or image, A's code with an image of another session, no sign-in.
    const other = await t.newTenant('desk-other');
    const asB = (path: string) => call(t.url, 'GET', `/console/api/apps/${other.appCode}/ekyc${path}`, { headers: { authorization: `Bearer ${PASSWORD}` } });
    assert.equal((await asB(`/sessions/${passed.id}`)).status, 404);
    assert.equal((await asB(`/sessions/${passed.id}/images/${passed.images.front}`)).status, 404);
    assert.deepEqual((await asB('/sessions')).body.sessions, []);
    assert.equal((await admin('GET', `/sessions/${refused.id}/images/${passed.images.front}`)).status, 404);
    assert.equal((await admin('GET', '/sessions/no-such-session')).status, 404);
    assert.equal((await call(t.url, 'GET', `/console/api/apps/${t.appCode}/ekyc/sessions/${passed.id}/images/${passed.images.front}`)).status, 401);
    assert.equal((await call(t.url, 'GET', `/console/api/apps/no-such-app/ekyc/sessions`, { headers: { authorization: `Bearer ${PASSWORD}` } })).status, 404);
  });

  it('a decision: refused on an open session or bad input; stored, audited and sent as session.reviewed', async () => {
    const open = (await call(t.url, 'POST', '/session/init', { headers: { 'api-key': t.apiKey, 'device-type': 'api' } })).body['session-id'];
    const decide = (id: string, body: unknown) => admin('POST', `/sessions/${id}/review`, body);
    assert.equal((await decide(open, { decision: 'approve', reason: 'looks fine', reviewer: 'R1' })).status, 409);
    const s = await seedEndedSession(t, t.appCode, photos);
    assert.equal((await decide(s.id, { decision: 'maybe', reason: 'x', reviewer: 'R1' })).status, 400);
    assert.equal((await decide(s.id, { decision: 'reject', reason: '  ', reviewer: 'R1' })).status, 400);
    assert.equal((await decide(s.id, { decision: 'reject', reason: 'x', reviewer: '' })).status, 400);
    assert.equal((await decide(s.id, { decision: 'reject' })).status, 400);

    const rejected = await decide(s.id, { decision: 'reject', reason: 'The selfie is a photo of a screen', reviewer: 'Reviewer One' });
    assert.equal(rejected.status, 200, rejected.text);
    assert.equal(rejected.body.review.decision, 'rejected');
    const approved = await decide(s.id, { decision: 'approve', reason: 'Checked again with the customer', reviewer: 'Reviewer Two' });
    assert.equal(approved.body.review.decision, 'approved');
    const detail = (await admin('GET', `/sessions/${s.id}`)).body;
    assert.deepEqual(
      { decision: detail.review.decision, reviewer: detail.review.reviewer, reason: detail.review.reason },
      { decision: 'approved', reviewer: 'Reviewer Two', reason: 'Checked again with the customer' },
    );
    assert.equal(detail.needs_review, false);
    assert.deepEqual(
      detail.audit.map((a: Record<string, any>) => [a.action, a.actor, a.detail.reason]),
      [
        ['approve', 'Reviewer Two', 'Checked again with the customer'],
        ['reject', 'Reviewer One', 'The selfie is a photo of a screen'],
      ],
    );
    assert.ok(!((await admin('GET', '/sessions?needs_review=true')).body.sessions as { id: string }[]).some((x) => x.id === s.id));

    const sent = await eventually(
      async () => {
        const mine = (await deliveries()).filter((d) => d.session_id === s.id);
        return mine.length === 2 && mine.every((d) => d.status === 'delivered') ? mine : undefined;
      },
      { timeoutMs: 30_000, what: () => 'both decisions delivered' },
    );
    assert.deepEqual(
      sent.map((d) => d.event),
      ['session.reviewed', 'session.reviewed'],
    );
    const hooks = receiver.received
      .filter((r) => JSON.parse(r.body).session_id === s.id)
      .map((r) => ({ valid: signatureValid(r, secret), data: JSON.parse(r.body).data }));
    assert.deepEqual(hooks.map((h) => [h.valid, h.data.decision, h.data.reviewer]).sort(), [
      [true, 'approved', 'Reviewer Two'],
      [true, 'rejected', 'Reviewer One'],
    ]);
  });

  it('a removed webhook: later events are not queued; removal is audited', async () => {
    assert.deepEqual((await admin('DELETE', '/webhook')).body, { removed: true });
    const before = (await deliveries()).length;
    const s = await seedEndedSession(t, t.appCode, photos);
    const r = await admin('POST', `/sessions/${s.id}/review`, { decision: 'approve', reason: 'ok', reviewer: 'R' });
    assert.equal(r.body.delivery_id, null);
    assert.equal((await deliveries()).length, before);
    assert.equal((await admin('GET', '/audit')).body.audit.filter((a: Record<string, unknown>) => a.action === 'webhook.remove').length, 1);
  });
});
