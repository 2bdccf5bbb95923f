/**
 * Predictions keep their application's model and threshold for `recheckMs` instead of reading both tables
 * per request. A change made in the same process is used at once; one made by another process (here: a second
 * service object over the same store and blob folder) within the bound, or at once after train/status
 * has seen the newer model.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { FsBlobStore } from '../../../src/platform/blobs/fs-store.js';
import { SqlJobQueue } from '../../../src/platform/jobs/sql-queue.js';
import { Credentials } from '../../../src/platform/auth/credentials.js';
import { ServiceError } from '../../../src/platform/http/errors.js';
import { trainModel } from '../../../src/nlu/engine/model.js';
import { createNluModels, type NluModels } from '../../../src/nlu/index.js';
import { KEPT_MODEL_VERSIONS, type Trainer } from '../../../src/nlu/training.js';
import { InlinePredictor } from '../../../src/nlu/predictor.js';
import { ModelStore, type ModelRow } from '../../../src/nlu/model-store.js';
import { NluService } from '../../../src/nlu/service.js';
import { NluStore } from '../../../src/nlu/store.js';
import { useMigratedStore } from '../../support/store.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const trainer: Trainer = async (request) => JSON.stringify(trainModel(request));

const ROWS = [
  ['greeting', ['xin chào', 'chào bạn', 'chào buổi sáng', 'xin chào bạn nhé']],
  ['goodbye', ['tạm biệt', 'hẹn gặp lại', 'tạm biệt bạn nhé', 'chào tạm biệt']],
  ['weather', ['thời tiết hôm nay thế nào', 'trời có mưa không', 'dự báo thời tiết', 'hôm nay trời nắng không']],
] as const;

describe('NLU prediction: model and threshold kept per application', () => {
  const store = useMigratedStore('sqlite', 'saola-nlu-serving-');
  let blobDir: string;
  let app: string;
  const service = (recheckMs: number) => {
    const s = store();
    return createNluModels(NluStore.over(s.db, s.dialect), { store: s, jobs: new SqlJobQueue(s), blobs: new FsBlobStore(blobDir) }, { recheckMs });
  };

  before(async () => {
    blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-nlu-serving-blobs-'));
    app = (await new Credentials(store(), 0).createApp('serving-cache')).app_code;
    const rows = ROWS.flatMap(([intent, samples]) => samples.map((sample) => ({ intent, sample })));
    const imported = await new NluService(NluStore.over(store().db)).importIntentSamples(app, rows);
    assert.equal(imported.number_of_imported_sample, rows.length);
  });
  after(() => fs.rmSync(blobDir, { recursive: true, force: true }));

  test('a model trained elsewhere: used after the bound, or at once after train/status saw it', async () => {
    const here = service(60_000);
    const elsewhere = service(60_000);
    await assert.rejects(here.prediction.predict(app, { content: 'xin chào' }, 'all'), (err) => err instanceof ServiceError && err.entry.code === 'MODEL_NOT_TRAINED');

    const queued = await elsewhere.training.train(app, 'all');
    await elsewhere.training.runTraining({ app, code: queued.status[0]!.code }, trainer, true);
    // Elsewhere, where it was trained, it is used at once.
    assert.equal((await elsewhere.prediction.predict(app, { content: 'xin chào bạn' }, 'intent')).data.intents?.[0]?.label, 'greeting');
    // Here, "no model" was read less than the bound ago: still no model (no query per prediction)...
    await assert.rejects(here.prediction.predict(app, { content: 'xin chào' }, 'all'), (err) => err instanceof ServiceError && err.entry.code === 'MODEL_NOT_TRAINED');
    // ...until train/status, which reads the newest model anyway, sees a newer one than predictions use.
    const status = await here.training.status(app);
    assert.equal(status.status, 2);
    assert.equal((await here.prediction.predict(app, { content: 'tạm biệt nhé' }, 'intent')).data.intents?.[0]?.label, 'goodbye');

    // A process that only predicts picks it up within its bound.
    const short = service(150);
    assert.equal((await short.prediction.predict(app, { content: 'trời mưa không' }, 'intent')).data.intents?.[0]?.label, 'weather');
  });

  test('a threshold set elsewhere is used within the bound; one set here at once', async () => {
    const short = service(200);
    const elsewhere = service(200);
    const ask = async (s: NluModels) => (await s.prediction.predict(app, { content: 'thời tiết hôm nay' }, 'intent')).data.intents!.length;
    await elsewhere.prediction.setThreshold(app, 0.5);
    await sleep(250);
    assert.ok((await ask(short)) <= 1, 'at 0.5 at most one of three intents is listed');
    await elsewhere.prediction.setThreshold(app, 0);
    // Within the bound: the threshold it read (0.5) still applies.
    assert.ok((await ask(short)) <= 1);
    await sleep(250);
    assert.equal(await ask(short), 3, 'at 0 every intent is listed');
    // Set in this process: the next prediction uses it.
    await short.prediction.setThreshold(app, 0.5);
    assert.ok((await ask(short)) <= 1);
    await short.prediction.setThreshold(app, 0);
    assert.equal(await ask(short), 3);
  });

  test("models kept parsed are bounded by their documents' size: one dropped is read again, not kept through its entry", async () => {
    // A second application with its own model.
    const s = store();
    const second = (await new Credentials(s, 0).createApp('serving-cache-2')).app_code;
    const rows = ROWS.flatMap(([intent, samples]) => samples.map((sample) => ({ intent, sample })));
    await new NluService(NluStore.over(s.db)).importIntentSamples(second, rows);
    const trainer2 = service(60_000);
    await trainer2.training.runTraining({ app: second, code: (await trainer2.training.train(second, 'all')).status[0]!.code }, trainer, true);

    /** A service whose predictor counts the documents it parses. */
    const counting = (cachedModelChars?: number) => {
      const loaded: number[] = [];
      class Counting extends InlinePredictor {
        override load(key: string, doc: string) {
          loaded.push(doc.length);
          return super.load(key, doc);
        }
      }
      const service = createNluModels(
        NluStore.over(s.db, s.dialect),
        { store: s, jobs: new SqlJobQueue(s), blobs: new FsBlobStore(blobDir) },
        { recheckMs: 60_000, predictor: new Counting(), cachedModelChars },
      );
      return { service, loaded };
    };
    const ask = async (service: NluModels, application: string) =>
      (await service.prediction.predict(application, { content: 'xin chào bạn' }, 'intent')).data.intents?.[0]?.label;

    // Room for both: each document parsed once.
    const roomy = counting();
    for (const application of [app, second, app, second]) assert.equal(await ask(roomy.service, application), 'greeting');
    assert.equal(roomy.loaded.length, 2);
    // Room for one: the second pushes the first out, and the first is read again when asked (within the recheck bound).
    const tight = counting(Math.ceil(Math.max(...roomy.loaded) * 1.5));
    for (const application of [app, second, app]) assert.equal(await ask(tight.service, application), 'greeting');
    assert.equal(tight.loaded.length, 3);
  });

  test('an application keeps the documents of its newest 5 models; older ones are deleted, their rows stay', async () => {
    const s = store();
    const own = (await new Credentials(s, 0).createApp('model-versions')).app_code;
    const rows = ROWS.flatMap(([intent, samples]) => samples.map((sample) => ({ intent, sample })));
    await new NluService(NluStore.over(s.db)).importIntentSamples(own, rows);
    const models = new ModelStore(s.db);
    const here = service(0);
    const results: unknown[] = [];
    for (let i = 0; i < KEPT_MODEL_VERSIONS + 2; i++) {
      results.push(await here.training.runTraining({ app: own, code: (await here.training.train(own, 'all')).status[0]!.code }, trainer, true));
    }
    assert.deepEqual(
      results.map((r) => (r as { old_models_deleted: number }).old_models_deleted),
      [0, 0, 0, 0, 0, 1, 1],
    );
    const all = await s.db
      .withTables<{ nlu_models: ModelRow }>()
      .selectFrom('nlu_models')
      .select(['code', 'model_file'])
      .where('app_code', '=', own)
      .orderBy('finished_time')
      .orderBy('code')
      .execute();
    assert.equal(all.length, KEPT_MODEL_VERSIONS + 2, 'every request keeps its row');
    assert.deepEqual(
      all.map((r) => r.model_file !== ''),
      [false, false, true, true, true, true, true],
    );
    const folder = fs.readdirSync(path.join(blobDir, path.dirname(all.at(-1)!.model_file)));
    assert.deepEqual(
      folder.sort(),
      all
        .slice(2)
        .map((r) => path.basename(r.model_file))
        .sort(),
      'only the newest 5 documents are stored',
    );
    assert.equal((await models.currentModel(own))!.code, all.at(-1)!.code);
    assert.equal((await here.prediction.predict(own, { content: 'xin chào bạn' }, 'intent')).data.intents?.[0]?.label, 'greeting');
  });

  test('with a bound of 0 every prediction reads the store', async () => {
    const always = service(0);
    const elsewhere = service(0);
    await elsewhere.prediction.setThreshold(app, 0);
    assert.equal((await always.prediction.predict(app, { content: 'chào bạn' }, 'intent')).data.intents!.length, 3);
    await elsewhere.prediction.setThreshold(app, 0.5);
    assert.ok((await always.prediction.predict(app, { content: 'chào bạn' }, 'intent')).data.intents!.length <= 1);
  });
});
