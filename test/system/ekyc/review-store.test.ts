/** The review desk's store on both engines: the list's filters, decisions with their audit rows, webhooks and deliveries, tenancy and the cascade from a session. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ReviewStore, SqlEkycStore } from '../../../src/ekyc/index.js';
import type { EkycWebhookDeliveryRow } from '../../../src/ekyc/review-schema.js';
import { newSessionRow } from '../../../src/ekyc/store.js';
import { useMigratedStore } from '../../support/store.js';

const at = (day: number) => new Date(Date.UTC(2026, 0, day, 12)).toISOString();
const audit = (id: string, app: string, session: string | null, action: string) => ({
  id,
  app_code: app,
  session_id: session,
  actor: 'R',
  action,
  detail: '{}',
  created_time: at(9),
});
const delivery = (id: string, app: string, session: string): EkycWebhookDeliveryRow => ({
  id,
  app_code: app,
  session_id: session,
  event: 'session.completed',
  url: 'https://example.com/hook',
  body: '{}',
  status: 'pending',
  attempts: 0,
  response_status: null,
  last_error: null,
  created_time: at(9),
  updated_time: at(9),
});

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`eKYC review store on ${engine}`, () => {
    const opened = useMigratedStore(engine, 'saola-ekyc-review-');

    it('lists an application\'s sessions by status, document type, date and "needs review", newest first', async () => {
      const sessions = SqlEkycStore.over(opened().db);
      const store = ReviewStore.over(opened().db);
      // Ids sort like their creation (UUIDv7): s1 < s2 < s3.
      const make = async (id: string, app: string, day: number, status: 'open' | 'complete' | 'failed', doc: string) => {
        await sessions.createSession(newSessionRow(id, app, 'api', null, new Date(at(day)), 1800_000));
        await sessions.updateSession(app, id, { status: 'open' }, { status, document_type: doc });
      };
      await make('0001-s1', 'a', 1, 'complete', 'idr');
      await make('0002-s2', 'a', 2, 'failed', 'passport');
      await make('0003-s3', 'a', 3, 'open', 'idr');
      await make('0004-b1', 'b', 3, 'complete', 'idr');
      const ids = async (f: Partial<Parameters<ReviewStore['sessions']>[1]>) => (await store.sessions('a', { limit: 10, ...f })).map((s) => s.id);
      assert.deepEqual(await ids({}), ['0003-s3', '0002-s2', '0001-s1']);
      assert.deepEqual(await ids({ status: 'complete' }), ['0001-s1']);
      assert.deepEqual(await ids({ documentType: 'passport' }), ['0002-s2']);
      assert.deepEqual(await ids({ from: at(2), to: at(3) }), ['0002-s2']);
      assert.deepEqual(await ids({ needsReview: true }), ['0002-s2', '0001-s1']);
      assert.deepEqual(await ids({ beforeId: '0003-s3', limit: 1 }), ['0002-s2']);

      await store.decide(
        { id: 'r1', app_code: 'a', session_id: '0001-s1', decision: 'rejected', reason: 'first', reviewer: 'R1', decided_time: at(4) },
        audit('0005-a1', 'a', '0001-s1', 'reject'),
      );
      await store.decide(
        { id: 'r2', app_code: 'a', session_id: '0001-s1', decision: 'approved', reason: 'second', reviewer: 'R2', decided_time: at(5) },
        audit('0006-a2', 'a', '0001-s1', 'approve'),
      );
      const review = await store.review('a', '0001-s1');
      assert.deepEqual([review?.decision, review?.reason, review?.reviewer], ['approved', 'second', 'R2']);
      assert.equal(await store.review('b', '0001-s1'), undefined);
      assert.deepEqual(await ids({ needsReview: true }), ['0002-s2']);
      assert.equal((await store.sessions('a', { limit: 10, status: 'complete' }))[0].decision, 'approved');
      assert.deepEqual(
        (await store.audit('a', '0001-s1', 10)).map((r) => r.action),
        ['approve', 'reject'],
      );
      assert.deepEqual(await store.audit('b', undefined, 10), []);
      assert.deepEqual(await store.sessions('b', { limit: 10, beforeId: '0009' }).then((r) => r.map((s) => s.id)), ['0004-b1']);
    });

    it("webhooks and deliveries per application; a session's rows go with it", async () => {
      const sessions = SqlEkycStore.over(opened().db);
      const store = ReviewStore.over(opened().db);
      await store.setWebhook({ id: 'a', app_code: 'a', url: 'https://one.example/h', secret: 's'.repeat(20), created_time: at(1), updated_time: at(1) });
      await store.setWebhook({ id: 'a', app_code: 'a', url: 'https://two.example/h', secret: 't'.repeat(20), created_time: at(2), updated_time: at(2) });
      const hook = await store.webhook('a');
      assert.deepEqual([hook?.url, hook?.secret, hook?.created_time, hook?.updated_time], ['https://two.example/h', 't'.repeat(20), at(1), at(2)]);
      assert.equal(await store.webhook('b'), undefined);

      await sessions.createSession(newSessionRow('0100-gone', 'a', 'api', null, new Date(at(1)), 1800_000));
      await store.addDelivery(delivery('d1', 'a', '0100-gone'));
      await store.updateDelivery('a', 'd1', { status: 'delivered', attempts: 2, response_status: 200 });
      await store.updateDelivery('b', 'd1', { status: 'failed' });
      assert.deepEqual(
        (await store.deliveries('a', '0100-gone', 10)).map((d) => [d.status, d.attempts, d.response_status]),
        [['delivered', 2, 200]],
      );
      assert.equal(await store.delivery('b', 'd1'), undefined);
      await store.addAudit(audit('0101-view', 'a', '0100-gone', 'view'));
      await store.decide(
        { id: 'r9', app_code: 'a', session_id: '0100-gone', decision: 'approved', reason: 'x', reviewer: 'R', decided_time: at(2) },
        audit('0102', 'a', '0100-gone', 'approve'),
      );
      await store.addAudit(audit('0103-hook', 'a', null, 'webhook.set'));
      // Retention and the purge delete sessions: their review, audit rows and deliveries go too.
      assert.equal(await sessions.deleteSessions(['0100-gone']), 1);
      assert.equal(await store.review('a', '0100-gone'), undefined);
      assert.deepEqual(await store.audit('a', '0100-gone', 10), []);
      assert.deepEqual(await store.deliveries('a', '0100-gone', 10), []);
      assert.ok(
        (await store.audit('a', undefined, 10)).some((r) => r.id === '0103-hook'),
        'an application-wide row stays',
      );
      assert.equal(await store.deleteWebhook('b'), false);
      assert.equal(await store.deleteWebhook('a'), true);
      assert.equal(await store.webhook('a'), undefined);
    });
  });
}
