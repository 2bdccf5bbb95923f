import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { purgeApplication } from '../../../src/platform/purge.js';
import { purgeHooks } from '../../../src/services.js';
import type { HistoryRow } from '../../../src/nlu/schema.js';
import { startTestApp, type Tenant, type TestApp } from '../../../fixtures/servers/app.js';
import { createTestDatabase, type TestDatabase } from '../../../fixtures/servers/postgres.js';
import { waitForValue } from '../../support/wait.js';
import { call } from '../../support/http.js';

/**
 * The inbox over HTTP on SQLite and PostgreSQL: unsure saved predictions come in grouped, an end user's report
 * brings one in, a label makes samples that remember their origin and a retrain learns them; dismiss, out of
 * scope, counts per day; masking, retention, tenancy and the purge.
 */

const DATA: Record<string, string[]> = {
  book_flight: ['đặt vé máy bay đi Huế', 'mua vé bay ra Hà Nội', 'tôi muốn bay vào Sài Gòn', 'đặt chuyến bay đi Đà Nẵng', 'vé máy bay đi Huế giá bao nhiêu'],
  weather: ['thời tiết Huế hôm nay', 'ngày mai Hà Nội có mưa không', 'trời Sài Gòn nóng không', 'dự báo thời tiết Đà Nẵng', 'nhiệt độ ở Huế bao nhiêu'],
  greeting: ['xin chào', 'chào bạn', 'chào buổi sáng', 'hello bạn ơi', 'chào em nhé'],
};
const HOTEL = ['đặt phòng khách sạn ở Huế', 'đặt phòng khách sạn ở Hà Nội', 'mình muốn đặt phòng khách sạn ở Đà Nẵng'];
const OTHER = ['mấy giờ ngân hàng mở cửa', 'kể chuyện cười đi'];

