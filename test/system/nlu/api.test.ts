import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { NluTables } from '../../../src/nlu/schema.js';
import { serviceDb } from '../../../src/platform/db/database.js';
import { startTestApp, type Tenant, type TestApp } from '../../../fixtures/servers/app.js';
import { call } from '../../support/http.js';
import { createTestDatabase, type TestDatabase } from '../../../fixtures/servers/postgres.js';

/**
 * Every endpoint of /api/v3 and its error paths, over real HTTP, run once on
 * the embedded SQLite store and once on PostgreSQL.
 */
function nluSuite(engine: 'sqlite' | 'postgres') {
  describe(`NLU training-data API on ${engine}`, () => {
    let t: TestApp;
    let pgdb: TestDatabase | undefined;
    let other: Tenant;
    const api = (method: string, path: string, opts: Parameters<typeof call>[3] = {}) => call(t.url, method, path, { token: t.token, ...opts });

    before(async () => {
      if (engine === 'postgres') pgdb = await createTestDatabase();
      t = await startTestApp({ databaseUrl: pgdb?.url });
      other = await t.newTenant('other-app');
    });
    after(async () => {
      await t?.close();
      await pgdb?.drop();
    });

    test('a request without a valid bearer token is refused with 401 in JSON', async () => {
      const none = await call(t.url, 'GET', '/api/v3/sample');
      assert.equal(none.status, 401);
      assert.equal(none.body.code, 'UNAUTHORIZED');
      const wrong = await call(t.url, 'GET', '/api/v3/sample', { token: 'st_not-a-real-token' });
      assert.equal(wrong.status, 401);
      const apiKeyAsBearer = await call(t.url, 'GET', '/api/v3/sample', { token: t.apiKey });
      assert.equal(apiKeyAsBearer.status, 401, 'an API key is not a bearer token');
    });

    test('sample create, list, detail, update, delete', async () => {
      const created = await api('POST', '/api/v3/sample', { json: { content: 'xin chào bạn' } });
      assert.equal(created.status, 200);
      assert.deepEqual(Object.keys(created.body).sort(), ['app_code', 'code', 'content', 'created_time']);
      assert.equal(created.body.app_code, t.appCode);
      assert.equal(created.body.content, 'xin chào bạn');
      assert.ok(!Number.isNaN(Date.parse(created.body.created_time)));
      const code = created.body.code;

      const list = await api('GET', '/api/v3/sample');
      const item = list.body.find((s: any) => s.code === code);
      assert.deepEqual(item, {
        code,
        app_code: t.appCode,
        content: 'xin chào bạn',
        created_time: created.body.created_time,
        intent_label: '',
        intent_type: 0,
        entities: [],
      });

      const detail = await api('GET', `/api/v3/sample/${code}`);
      assert.equal(detail.status, 200);
      assert.deepEqual(detail.body.intent, { intent_sample_code: '', intent_code: '', sample_code: '', intent_label: '' });
      assert.deepEqual(detail.body.entities, []);

      const updated = await api('PUT', `/api/v3/sample/${code}`, { json: { content: 'chào buổi sáng' } });
      assert.equal(updated.status, 200);
      assert.equal(updated.body.content, 'chào buổi sáng');
      assert.equal((await api('GET', `/api/v3/sample/${code}`)).body.content, 'chào buổi sáng');

      const viaQuery = await api('PUT', `/api/v3/sample/${code}?content=${encodeURIComponent('chào buổi tối')}`);
      assert.equal(viaQuery.status, 200, 'the spec lists content as a query parameter too');
      assert.equal(viaQuery.body.content, 'chào buổi tối');

      const removed = await api('DELETE', `/api/v3/sample/${code}`);
      assert.equal(removed.status, 200);
      assert.equal(typeof removed.body.message, 'string');
      assert.equal((await api('GET', `/api/v3/sample/${code}`)).status, 404);
      assert.equal((await api('DELETE', `/api/v3/sample/${code}`)).body.code, 'SAMPLE_NOT_FOUND');
    });

    test('sample validation: empty content and missing content are 400', async () => {
      const empty = await api('POST', '/api/v3/sample', { json: { content: '   ' } });
      assert.equal(empty.status, 400);
      assert.equal(empty.body.code, 'EMPTY_CONTENT');
      const missing = await api('POST', '/api/v3/sample', { json: { text: 'x' } });
      assert.equal(missing.status, 400);
      assert.equal(missing.body.code, 'INVALID_REQUEST');
      const badJson = await api('POST', '/api/v3/sample', { body: '{"content":', headers: { 'content-type': 'application/json' } });
      assert.equal(badJson.status, 400);
    });

    test('a NUL character in content, a query parameter or a code is a 400 on every store, and nothing is stored', async () => {
      const before = (await api('GET', '/api/v3/sample')).body.length;
      const inBody = await api('POST', '/api/v3/sample', { json: { content: 'xin chào\u0000bạn' } });
      assert.equal(inBody.status, 400, JSON.stringify(inBody.body));
      assert.equal(inBody.body.code, 'INVALID_REQUEST');
      assert.match(inBody.body.message, /NUL/);
      const created = await api('POST', '/api/v3/sample', { json: { content: 'một mẫu thật' } });
      const inQuery = await api('PUT', `/api/v3/sample/${created.body.code}?content=a%00b`);
      assert.equal(inQuery.status, 400, JSON.stringify(inQuery.body));
      assert.equal((await api('GET', `/api/v3/sample/${created.body.code}`)).body.content, 'một mẫu thật');
      const inPath = await api('GET', '/api/v3/sample/abc%00def');
      assert.equal(inPath.status, 400, JSON.stringify(inPath.body));
      assert.equal((await api('GET', '/api/v3/sample')).body.length, before + 1);
    });

    test('entities: create, get, list, update (description only), delete, label rules and duplicates', async () => {
      const created = await api('POST', '/api/v3/entity', { json: { label: 'city', description: 'tên thành phố', type: 2 } });
      assert.equal(created.status, 200);
      assert.deepEqual(Object.keys(created.body).sort(), ['app_code', 'code', 'created_time', 'description', 'label', 'type']);
      assert.equal(created.body.type, 2);

      const dup = await api('POST', '/api/v3/entity', { json: { label: 'city', description: 'again', type: 1 } });
      assert.equal(dup.status, 409);
      assert.equal(dup.body.code, 'ENTITY_LABEL_TAKEN');

      for (const label of ['City', 'thành_phố', 'a-b', 'a b', '']) {
        const bad = await api('POST', '/api/v3/entity', { json: { label, description: 'x', type: 1 } });
        assert.equal(bad.status, 400, `label "${label}" must be refused`);
        assert.equal(bad.body.code, 'INVALID_LABEL');
      }
      for (const type of [0, 4, -1]) {
        const bad = await api('POST', '/api/v3/entity', { json: { label: 'ok_label', description: 'x', type } });
        assert.equal(bad.status, 400);
        assert.equal(bad.body.code, 'INVALID_ENTITY_TYPE');
      }

      const got = await api('GET', '/api/v3/entity/city');
      assert.deepEqual(got.body, created.body);
      const list = await api('GET', '/api/v3/entity');
      assert.ok(list.body.some((e: any) => e.code === created.body.code));

      const updated = await api('PUT', '/api/v3/entity/city', { json: { description: 'thành phố lớn', type: 3 } });
      assert.equal(updated.status, 200);
      assert.equal(updated.body.description, 'thành phố lớn');
      assert.equal(updated.body.type, 2, 'only the description changes on update');
      const missingType = await api('PUT', '/api/v3/entity/city', { json: { description: 'x' } });
      assert.equal(missingType.status, 400, 'type is still required');

      assert.equal((await api('GET', '/api/v3/entity/nope')).status, 404);
      const deleted = await api('DELETE', '/api/v3/entity/city');
      assert.equal(deleted.status, 200);
      assert.equal((await api('GET', '/api/v3/entity/city')).status, 404);
    });

    test('intents: create, get by code or label, update, delete, duplicates', async () => {
      const created = await api('POST', '/api/v3/intent', { json: { label: 'greet', description: 'chào hỏi', type: 1 } });
      assert.equal(created.status, 200);
      assert.equal(created.body.label, 'greet');
      assert.equal((await api('POST', '/api/v3/intent', { json: { label: 'greet' } })).status, 409);
      assert.equal((await api('POST', '/api/v3/intent', { json: { label: 'Greet!' } })).body.code, 'INVALID_LABEL');
      assert.equal((await api('GET', `/api/v3/intent/${created.body.code}`)).body.label, 'greet');
      assert.equal((await api('GET', '/api/v3/intent/greet')).body.code, created.body.code);
      const renamed = await api('PUT', `/api/v3/intent/${created.body.code}`, { json: { label: 'greeting', description: 'lời chào' } });
      assert.equal(renamed.body.label, 'greeting');
      assert.equal(renamed.body.description, 'lời chào');
      assert.ok((await api('GET', '/api/v3/intent')).body.some((i: any) => i.label === 'greeting'));
      assert.equal((await api('DELETE', `/api/v3/intent/${created.body.code}`)).status, 200);
      assert.equal((await api('GET', `/api/v3/intent/${created.body.code}`)).status, 404);
    });

    test('intent-sample mapping: create, one intent per sample, list and detail show it, delete', async () => {
      const intent = (await api('POST', '/api/v3/intent', { json: { label: 'book_ticket', type: 2 } })).body;
      const sample = (await api('POST', '/api/v3/sample', { json: { content: 'đặt vé đi Đà Nẵng' } })).body;
      const link = await api('POST', '/api/v3/intent-sample', { json: { intent_code: intent.code, sample_code: sample.code } });
      assert.equal(link.status, 200);
      assert.deepEqual(link.body, {
        intent_sample_code: link.body.intent_sample_code,
        intent_code: intent.code,
        sample_code: sample.code,
        intent_label: '',
        intent_type: 2,
        intent_description: '',
      });
      const again = await api('POST', '/api/v3/intent-sample', { json: { intent_code: intent.code, sample_code: sample.code } });
      assert.equal(again.status, 409);

      const listed = (await api('GET', '/api/v3/sample')).body.find((s: any) => s.code === sample.code);
      assert.equal(listed.intent_label, 'book_ticket');
      assert.equal(listed.intent_type, 2);
      const detail = (await api('GET', `/api/v3/sample/${sample.code}`)).body;
      assert.deepEqual(detail.intent, {
        intent_sample_code: link.body.intent_sample_code,
        intent_code: intent.code,
        sample_code: sample.code,
        intent_label: 'book_ticket',
      });

      assert.equal((await api('POST', '/api/v3/intent-sample', { json: { intent_code: 'nope', sample_code: sample.code } })).status, 404);
      assert.equal((await api('POST', '/api/v3/intent-sample', { json: { intent_code: intent.code, sample_code: 'nope' } })).status, 404);

      assert.equal((await api('DELETE', `/api/v3/intent-sample/${link.body.intent_sample_code}`)).status, 200);
      assert.equal((await api('GET', `/api/v3/sample/${sample.code}`)).body.intent.intent_label, '');
      assert.equal((await api('DELETE', `/api/v3/intent-sample/${link.body.intent_sample_code}`)).status, 404);
    });

    test('entity-sample mapping: positions, value check, detail form with capitalised Type, delete', async () => {
      const entity = (await api('POST', '/api/v3/entity', { json: { label: 'destination', description: 'nơi đến', type: 1 } })).body;
      const sample = (await api('POST', '/api/v3/sample', { json: { content: 'tôi muốn bay đến Hà Nội ngày mai' } })).body;
      const tag = await api('POST', '/api/v3/entity-sample', {
        json: { entity_code: entity.code, sample_code: sample.code, value: 'Hà Nội', start: 17, end: 23 },
      });
      assert.equal(tag.status, 200, JSON.stringify(tag.body));
      assert.deepEqual(Object.keys(tag.body).sort(), [
        'Type',
        'created_time',
        'end',
        'entity_code',
        'entity_sample_code',
        'label',
        'parent_code',
        'sample_code',
        'start',
        'value',
      ]);
      assert.equal(tag.body.label, '');
      assert.equal(tag.body.parent_code, '');
      assert.equal(tag.body.Type, 1);

      const mismatch = await api('POST', '/api/v3/entity-sample', {
        json: { entity_code: entity.code, sample_code: sample.code, value: 'Sài Gòn', start: 17, end: 23 },
      });
      assert.equal(mismatch.status, 400);
      assert.equal(mismatch.body.code, 'VALUE_MISMATCH');
      for (const [start, end] of [
        [30, 40],
        [5, 5],
        [10, 3],
      ]) {
        const out = await api('POST', '/api/v3/entity-sample', {
          json: { entity_code: entity.code, sample_code: sample.code, value: 'x', start, end },
        });
        assert.equal(out.status, 400, `${start}-${end}`);
        assert.equal(out.body.code, 'INVALID_SPAN');
      }
      const negative = await api('POST', '/api/v3/entity-sample', {
        json: { entity_code: entity.code, sample_code: sample.code, value: 'x', start: -1, end: 2 },
      });
      assert.equal(negative.status, 400);
      const dup = await api('POST', '/api/v3/entity-sample', {
        json: { entity_code: entity.code, sample_code: sample.code, value: 'Hà Nội', start: 17, end: 23 },
      });
      assert.equal(dup.status, 409);

      const detail = (await api('GET', `/api/v3/sample/${sample.code}`)).body;
      assert.equal(detail.entities.length, 1);
      assert.equal(detail.entities[0].label, 'destination');
      assert.equal(detail.entities[0].Type, 1);
      assert.equal(detail.entities[0].value, 'Hà Nội');
      const listed = (await api('GET', '/api/v3/sample')).body.find((s: any) => s.code === sample.code);
      assert.deepEqual(listed.entities, ['destination']);

      const ofEntity = await api('GET', '/api/v3/entity/destination/samples');
      assert.deepEqual(
        ofEntity.body.map((s: any) => s.code),
        [sample.code],
      );
      const ofEntityPut = await api('PUT', '/api/v3/entity/destination/samples');
      assert.deepEqual(
        ofEntityPut.body.map((s: any) => s.code),
        [sample.code],
        'PUT lists too, as the spec request line says',
      );

      assert.equal((await api('DELETE', `/api/v3/entity-sample/${tag.body.entity_sample_code}`)).status, 200);
      assert.deepEqual((await api('GET', `/api/v3/sample/${sample.code}`)).body.entities, []);
      assert.equal((await api('DELETE', `/api/v3/entity-sample/${tag.body.entity_sample_code}`)).status, 404);
    });

    test('updating a sample keeps, moves or drops its tags so none dangles', async () => {
      const entity = (await api('POST', '/api/v3/entity', { json: { label: 'food', description: 'món ăn', type: 2 } })).body;
      const sample = (await api('POST', '/api/v3/sample', { json: { content: 'cho tôi một bát phở' } })).body;
      await api('POST', '/api/v3/entity-sample', { json: { entity_code: entity.code, sample_code: sample.code, value: 'phở', start: 16, end: 19 } });
      await api('PUT', `/api/v3/sample/${sample.code}`, { json: { content: 'làm ơn cho tôi một bát phở' } });
      let tags = (await api('GET', `/api/v3/sample/${sample.code}`)).body.entities;
      assert.equal(tags.length, 1);
      assert.deepEqual([tags[0].start, tags[0].end, tags[0].value], [23, 26, 'phở']);
      await api('PUT', `/api/v3/sample/${sample.code}`, { json: { content: 'cho tôi một bát bún' } });
      tags = (await api('GET', `/api/v3/sample/${sample.code}`)).body.entities;
      assert.deepEqual(tags, []);
    });

    test('deletes cascade: sample, entity, and samples of an entity', async () => {
      const entity = (await api('POST', '/api/v3/entity', { json: { label: 'size', description: 'cỡ', type: 2 } })).body;
      const intent = (await api('POST', '/api/v3/intent', { json: { label: 'order_drink' } })).body;
      const a = (await api('POST', '/api/v3/sample', { json: { content: 'một ly trà sữa size lớn' } })).body;
      const b = (await api('POST', '/api/v3/sample', { json: { content: 'cà phê size nhỏ' } })).body;
      const c = (await api('POST', '/api/v3/sample', { json: { content: 'không có kích cỡ' } })).body;
      await api('POST', '/api/v3/entity-sample', { json: { entity_code: entity.code, sample_code: a.code, value: 'size lớn', start: 15, end: 23 } });
      await api('POST', '/api/v3/entity-sample', { json: { entity_code: entity.code, sample_code: b.code, value: 'size nhỏ', start: 7, end: 15 } });
      await api('POST', '/api/v3/intent-sample', { json: { intent_code: intent.code, sample_code: a.code } });

      const removed = await api('DELETE', '/api/v3/entity/size/samples');
      assert.equal(removed.status, 200);
      assert.match(removed.body.message, /2/);
      assert.equal((await api('GET', `/api/v3/sample/${a.code}`)).status, 404);
      assert.equal((await api('GET', `/api/v3/sample/${b.code}`)).status, 404);
      assert.equal((await api('GET', `/api/v3/sample/${c.code}`)).status, 200, 'untagged samples stay');
      assert.deepEqual((await api('GET', '/api/v3/entity/size/samples')).body, []);

      // Deleting the entity removes its remaining links.
      await api('POST', '/api/v3/entity-sample', { json: { entity_code: entity.code, sample_code: c.code, value: 'kích cỡ', start: 9, end: 16 } });
      assert.equal((await api('DELETE', '/api/v3/entity/size')).status, 200);
      assert.deepEqual((await api('GET', `/api/v3/sample/${c.code}`)).body.entities, []);
      const rows = await serviceDb<NluTables>(t.deps.store.db).selectFrom('nlu_entity_samples').select('code').where('entity_code', '=', entity.code).execute();
      assert.equal(rows.length, 0);
      const links = await serviceDb<NluTables>(t.deps.store.db).selectFrom('nlu_intent_samples').select('code').where('sample_code', '=', a.code).execute();
      assert.equal(links.length, 0, 'deleting a sample removed its intent link');
    });

    test('bulk import counts every outcome, creates missing intents and applies no half row', async () => {
      await api('POST', '/api/v3/intent', { json: { label: 'ask_price' } });
      await api('POST', '/api/v3/intent', { json: { label: 'say_bye' } });
      const rows = [
        { intent: 'ask_price', sample: 'giá bao nhiêu' },
        { intent: 'ask_price', sample: 'bao nhiêu tiền vậy' },
        { intent: 'ask_price', sample: 'giá bao nhiêu' },
        { intent: 'say_bye', sample: 'tạm biệt' },
        { intent: '', sample: 'không có ý định' },
        { sample: 'thiếu intent' },
        { intent: 'unknown_intent', sample: 'xyz' },
        { intent: 'Bad Label!', sample: 'xyz' },
        { intent: 'say_bye', sample: '' },
      ];
      const res = await api('POST', '/api/v3/intent-sample/import_intent_samples', { json: rows });
      assert.equal(res.status, 200);
      // docs/api-contract.md#import-creates-missing-intents: an intent label not seen yet creates the intent (counted once); a label breaking the rule is invalid.
      assert.deepEqual(res.body, {
        number_of_duplicate_sample: 1,
        number_of_empty_intent: 2,
        number_of_imported_intent: 1,
        number_of_imported_sample: 4,
        number_of_invalid_intent: 1,
        number_of_empty_sample: 1,
      });
      const created = (await api('GET', '/api/v3/intent')).body.filter((i: any) => i.label === 'unknown_intent');
      assert.equal(created.length, 1, 'the import created the missing intent');
      assert.ok((await api('GET', '/api/v3/sample')).body.some((s: any) => s.content === 'xyz' && s.intent_label === 'unknown_intent'));
      const again = await api('POST', '/api/v3/intent-sample/import_intent_samples', { json: { content: rows.slice(0, 2) } });
      assert.equal(again.body.number_of_duplicate_sample, 2, 'importing the same rows again only counts duplicates');
      assert.equal(again.body.number_of_imported_sample, 0);
      const samples = (await api('GET', '/api/v3/sample')).body.filter((s: any) => s.intent_label === 'ask_price');
      assert.deepEqual(samples.map((s: any) => s.content).sort(), ['bao nhiêu tiền vậy', 'giá bao nhiêu']);
      assert.equal((await api('POST', '/api/v3/intent-sample/import_intent_samples', { json: { rows: 1 } })).status, 400);

      // A sample stored without an intent is given one, not copied.
      const bare = (await api('POST', '/api/v3/sample', { json: { content: 'mẫu chưa gán ý định' } })).body;
      const linked = await api('POST', '/api/v3/intent-sample/import_intent_samples', { json: [{ intent: 'say_bye', sample: 'mẫu chưa gán ý định' }] });
      assert.equal(linked.body.number_of_imported_sample, 1);
      const same = (await api('GET', '/api/v3/sample')).body.filter((s: any) => s.content === 'mẫu chưa gán ý định');
      assert.deepEqual(
        same.map((s: any) => [s.code, s.intent_label]),
        [[bare.code, 'say_bye']],
      );

      // Past one statement's worth of rows (500): 1,200 new texts over 3 new intents, one text twice.
      const many = Array.from({ length: 1_200 }, (_, i) => ({ intent: `bulk_${i % 3}`, sample: `câu số ${i} của lô lớn` }));
      const bulk = await api('POST', '/api/v3/intent-sample/import_intent_samples', { json: [...many, { intent: 'bulk_0', sample: 'câu số 7 của lô lớn' }] });
      assert.equal(bulk.status, 200);
      assert.equal(bulk.body.number_of_imported_sample, 1_200);
      assert.equal(bulk.body.number_of_imported_intent, 3);
      assert.equal(bulk.body.number_of_duplicate_sample, 1, 'a text twice in one call is imported once');
      const listed = (await api('GET', '/api/v3/sample')).body.filter((s: any) => s.content.endsWith('của lô lớn'));
      assert.equal(listed.length, 1_200);
      assert.equal(listed.find((s: any) => s.content === 'câu số 1199 của lô lớn').intent_label, 'bulk_2');
    });

    test('pagination: limit and offset on lists; the bare call returns everything', async () => {
      const all = (await api('GET', '/api/v3/sample')).body;
      assert.ok(all.length >= 5);
      const page1 = (await api('GET', '/api/v3/sample?limit=2')).body;
      const page2 = (await api('GET', '/api/v3/sample?limit=2&offset=2')).body;
      assert.deepEqual(
        page1.map((s: any) => s.code),
        all.slice(0, 2).map((s: any) => s.code),
      );
      assert.deepEqual(
        page2.map((s: any) => s.code),
        all.slice(2, 4).map((s: any) => s.code),
      );
      assert.deepEqual(page1, all.slice(0, 2), 'a page carries the same fields as the full list');
      assert.equal((await api('GET', '/api/v3/sample?limit=0')).status, 400);
      const intents = (await api('GET', '/api/v3/intent?limit=1&offset=1')).body;
      assert.equal(intents.length, 1);
    });

    test('export and import of the whole training set round-trips into another application', async () => {
      const exported = await api('GET', '/api/v3/export');
      assert.equal(exported.status, 200);
      assert.equal(exported.body.format, 'saola.nlu.v1');
      assert.ok(exported.body.samples.length > 0);
      const target = await t.newTenant(`copy-${engine}`);
      const imported = await call(t.url, 'POST', '/api/v3/import', { token: target.token, json: exported.body });
      assert.equal(imported.status, 200, JSON.stringify(imported.body));
      assert.equal(imported.body.samples_created, exported.body.samples.length);
      const copy = await call(t.url, 'GET', '/api/v3/export', { token: target.token });
      const strip = (set: any) => ({ ...set, samples: [...set.samples].sort((x: any, y: any) => x.content.localeCompare(y.content)) });
      assert.deepEqual(strip(copy.body), strip(exported.body));
      const twice = await call(t.url, 'POST', '/api/v3/import', { token: target.token, json: exported.body });
      assert.equal(twice.body.samples_created, 0, 'merge skips what is already there');
      const replaced = await call(t.url, 'POST', '/api/v3/import?mode=replace', { token: target.token, json: exported.body });
      assert.equal(replaced.body.samples_created, exported.body.samples.length);

      const broken = { ...exported.body, samples: [{ content: 'abc', intent: '', entities: [{ entity: 'x', value: 'zz', start: 0, end: 2 }] }] };
      const refused = await call(t.url, 'POST', '/api/v3/import', { token: target.token, json: broken });
      assert.equal(refused.status, 400);
      const after = await call(t.url, 'GET', '/api/v3/export', { token: target.token });
      assert.equal(after.body.samples.length, exported.body.samples.length, 'a refused import writes nothing');
      const unknown = {
        ...exported.body,
        samples: [...exported.body.samples, { content: 'mới tinh', intent: '', entities: [{ entity: 'no_such', value: 'mới', start: 0, end: 3 }] }],
      };
      const notFound = await call(t.url, 'POST', '/api/v3/import?mode=replace', { token: target.token, json: unknown });
      assert.equal(notFound.body.code, 'ENTITY_NOT_FOUND', JSON.stringify(notFound.body));
      const kept = await call(t.url, 'GET', '/api/v3/export', { token: target.token });
      assert.deepEqual(strip(kept.body), strip(exported.body), 'a refused replace deletes nothing');

      // Past one statement's worth of rows (500): 1,200 tagged samples, one of them twice.
      const big = {
        format: 'saola.nlu.v1',
        intents: [{ label: 'go_to', description: 'đi', type: 1 }],
        entities: [{ label: 'place', description: 'nơi', type: 3 }],
        samples: Array.from({ length: 1_201 }, (_, i) => {
          const content = `đi tới điểm ${i % 1_200}`;
          return { content, intent: 'go_to', entities: [{ entity: 'place', value: `điểm ${i % 1_200}`, start: 7, end: content.length }] };
        }),
      };
      const bulk = await call(t.url, 'POST', '/api/v3/import', { token: (await t.newTenant(`bulk-${engine}`)).token, json: big });
      assert.equal(bulk.status, 200, JSON.stringify(bulk.body));
      assert.deepEqual(bulk.body, { intents_created: 1, entities_created: 1, samples_created: 1_200, samples_skipped: 1, entity_links_created: 1_200 });
    });

    test('tenancy: another application cannot read, change, delete or count these records', async () => {
      const mine = (await api('POST', '/api/v3/sample', { json: { content: 'dữ liệu riêng' } })).body;
      const entity = (await api('POST', '/api/v3/entity', { json: { label: 'private_entity', description: 'x', type: 1 } })).body;
      const intent = (await api('POST', '/api/v3/intent', { json: { label: 'private_intent' } })).body;
      const as = (method: string, path: string, json?: unknown) => call(t.url, method, path, { token: other.token, json });

      assert.deepEqual((await as('GET', '/api/v3/sample')).body, []);
      assert.deepEqual((await as('GET', '/api/v3/entity')).body, []);
      assert.deepEqual((await as('GET', '/api/v3/intent')).body, []);
      assert.equal((await as('GET', `/api/v3/sample/${mine.code}`)).status, 404);
      assert.equal((await as('PUT', `/api/v3/sample/${mine.code}`, { content: 'hijack' })).status, 404);
      assert.equal((await as('DELETE', `/api/v3/sample/${mine.code}`)).status, 404);
      assert.equal((await as('GET', '/api/v3/entity/private_entity')).status, 404);
      assert.equal((await as('DELETE', '/api/v3/entity/private_entity')).status, 404);
      assert.equal((await as('DELETE', '/api/v3/entity/private_entity/samples')).status, 404);
      assert.equal((await as('GET', `/api/v3/intent/${intent.code}`)).status, 404);
      // Links across applications are refused: their own intent on my sample, my entity on their sample.
      const theirIntent = (await as('POST', '/api/v3/intent', { label: 'private_intent' })).body;
      assert.equal((await as('POST', '/api/v3/intent-sample', { intent_code: theirIntent.code, sample_code: mine.code })).status, 404);
      const theirSample = (await as('POST', '/api/v3/sample', { content: 'abc' })).body;
      assert.equal((await as('POST', '/api/v3/entity-sample', { entity_code: entity.code, sample_code: theirSample.code, value: 'a', start: 0, end: 1 })).status, 404);
      const theirImport = await as('POST', '/api/v3/intent-sample/import_intent_samples', [{ intent: 'private_intent', sample: 'dữ liệu riêng' }]);
      assert.equal(theirImport.body.number_of_duplicate_sample, 0, 'my sample does not count as their duplicate');
      assert.equal(
        (await as('GET', '/api/v3/export')).body.samples.some((s: any) => s.content === 'dữ liệu riêng'),
        true,
      );
      assert.equal((await api('GET', `/api/v3/sample/${mine.code}`)).body.content, 'dữ liệu riêng', 'mine is untouched');
      assert.equal(
        (await api('GET', '/api/v3/sample')).body.some((s: any) => s.content === 'abc'),
        false,
      );
    });

    test('real clients: JSON sent as form-urlencoded, text/plain or with no Content-Type; form fields; empty DELETE body', async () => {
      const form = await api('POST', '/api/v3/sample', {
        body: JSON.stringify({ content: 'gửi như form' }),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assert.equal(form.status, 200);
      assert.equal(form.body.content, 'gửi như form');
      const plain = await api('POST', '/api/v3/sample', { body: JSON.stringify({ content: 'text plain' }), headers: { 'content-type': 'text/plain' } });
      assert.equal(plain.body.content, 'text plain');
      const octet = await api('POST', '/api/v3/sample', {
        body: Buffer.from(JSON.stringify({ content: 'octet' })),
        headers: { 'content-type': 'application/octet-stream' },
      });
      assert.equal(octet.body.content, 'octet');
      const none = await fetch(`${t.url}/api/v3/sample`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.token}` },
        body: new Blob([JSON.stringify({ content: 'no content type' })]),
      });
      assert.equal(none.status, 200);
      assert.equal(((await none.json()) as any).content, 'no content type');
      const fields = await api('POST', '/api/v3/entity', {
        body: 'label=color&description=m%C3%A0u&type=2',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assert.equal(fields.status, 200);
      assert.equal(fields.body.type, 2, 'form values are coerced to the schema types');
      assert.equal(fields.body.description, 'màu');
      const del = await api('DELETE', '/api/v3/entity/color', { body: '', headers: { 'content-type': 'application/json' } });
      assert.equal(del.status, 200);
      const delBraces = await api('DELETE', `/api/v3/sample/${form.body.code}`, { body: '{}', headers: { 'content-type': 'application/json' } });
      assert.equal(delBraces.status, 200);
    });

    test('hostile bodies: oversized, prototype pollution, deep nesting', async () => {
      const big = await api('POST', '/api/v3/sample', { json: { content: 'x'.repeat(2 * 1024 * 1024) } });
      assert.equal(big.status, 413);
      assert.equal(big.body.code, 'PAYLOAD_TOO_LARGE');
      const proto = await api('POST', '/api/v3/sample', {
        body: '{"content":"ok","__proto__":{"polluted":true}}',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(proto.status, 200);
      assert.equal(({} as any).polluted, undefined);
      const deep = await api('POST', '/api/v3/sample', { body: '['.repeat(50_000) + ']'.repeat(50_000), headers: { 'content-type': 'application/json' } });
      assert.equal(deep.status, 400);
    });

    test('the full list reflects every write at once (each process caches it per data version)', async () => {
      const before = (await api('GET', '/api/v3/sample')).body.length;
      assert.equal((await api('GET', '/api/v3/sample')).body.length, before, 'a second read is the same');
      const created = (await api('POST', '/api/v3/sample', { json: { content: 'mẫu mới cho bộ đệm' } })).body;
      const withNew = (await api('GET', '/api/v3/sample')).body;
      assert.equal(withNew.length, before + 1);
      const intent = (await api('POST', '/api/v3/intent', { json: { label: 'cache_check' } })).body;
      await api('POST', '/api/v3/intent-sample', { json: { intent_code: intent.code, sample_code: created.code } });
      assert.equal((await api('GET', '/api/v3/sample')).body.find((x: any) => x.code === created.code).intent_label, 'cache_check');
      await api('PUT', `/api/v3/intent/${intent.code}`, { json: { label: 'cache_renamed' } });
      assert.equal((await api('GET', '/api/v3/sample')).body.find((x: any) => x.code === created.code).intent_label, 'cache_renamed');
      await api('DELETE', `/api/v3/sample/${created.code}`);
      assert.equal((await api('GET', '/api/v3/sample')).body.length, before);
      const otherList = await call(t.url, 'GET', '/api/v3/sample', { token: other.token });
      assert.ok(!otherList.body.some((x: any) => x.code === created.code), 'one application never gets another one cached list');
    });

    test('a write through another instance on the same store changes the full list at once', async () => {
      // A second server on the same database (and data folder): its own process-local list cache, as a second
      // `saola serve` has. A list cached by the first is never served after the second wrote.
      const second = await startTestApp({ databaseUrl: pgdb?.url, dataDir: t.dataDir });
      try {
        const onSecond = (method: string, path: string, json?: unknown) => call(second.url, method, path, { token: t.token, json });
        const list = async (): Promise<any[]> => (await api('GET', '/api/v3/sample')).body;
        const find = async (code: string) => (await list()).find((x) => x.code === code);
        const before = await list();
        assert.deepEqual(await list(), before, 'a second read is the same');

        const created = (await onSecond('POST', '/api/v3/sample', { content: 'đặt vé từ máy chủ thứ hai' })).body;
        assert.equal((await list()).length, before.length + 1, 'a sample created elsewhere is listed');
        const intent = (await onSecond('POST', '/api/v3/intent', { label: 'second_instance' })).body;
        const link = (await onSecond('POST', '/api/v3/intent-sample', { intent_code: intent.code, sample_code: created.code })).body;
        assert.equal((await find(created.code)).intent_label, 'second_instance');
        await onSecond('PUT', `/api/v3/intent/${intent.code}`, { label: 'second_renamed', type: 2 });
        assert.deepEqual([(await find(created.code)).intent_label, (await find(created.code)).intent_type], ['second_renamed', 2]);
        await onSecond('DELETE', `/api/v3/intent-sample/${link.intent_sample_code}`);
        assert.equal((await find(created.code)).intent_label, '', 'an unlink elsewhere is listed');

        const entity = (await onSecond('POST', '/api/v3/entity', { label: 'second_place', description: '', type: 1 })).body;
        const tag = await onSecond('POST', '/api/v3/entity-sample', { entity_code: entity.code, sample_code: created.code, value: 'vé', start: 4, end: 6 });
        assert.equal(tag.status, 200, tag.text);
        assert.deepEqual((await find(created.code)).entities, ['second_place']);
        await onSecond('DELETE', `/api/v3/entity-sample/${tag.body.entity_sample_code}`);
        assert.deepEqual((await find(created.code)).entities, []);

        await onSecond('PUT', `/api/v3/sample/${created.code}`, { content: 'đặt vé đi Huế' });
        assert.equal((await find(created.code)).content, 'đặt vé đi Huế');
        const imported = await onSecond('POST', '/api/v3/intent-sample/import_intent_samples', [{ intent: 'second_renamed', sample: 'nhập từ máy chủ thứ hai' }]);
        assert.equal(imported.body.number_of_imported_sample, 1);
        assert.ok((await list()).some((x) => x.content === 'nhập từ máy chủ thứ hai' && x.intent_label === 'second_renamed'));
        await onSecond('DELETE', `/api/v3/intent/${intent.code}`);
        assert.ok(!(await list()).some((x) => x.intent_label === 'second_renamed'), 'a deleted intent leaves the list');
        await onSecond('DELETE', `/api/v3/sample/${created.code}`);
        assert.equal(await find(created.code), undefined, 'a sample deleted elsewhere leaves the list');
      } finally {
        await second.close();
      }
    });

    test('tenancy of the list cache: applications at the same data version get their own lists', async () => {
      const second = await startTestApp({ databaseUrl: pgdb?.url, dataDir: t.dataDir });
      try {
        const [x, y] = [await t.newTenant(`cache-x-${engine}`), await t.newTenant(`cache-y-${engine}`)];
        const listOf = async (base: string, who: Tenant): Promise<string[]> =>
          ((await call(base, 'GET', '/api/v3/sample', { token: who.token })).body as any[]).map((s) => s.content);
        // One write each: both applications are at version 1.
        await call(t.url, 'POST', '/api/v3/sample', { token: x.token, json: { content: 'mẫu của ứng dụng x' } });
        await call(second.url, 'POST', '/api/v3/sample', { token: y.token, json: { content: 'mẫu của ứng dụng y' } });
        assert.deepEqual(await listOf(t.url, x), ['mẫu của ứng dụng x']);
        assert.deepEqual(await listOf(t.url, y), ['mẫu của ứng dụng y'], "x's cached list is not y's");
        assert.deepEqual(await listOf(second.url, y), ['mẫu của ứng dụng y']);
        assert.deepEqual(await listOf(second.url, x), ['mẫu của ứng dụng x']);
        // A write to y elsewhere changes y's list only.
        await call(second.url, 'POST', '/api/v3/sample', { token: y.token, json: { content: 'mẫu thứ hai của y' } });
        assert.deepEqual(await listOf(t.url, y), ['mẫu của ứng dụng y', 'mẫu thứ hai của y']);
        assert.deepEqual(await listOf(t.url, x), ['mẫu của ứng dụng x']);
      } finally {
        await second.close();
      }
    });

    test('unknown routes and wrong methods answer JSON', async () => {
      const missing = await api('GET', '/api/v3/nothing-here');
      assert.equal(missing.status, 404);
      assert.equal(missing.body.code, 'ROUTE_NOT_FOUND');
      const wrong = await api('PATCH', '/api/v3/sample');
      assert.equal(wrong.status, 405);
      assert.match(wrong.headers.get('allow') ?? '', /GET/);
      assert.equal(wrong.body.code, 'METHOD_NOT_ALLOWED');
    });
  });
}

nluSuite('sqlite');
nluSuite('postgres');
