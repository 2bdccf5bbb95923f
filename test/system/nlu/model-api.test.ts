import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ModelStore, TrainState, type ModelRow } from '../../../src/nlu/model-store.js';
import { createNluModels } from '../../../src/nlu/index.js';
import type { Trainer } from '../../../src/nlu/training.js';
import { NluStore } from '../../../src/nlu/store.js';
import { trainModel } from '../../../src/nlu/engine/model.js';
import { purgeApplication } from '../../../src/platform/purge.js';
import { purgeHooks } from '../../../src/services.js';
import { startTestApp, type Tenant, type TestApp } from '../../../fixtures/servers/app.js';
import { TRAVEL_BOT, TRAVEL_CITIES } from '../../../fixtures/nlu/travel-bot.js';
import { waitForValue } from '../../support/wait.js';
import { call } from '../../support/http.js';
import { createTestDatabase, type TestDatabase } from '../../../fixtures/servers/postgres.js';

/**
 * Training and prediction over HTTP: the train/status state machine, too
 * little data, predict before any model, concurrent trains, a sample deleted
 * after training, tenancy, threshold, history and its purge, on SQLite and
 * PostgreSQL; and a model trained by one process used by another.
 */

const DATA = TRAVEL_BOT;
const CITIES = TRAVEL_CITIES;

/** Loads the data set through the public API: the import (creating the intents) and entity tags. */
async function seed(url: string, token: string): Promise<void> {
  const api = (method: string, path: string, json?: unknown) => call(url, method, path, { token, json });
  const rows = Object.entries(DATA).flatMap(([intent, texts]) => texts.map((sample) => ({ intent, sample })));
  const imported = await api('POST', '/api/v3/intent-sample/import_intent_samples', rows);
  assert.equal(imported.status, 200);
  const city = (await api('POST', '/api/v3/entity', { label: 'city', description: 'thành phố', type: 1 })).body;
  await api('POST', '/api/v3/entity/city/keywords', { value: 'Hồ Chí Minh', synonyms: ['Sài Gòn', 'tphcm'] });
  for (const sample of (await api('GET', '/api/v3/sample')).body) {
    const name = CITIES.find((c) => sample.content.includes(c));
    if (!name) continue;
    const start = Array.from(sample.content.slice(0, sample.content.indexOf(name))).length;
    const tagged = await api('POST', '/api/v3/entity-sample', {
      entity_code: city.code,
      sample_code: sample.code,
      value: name,
      start,
      end: start + Array.from(name).length,
    });
    assert.equal(tagged.status, 200);
  }
}