function inboxSuite(engine: 'sqlite' | 'postgres') {
  describe(`NLU inbox on ${engine}`, () => {
    let t: TestApp;
    let pgdb: TestDatabase | undefined;
    let other: Tenant;
    const api = (method: string, path: string, json?: unknown) => call(t.url, method, path, { token: t.token, json });
    const train = async () => {
      assert.equal((await api('POST', '/api/v3/train')).status, 200);
      const done = await waitForValue(
        'training',
        () => api('GET', '/api/v3/train/status'),
        (r) => r.body.status >= 2 && r.body.trainable === false,
      );
      assert.equal(done.body.status, 2);
    };

    before(async () => {
      if (engine === 'postgres') pgdb = await createTestDatabase();
      t = await startTestApp({ databaseUrl: pgdb?.url });
      other = await t.newTenant('other-app');
      const rows = Object.entries(DATA).flatMap(([intent, texts]) => texts.map((sample) => ({ intent, sample })));
      assert.equal((await api('POST', '/api/v3/intent-sample/import_intent_samples', rows)).status, 200);
      await train();
    });
    after(async () => {
      await t?.close();
      await pgdb?.drop();
    });

    test('unsure predictions come in grouped; a report brings one in; a label makes samples a retrain learns', async () => {
      // Every saved prediction is unsure under this threshold; an unsaved one never comes in.
      await api('PUT', '/api/v3/settings', { threshold: 0.99 });
      await api('POST', '/api/v3/predict', { content: 'đặt phòng khách sạn ở Sài Gòn' });
      for (const content of [...HOTEL, ...OTHER]) {
        const r = await api('POST', '/api/v3/predict', { content, save_history: true });
        assert.equal(r.status, 200);
        assert.equal(r.body.data.intents.length, 0, 'the client still sees only intents above its threshold');
      }
      // A prediction of entities only is not judged, until an end user reports it.
      const entitiesOnly = await api('POST', '/api/v3/predict/entity', { content: 'sai rồi, tôi muốn hủy vé', save_history: true });
      assert.equal((await api('GET', '/api/v3/inbox')).body.total_items, HOTEL.length + OTHER.length);
      const reported = await api('POST', '/api/v3/inbox/report', { history_id: entitiesOnly.body.data.history_id, comment: 'bot hiểu sai' });
      assert.equal(reported.status, 200);
      assert.deepEqual([reported.body.reasons, reported.body.comment, reported.body.state], [['reported'], 'bot hiểu sai', 'open']);

      const page = (await api('GET', '/api/v3/inbox')).body;
      assert.equal(page.total_items, HOTEL.length + OTHER.length + 1);
      assert.equal(page.similarity, 0.5);
      const hotel = page.groups[0];
      assert.deepEqual(hotel.items.map((i: any) => i.content).sort(), [...HOTEL].sort(), 'the largest group first, the similar texts together');
      assert.ok(hotel.items.every((i: any) => i.reasons.includes('low_confidence') && i.top_intent !== '' && i.top_confidence < 0.99));
      assert.equal(page.total_groups, page.groups.length);
      assert.equal((await api('GET', '/api/v3/inbox?reason=reported')).body.total_items, 1);
      assert.equal((await api('GET', '/api/v3/inbox?limit=1&offset=1')).body.groups.length, 1);

      // Label the group, with a span on one item; a missing entity and an unknown item are refused whole.
      await api('POST', '/api/v3/entity', { label: 'city', description: 'thành phố', type: 1 });
      const items = hotel.items.map((i: any) => {
        const at = Array.from(i.content as string)
          .join('')
          .indexOf('Huế');
        return at >= 0 ? { history_id: i.history_id, entities: [{ entity: 'city', start: at, end: at + 3 }] } : { history_id: i.history_id };
      });
      const unknown = await api('POST', '/api/v3/inbox/label', { intent: 'book_hotel', items: [...items, { history_id: 1 }] });
      assert.equal(unknown.status, 404);
      assert.deepEqual(Object.keys(unknown.body).sort(), ['code', 'error', 'message', 'statusCode']);
      assert.equal(unknown.body.code, 'INBOX_ITEM_NOT_FOUND');
      const badEntity = await api('POST', '/api/v3/inbox/label', {
        intent: 'book_hotel',
        items: [{ history_id: items[0].history_id, entities: [{ entity: 'nope', start: 0, end: 3 }] }],
      });
      assert.equal(badEntity.body.code, 'ENTITY_NOT_FOUND');
      const labelled = await api('POST', '/api/v3/inbox/label', { intent: 'book_hotel', items });
      assert.equal(labelled.status, 200, labelled.text);
      assert.deepEqual(labelled.body, { labelled: 3, samples_created: 3, samples_skipped: 0, intents_created: 1 });

      const samples = (await api('GET', '/api/v3/sample')).body.filter((s: any) => s.intent_label === 'book_hotel');
      assert.deepEqual(samples.map((s: any) => s.content).sort(), [...HOTEL].sort());
      assert.deepEqual(samples.find((s: any) => s.content.includes('Huế')).entities, ['city']);
      const done = (await api('GET', '/api/v3/inbox?state=labelled')).body.groups.flatMap((g: any) => g.items);
      assert.equal(done.length, 3);
      const origin = await api('GET', `/api/v3/sample/${done[0].sample_code}/origin`);
      assert.deepEqual([origin.body.source, origin.body.history_id], ['inbox', done[0].history_id]);
      const typed = (await api('GET', '/api/v3/sample')).body.find((s: any) => s.intent_label === 'greeting');
      assert.equal((await api('GET', `/api/v3/sample/${typed.code}/origin`)).body.code, 'SAMPLE_ORIGIN_NOT_FOUND');

      // Dismiss one, mark one out of scope: the open inbox holds only the report.
      const open = (await api('GET', '/api/v3/inbox')).body.groups.flatMap((g: any) => g.items);
      const others = open.filter((i: any) => OTHER.includes(i.content)).map((i: any) => i.history_id);
      assert.deepEqual((await api('POST', '/api/v3/inbox/dismiss', { history_ids: [others[0]] })).body, { resolved: 1 });
      assert.deepEqual((await api('POST', '/api/v3/inbox/out-of-scope', { history_ids: [others[1]] })).body, { resolved: 1 });
      assert.equal((await api('GET', '/api/v3/inbox')).body.total_items, 1);
      const stats = (await api('GET', '/api/v3/inbox/stats?days=2')).body.days;
      assert.equal(stats.length, 2);
      assert.deepEqual(stats[1], { day: new Date().toISOString().slice(0, 10), added: 6, reported: 1, labelled: 3, dismissed: 1, out_of_scope: 1 });

      // The retrain learns the labelled texts.
      await api('PUT', '/api/v3/settings', { threshold: 0.3 });
      await train();
      const answer = await api('POST', '/api/v3/predict/intent', { content: HOTEL[0] });
      assert.equal(answer.body.data.intents[0].label, 'book_hotel');

      // Each version has its cross-validated report; comparing the two shows the new intent.
      const report = await waitForValue(
        'report',
        () => api('GET', '/api/v3/train/report'),
        (r) => r.body.state !== 'waiting',
      );
      assert.equal(report.body.state, 'ready', report.text);
      assert.equal(report.body.folds, 5);
      assert.equal(report.body.samples, 18);
      assert.deepEqual(report.body.intents.per_intent.map((r: any) => r.intent).sort(), ['book_flight', 'book_hotel', 'greeting', 'weather']);
      assert.ok(report.body.entities.per_label.some((r: any) => r.entity === 'city'));
      const compared = await waitForValue(
        'both reports',
        () => api('GET', '/api/v3/train/report/compare'),
        (r) => r.status !== 200 || r.body.intents.length > 0,
      );
      assert.equal(compared.status, 200, compared.text);
      assert.equal(compared.body.to, report.body.model_code);
      const hotelChange = compared.body.intents.find((r: any) => r.intent === 'book_hotel');
      assert.equal(hotelChange.from, 0);
      assert.equal(hotelChange.to, report.body.intents.per_intent.find((r: any) => r.intent === 'book_hotel').f1);
      assert.equal((await api('GET', '/api/v3/train/report?model_code=nope')).body.code, 'REPORT_NOT_FOUND');

      // Tenancy: another application sees nothing and cannot touch these.
      const theirs = (m: string, p: string, json?: unknown) => call(t.url, m, p, { token: other.token, json });
      assert.equal((await theirs('GET', '/api/v3/inbox?state=labelled')).body.total_items, 0);
      assert.equal((await theirs('POST', '/api/v3/inbox/dismiss', { history_ids: [others[0]] })).status, 404);
      assert.equal((await theirs('POST', '/api/v3/inbox/report', { history_id: others[0] })).body.code, 'HISTORY_NOT_FOUND');
    });

    test('masking before a text is saved; retention deletes old predictions and their items; the purge takes all', async () => {
      const theirs = (m: string, p: string, json?: unknown) => call(t.url, m, p, { token: other.token, json });
      assert.deepEqual((await theirs('GET', '/api/v3/inbox/settings')).body, { history_retention_days: 0, mask_history: false });
      assert.equal((await theirs('PUT', '/api/v3/inbox/settings', { history_retention_days: -1 })).status, 400);
      assert.deepEqual((await theirs('PUT', '/api/v3/inbox/settings', { mask_history: true })).body, { history_retention_days: 0, mask_history: true });
      await theirs('POST', '/api/v3/intent-sample/import_intent_samples', [
        { intent: 'call', sample: 'gọi cho tôi số 0901234567' },
        { intent: 'call', sample: 'gọi lại số này' },
        { intent: 'mail', sample: 'gửi thư cho tôi' },
        { intent: 'mail', sample: 'gửi email giúp tôi' },
      ]);
      assert.equal((await theirs('POST', '/api/v3/train')).status, 200);
      await waitForValue(
        'training',
        () => theirs('GET', '/api/v3/train/status'),
        (r) => r.body.status === 2,
      );
      const text = 'gọi 0901 234 567 hoặc gửi an.nguyen@example.com mã KH12345, 20 giờ';
      const saved = await theirs('POST', '/api/v3/predict', { content: text, save_history: true });
      assert.match(JSON.stringify(saved.body.data.entities), /20/, 'the answer itself is not masked');
      const history = (await theirs('GET', '/api/v3/history')).body.items[0];
      assert.equal(history.content, 'gọi #### ### ### hoặc gửi **.******@*******.*** mã #######, ## giờ');
      assert.equal(Array.from(history.content).length, Array.from(text).length, 'offsets still point at the same places');
      assert.doesNotMatch(JSON.stringify([history.content, history.entities.map((e: any) => [e.value, e.real_value])]), /\d/);

      // Retention: a prediction saved 3 days ago goes when the setting says 2 days (its inbox item with it).
      const old: HistoryRow = {
        id: 42,
        app_code: other.appCode,
        content: 'cũ',
        answer: '{"intents":[],"entities":[]}',
        created_time: new Date(Date.now() - 3 * 86_400_000).toISOString(),
      };
      await t.deps.store.db.withTables<{ nlu_history: HistoryRow }>().insertInto('nlu_history').values(old).execute();
      assert.equal((await theirs('POST', '/api/v3/inbox/report', { history_id: 42 })).status, 200);
      assert.equal((await theirs('GET', '/api/v3/history')).body.total, 2);
      await theirs('PUT', '/api/v3/inbox/settings', { history_retention_days: 2 });
      assert.equal((await theirs('GET', '/api/v3/history')).body.total, 1);
      assert.equal((await theirs('GET', '/api/v3/inbox?reason=reported')).body.total_items, 0);

      await theirs('POST', '/api/v3/inbox/report', { history_id: history.history_id });
      const report = await purgeApplication({ store: t.deps.store, blobs: t.deps.blobs }, other.appCode, purgeHooks);
      // The history goes first (in name order), its inbox items with it.
      assert.equal(report.rows.nlu_history, 1);
      const left = await t.deps.store.db
        .withTables<{ nlu_inbox: { app_code: string } }>()
        .selectFrom('nlu_inbox')
        .selectAll()
        .where('app_code', '=', other.appCode)
        .execute();
      assert.equal(left.length, 0);
      assert.equal(report.rows.nlu_history_settings, 1);
      assert.ok((await api('GET', '/api/v3/inbox?state=labelled')).body.total_items === 3, 'mine stay');
    });
  });
}

inboxSuite('sqlite');
inboxSuite('postgres');