function modelSuite(engine: 'sqlite' | 'postgres') {
  describe(`NLU training and prediction on ${engine}`, () => {
    let t: TestApp;
    let pgdb: TestDatabase | undefined;
    let other: Tenant;
    const api = (method: string, path: string, json?: unknown) => call(t.url, method, path, { token: t.token, json });
    const as = (tenant: Tenant, method: string, path: string, json?: unknown) => call(t.url, method, path, { token: tenant.token, json });

    before(async () => {
      if (engine === 'postgres') pgdb = await createTestDatabase();
      t = await startTestApp({ databaseUrl: pgdb?.url });
      other = await t.newTenant('other-app');
    });
    after(async () => {
      await t?.close();
      await pgdb?.drop();
    });

    test('before any model: status waiting and not trainable, predict answers MODEL_NOT_TRAINED, train refuses too little data', async () => {
      const status = await api('POST', '/api/v3/train/status');
      assert.equal(status.status, 200);
      assert.deepEqual([status.body.status, status.body.trainable, status.body.last_success_time], [0, false, '']);
      const predict = await api('POST', '/api/v3/predict', { content: 'xin chào' });
      assert.equal(predict.status, 409);
      assert.equal(predict.body.code, 'MODEL_NOT_TRAINED');
      await api('POST', '/api/v3/intent-sample/import_intent_samples', [{ intent: 'greeting', sample: 'xin chào' }]);
      const tooLittle = await api('POST', '/api/v3/train');
      assert.equal(tooLittle.status, 400);
      assert.equal(tooLittle.body.code, 'NOT_ENOUGH_DATA');
      assert.match(tooLittle.body.message, /at least 2 intents/);
      // An unknown part is named with the values allowed, in one sentence (not ajv's error per branch of the union).
      const unknownPart = await api('POST', '/api/v3/train', { type: 'intents' });
      assert.equal(unknownPart.status, 400);
      assert.equal(unknownPart.body.code, 'INVALID_REQUEST');
      assert.equal(unknownPart.body.message, 'Invalid body: body/type must be one of "intent", "entity", "all", ""');
      assert.equal((await api('POST', '/api/v3/predict', { content: '' })).status, 400);
    });

    test('train: concurrent requests share one job, it succeeds with metrics, status follows, predict answers', async () => {
      await seed(t.url, t.token);
      assert.equal((await api('GET', '/api/v3/train/status')).body.trainable, true, 'new data is trainable');
      const [a, b] = await Promise.all([api('POST', '/api/v3/train'), api('POST', '/api/v3/train', { type: 'all' })]);
      assert.equal(a.status, 200);
      assert.equal(b.status, 200);
      assert.equal(a.body.status[0].code, b.body.status[0].code, 'one training at a time per application');
      const job = a.body.status[0];
      assert.deepEqual(Object.keys(job).sort(), [
        'accuracy',
        'app_code',
        'code',
        'created_time',
        'f1',
        'finished_time',
        'message',
        'metrics',
        'model_file',
        'precision',
        'progress',
        'recall',
        'started_time',
        'state',
        'type',
      ]);
      assert.ok([0, 1].includes(job.state));
      assert.equal(job.app_code, t.appCode);

      const done = await waitForValue(
        'training',
        () => api('POST', '/api/v3/train/status'),
        (r) => r.body.status >= 2,
      );
      assert.equal(done.body.status, 2, JSON.stringify(done.body));
      assert.equal(done.body.trainable, false);
      assert.equal(done.body.progress, 100);
      assert.ok(!Number.isNaN(Date.parse(done.body.last_success_time)));
      assert.ok(done.body.metrics.intent.test_size >= 3);
      assert.ok(done.body.accuracy >= 0 && done.body.accuracy <= 1);
      // A train request after it finished starts a new one.
      const again = await api('POST', '/api/v3/train/intent');
      assert.notEqual(again.body.status[0].code, job.code);
      assert.equal(again.body.status[0].type, 1);
      await waitForValue(
        'second training',
        () => api('POST', '/api/v3/train/status'),
        (r) => r.body.status >= 2,
      );

      const text = 'cho mình vé máy bay đi Sài Gòn lúc 9 giờ sáng mai';
      const predicted = await api('POST', '/api/v3/predict', { content: text });
      assert.equal(predicted.status, 200);
      assert.equal(predicted.body.status.code, 200);
      assert.equal(predicted.body.data.intents[0].label, 'book_flight');
      assert.ok(predicted.body.data.intents.every((i: any) => i.confidence >= 0.3 && i.confidence <= 1));
      const city = predicted.body.data.entities.find((e: any) => e.entity === 'city');
      assert.deepEqual(
        { value: city.value, real_value: city.real_value, slice: Array.from(text).slice(city.start, city.end).join('') },
        { value: 'Sài Gòn', real_value: 'Hồ Chí Minh', slice: 'Sài Gòn' },
      );
      assert.ok(predicted.body.data.entities.some((e: any) => e.entity === 'sys_datetime'));
      assert.equal(predicted.body.data.history_id, 0);

      const onlyIntents = await api('POST', '/api/v3/predict/intent', { content: 'thoi tiet ha noi the nao' });
      assert.equal(onlyIntents.body.data.intents[0].label, 'weather', 'text without diacritics');
      assert.equal(onlyIntents.body.data.entities, undefined);
      assert.equal(onlyIntents.body.status.message, 'Predict Intents successful');
      const onlyEntities = await api('POST', '/api/v3/predict/entity', { content: 'bay đi Huế' });
      assert.equal(onlyEntities.body.data.intents, undefined);
      assert.deepEqual(
        onlyEntities.body.data.entities.map((e: any) => [e.entity, e.start, e.end]),
        [['city', 7, 10]],
      );
    });

    test('status reads the training data again only after a write (a keyword list too); trainable follows', async () => {
      // A second service on the same store, counting how often it reads the whole training set.
      const store = NluStore.over(t.deps.store.db);
      let reads = 0;
      const everything = store.everything.bind(store);
      store.everything = (app: string) => {
        reads++;
        return everything(app);
      };
      const service = createNluModels(store, t.deps);
      assert.equal((await service.training.status(t.appCode)).trainable, false, 'just trained');
      assert.equal((await service.training.status(t.appCode)).trainable, false);
      assert.equal(reads, 1, 'the second status read the data version only');
      // A listed value is training data: adding one (through the API, another service) makes the data new.
      assert.equal((await api('POST', '/api/v3/entity/city/keywords', { value: 'Cần Thơ', synonyms: ['ct'] })).status, 200);
      assert.equal((await service.training.status(t.appCode)).trainable, true);
      assert.equal(reads, 2);
      assert.equal((await api('DELETE', `/api/v3/entity/city/keywords?value=${encodeURIComponent('Cần Thơ')}`)).status, 200);
      const back = await service.training.status(t.appCode);
      assert.equal(back.trainable, false, 'the data the model learnt from again');
      assert.equal((await api('GET', '/api/v3/train/status')).body.trainable, false, 'the server says the same');
      assert.equal(reads, 3);
    });

    test('threshold: per application, intents under it are left out, bad values refused', async () => {
      assert.equal((await api('GET', '/api/v3/settings')).body.threshold, 0.3);
      assert.equal((await api('PUT', '/api/v3/settings', { threshold: 2 })).body.code, 'INVALID_THRESHOLD');
      assert.equal((await api('PUT', '/api/v3/settings', { threshold: 1 })).status, 200);
      const strict = await api('POST', '/api/v3/predict', { content: 'bạn ơi' });
      assert.deepEqual(strict.body.data.intents, [], 'nothing reaches confidence 1');
      assert.equal((await as(other, 'GET', '/api/v3/settings')).body.threshold, 0.3, 'another application keeps its own');
      await api('PUT', '/api/v3/settings', { threshold: 0 });
      assert.equal((await api('POST', '/api/v3/predict', { content: 'bạn ơi' })).body.data.intents.length, 3);
      await api('PUT', '/api/v3/settings', { threshold: 0.3 });
    });

    test('content up to 2,000 characters (code points: an emoji is one) is predicted; one more is refused', async () => {
      const longest = '😀 '.repeat(500) + 'xin chào'.padEnd(1_000, ' bạn');
      assert.equal(Array.from(longest).length, 2_000);
      const answered = await api('POST', '/api/v3/predict', { content: longest });
      assert.equal(answered.status, 200, JSON.stringify(answered.body));
      assert.equal(answered.body.data.intents[0].label, 'greeting');
      const over = await api('POST', '/api/v3/predict', { content: `${longest}!` });
      assert.equal(over.status, 400);
      assert.equal(over.body.code, 'INVALID_REQUEST');
      assert.equal(over.body.message, 'content is limited to 2000 characters');
    });

    test('a sample deleted after training: predictions still work, trainable becomes true', async () => {
      const sample = (await api('GET', '/api/v3/sample')).body.find((s: any) => s.content === 'chào nha');
      assert.equal((await api('DELETE', `/api/v3/sample/${sample.code}`)).status, 200);
      const status = (await api('POST', '/api/v3/train/status')).body;
      assert.equal(status.trainable, true);
      assert.equal(status.status, 2);
      assert.equal((await api('POST', '/api/v3/predict', { content: 'xin chào bạn' })).body.data.intents[0].label, 'greeting');
    });

    test('tenancy: another application has no model, cannot see the history, trains its own', async () => {
      assert.equal((await as(other, 'POST', '/api/v3/predict', { content: 'đặt vé máy bay' })).body.code, 'MODEL_NOT_TRAINED');
      assert.deepEqual((await as(other, 'GET', '/api/v3/train/status')).body.status, 0);
      await as(other, 'POST', '/api/v3/intent-sample/import_intent_samples', [
        { intent: 'yes', sample: 'đồng ý' },
        { intent: 'yes', sample: 'có' },
        { intent: 'no', sample: 'không đồng ý' },
        { intent: 'no', sample: 'không' },
      ]);
      await as(other, 'POST', '/api/v3/train');
      await waitForValue(
        'other training',
        () => as(other, 'GET', '/api/v3/train/status'),
        (r) => r.body.status >= 2,
      );
      const theirs = await as(other, 'POST', '/api/v3/predict/intent', { content: 'đặt vé máy bay' });
      assert.ok(
        theirs.body.data.intents.every((i: any) => ['yes', 'no'].includes(i.label)),
        'their own labels only',
      );
      const mine = await api('POST', '/api/v3/predict/intent', { content: 'đặt vé máy bay' });
      assert.equal(mine.body.data.intents[0].label, 'book_flight', 'mine is untouched by theirs');
    });

    test('history: saved on request, paged, per application, deletable, purged with the application', async () => {
      const saved = await api('POST', '/api/v3/predict', { content: 'thời tiết Huế', save_history: true });
      const id = saved.body.data.history_id;
      assert.ok(Number.isSafeInteger(id) && id > 0, 'an integer id');
      await api('POST', '/api/v3/predict', { content: 'xin chào', save_history: true });
      const page = await api('GET', '/api/v3/history?limit=1');
      assert.equal(page.body.total, 2);
      assert.equal(page.body.items.length, 1);
      assert.equal(page.body.items[0].content, 'xin chào', 'newest first');
      const second = await api('GET', '/api/v3/history?limit=1&offset=1');
      assert.equal(second.body.items[0].history_id, id);
      assert.equal(second.body.items[0].intents[0].label, 'weather');
      assert.equal((await as(other, 'GET', '/api/v3/history')).body.total, 0);
      assert.equal((await as(other, 'DELETE', `/api/v3/history/${id}`)).status, 404);
      assert.equal((await api('DELETE', `/api/v3/history/${id}`)).status, 200);
      assert.equal((await api('GET', '/api/v3/history')).body.total, 1);

      // The purge removes the rows (history, models) and the model blobs of `other` only.
      await as(other, 'POST', '/api/v3/predict', { content: 'có', save_history: true });
      const models = new ModelStore(t.deps.store.db);
      const files = await models.modelFiles(other.appCode);
      assert.ok(files.length > 0);
      const report = await purgeApplication({ store: t.deps.store, blobs: t.deps.blobs }, other.appCode, purgeHooks);
      assert.ok(report.blobs >= files.length);
      assert.equal(report.rows.nlu_history, 1);
      for (const f of files) assert.equal(await t.deps.blobs.stat(f), undefined);
      assert.equal(await models.countHistory(other.appCode), 0);
      assert.equal((await api('GET', '/api/v3/history')).body.total, 1, 'mine stays');
      assert.ok((await models.modelFiles(t.appCode)).length > 0);
    });

    /** A training request waiting for the queue, written straight to the table (so a test runs it with its own trainer). */
    async function insertWaiting(tenant: string, fields: Partial<ModelRow> = {}): Promise<ModelRow> {
      const row: ModelRow = {
        code: randomUUID(),
        app_code: tenant,
        type: 0,
        state: TrainState.waiting,
        message: 'Waiting to train',
        model_file: '',
        metrics: '{}',
        data_fingerprint: '',
        running_app: tenant,
        created_time: new Date().toISOString(),
        started_time: null,
        finished_time: null,
        progress: 0,
        ...fields,
      };
      await t.deps.store.db.withTables<{ nlu_models: ModelRow }>().insertInto('nlu_models').values(row).execute();
      return row;
    }

    test('state machine: waiting, training, success; a failed training keeps the previous model', async () => {
      // A second service on the same store with a trainer held at a gate, so each state can be seen.
      const models = new ModelStore(t.deps.store.db);
      const service = createNluModels(NluStore.over(t.deps.store.db, t.deps.store.dialect), t.deps);
      const before = (await models.currentModel(t.appCode))!;
      const tenant = t.appCode;
      const row = await insertWaiting(tenant, { message: '', running_app: null });
      assert.equal((await api('GET', '/api/v3/train/status')).body.status, 0);
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const failing: Trainer = async () => {
        await gate;
        throw new Error('engine exploded');
      };
      const run = service.training.runTraining({ app: tenant, code: row.code }, failing, true).catch((e: Error) => e);
      await waitForValue(
        'training state',
        () => api('GET', '/api/v3/train/status'),
        (r) => r.body.status === 1,
      );
      release();
      assert.match(String(await run), /engine exploded/);
      const status = (await api('GET', '/api/v3/train/status')).body;
      assert.equal(status.status, 3);
      assert.equal((await models.find(tenant, row.code))!.message, 'Training failed: engine exploded');
      assert.equal((await models.currentModel(tenant))!.code, before.code, 'the last good model stays in use');
      assert.equal((await api('POST', '/api/v3/predict', { content: 'xin chào' })).status, 200);
      // Running it again (the queue delivers at least once) leaves a finished request alone.
      assert.deepEqual(await service.training.runTraining({ app: tenant, code: row.code }, failing, true), { skipped: true });

      // A request left "training" by a worker killed on its last attempt does not block the application for ever.
      const stale: ModelRow = {
        ...row,
        code: randomUUID(),
        state: TrainState.training,
        running_app: tenant,
        started_time: new Date(Date.now() - 2 * 3600_000).toISOString(),
      };
      await t.deps.store.db.withTables<{ nlu_models: ModelRow }>().insertInto('nlu_models').values(stale).execute();
      const fresh = await api('POST', '/api/v3/train');
      assert.notEqual(fresh.body.status[0].code, stale.code);
      assert.equal((await models.find(tenant, stale.code))!.state, TrainState.failed);
      await waitForValue(
        'the new training',
        () => api('GET', '/api/v3/train/status'),
        (r) => r.body.status >= 2,
      );
    });

    test('a running training shows how far it is: train/status, the job object, its message; 100 once done', async () => {
      const models = new ModelStore(t.deps.store.db);
      const service = createNluModels(NluStore.over(t.deps.store.db, t.deps.store.dialect), t.deps);
      const tenant = t.appCode;
      const row = await insertWaiting(tenant);
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const held: Trainer = async (request, onProgress) => {
        onProgress?.({ fraction: 0.425, stage: 'training', part: 'intents', pass: 12, passes: 30 });
        await gate;
        return JSON.stringify(trainModel(request));
      };
      const run = service.training.runTraining({ app: tenant, code: row.code }, held, true);
      const seen = await waitForValue(
        'progress',
        () => api('GET', '/api/v3/train/status'),
        (r) => r.body.progress === 42,
      );
      assert.equal(seen.body.status, 1);
      assert.match((await models.find(tenant, row.code))!.message, /: 42% \(final model, intents, pass 12 of 30\)$/);
      // A train request while it runs answers the running job, with its progress.
      const again = await api('POST', '/api/v3/train');
      assert.equal(again.body.status[0].code, row.code);
      assert.equal(again.body.status[0].progress, 42);
      release();
      await run;
      const done = (await api('GET', '/api/v3/train/status')).body;
      assert.equal(done.status, 2);
      assert.equal(done.progress, 100);
      assert.equal(done.model_code, row.code);
    });
  });
}

modelSuite('sqlite');
modelSuite('postgres');

describe('NLU model pick-up across processes (PostgreSQL + Redis)', () => {
  test('a server without workers predicts with the model a worker trained, and sees the next version', async () => {
    const pgdb = await createTestDatabase();
    const env = { SAOLA_REDIS_URL: 'redis://127.0.0.1:6379', SAOLA_REDIS_PREFIX: `nlu-test-${process.pid}-${Date.now()}` };
    const worker = await startTestApp({ databaseUrl: pgdb.url, env });
    const server = await startTestApp({ databaseUrl: pgdb.url, dataDir: worker.dataDir, env: { ...env, SAOLA_RUN_WORKERS: 'false' } });
    try {
      const api = (base: string, method: string, path: string, json?: unknown) => call(base, method, path, { token: worker.token, json });
      await seed(worker.url, worker.token);
      // Asked on the server without workers: the worker process trains it.
      await api(server.url, 'POST', '/api/v3/train');
      await waitForValue(
        'training by the worker',
        () => api(server.url, 'GET', '/api/v3/train/status'),
        (r) => r.body.status >= 2,
      );
      const first = await api(server.url, 'POST', '/api/v3/predict/intent', { content: 'đặt vé máy bay đi Huế' });
      assert.equal(first.body.data.intents[0].label, 'book_flight');
      // A new intent, a new model: the server answers with it without a restart.
      await api(server.url, 'POST', '/api/v3/intent-sample/import_intent_samples', [
        { intent: 'goodbye', sample: 'tạm biệt nhé' },
        { intent: 'goodbye', sample: 'hẹn gặp lại' },
        { intent: 'goodbye', sample: 'bye bye' },
        { intent: 'goodbye', sample: 'tạm biệt bạn' },
      ]);
      await api(server.url, 'POST', '/api/v3/train');
      await waitForValue(
        'second model',
        () => api(server.url, 'GET', '/api/v3/train/status'),
        (r) => r.body.status >= 2 && !r.body.trainable,
      );
      const second = await api(server.url, 'POST', '/api/v3/predict/intent', { content: 'tạm biệt nhé bạn' });
      assert.equal(second.body.data.intents[0].label, 'goodbye');
    } finally {
      await server.close();
      await worker.close();
      await pgdb.drop();
    }
  });
});
