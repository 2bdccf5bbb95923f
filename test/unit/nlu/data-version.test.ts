/**
 * The training-data version behind the full-list cache: every write of the service bumps the application's
 * version in the write's own transaction (a write that fails leaves it), another application's version never
 * moves with it, and the cache serves a list only at the version it was read at.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { Credentials } from '../../../src/platform/auth/credentials.js';
import { ServiceError } from '../../../src/platform/http/errors.js';
import { SampleListCache } from '../../../src/nlu/list-cache.js';
import { NluService } from '../../../src/nlu/service.js';
import { NluStore } from '../../../src/nlu/store.js';
import { useMigratedStore } from '../../support/store.js';

describe('NLU training-data version', () => {
  const store = useMigratedStore('sqlite', 'saola-nlu-version-');
  let app: string;
  let other: string;
  let data: NluStore;
  let service: NluService;

  before(async () => {
    const credentials = new Credentials(store(), 0);
    app = (await credentials.createApp('version-a')).app_code;
    other = (await credentials.createApp('version-b')).app_code;
    data = NluStore.over(store().db);
    service = new NluService(data);
  });

  /** Runs a write and returns how far it moved the application's version. */
  async function moved<T>(write: () => Promise<T>): Promise<{ by: number; result: T }> {
    const before = await data.dataVersion(app);
    const result = await write();
    return { by: (await data.dataVersion(app)) - before, result };
  }

  test('every write moves the version by one, and only its own application', async () => {
    assert.equal(await data.dataVersion(app), 0, 'no write yet');
    const otherBefore = await data.dataVersion(other);
    const sample = (await moved(() => service.createSample(app, 'đặt vé máy bay đi Huế'))).result;
    const intent = (await moved(() => service.createIntent(app, { label: 'book' }))).result;
    const entity = (await moved(() => service.createEntity(app, { label: 'city', description: '', type: 1 }))).result;
    const writes: [string, () => Promise<unknown>][] = [
      ['link intent', () => service.linkIntent(app, intent.code, sample.code)],
      ['update intent', () => service.updateIntent(app, intent.code, { label: 'book_ticket' })],
      ['tag entity', () => service.tagEntity(app, { entity_code: entity.code, sample_code: sample.code, value: 'Huế', start: 18, end: 21 })],
      ['update entity', () => service.updateEntity(app, 'city', { description: 'a city', type: 1 })],
      ['update sample', () => service.updateSample(app, sample.code, 'đặt vé tàu đi Huế')],
      ['import rows', () => service.importIntentSamples(app, [{ intent: 'book_ticket', sample: 'mua vé đi Đà Nẵng' }])],
      [
        'import set',
        () =>
          service.importTrainingSet(app, { format: 'saola.nlu.v1', intents: [], entities: [], samples: [{ content: 'vé đi Vinh', intent: '', entities: [] }] }, 'merge'),
      ],
    ];
    for (const [name, write] of writes) assert.equal((await moved(write)).by, 1, name);
    const detail = await service.getSample(app, sample.code);
    const removals: [string, () => Promise<unknown>][] = [
      ['untag entity', () => service.untagEntity(app, detail.entities[0]!.entity_sample_code)],
      ['unlink intent', () => service.unlinkIntent(app, detail.intent.intent_sample_code)],
      ['delete samples of entity', () => service.deleteSamplesOfEntity(app, 'city')],
      ['delete entity', () => service.deleteEntity(app, 'city')],
      ['delete intent', () => service.deleteIntent(app, 'book_ticket')],
      ['delete sample', () => service.deleteSample(app, sample.code)],
    ];
    for (const [name, write] of removals) assert.equal((await moved(write)).by, 1, name);
    assert.equal(await data.dataVersion(other), otherBefore, "another application's version stays");
  });

  test('a write that fails leaves the version where it was', async () => {
    const sample = await service.createSample(app, 'một mẫu');
    const failed = await moved(() => service.linkIntent(app, 'no_such_intent', sample.code).catch((err: unknown) => err));
    assert.ok(failed.result instanceof ServiceError);
    assert.equal(failed.by, 0);
    const taken = await moved(() => service.createIntent(app, { label: 'taken' }));
    assert.equal(taken.by, 1);
    const duplicate = await moved(() => service.createIntent(app, { label: 'taken' }).catch((err: unknown) => err));
    assert.ok(duplicate.result instanceof ServiceError, 'a duplicate label is refused');
    assert.equal(duplicate.by, 0, 'the rolled-back insert did not bump');
  });

  test('samples created together bump each of their applications once', async () => {
    const [a, b] = [await data.dataVersion(app), await data.dataVersion(other)];
    // Same turn of the event loop: one batch holding both applications' rows.
    await Promise.all([service.createSample(app, 'một'), service.createSample(app, 'hai'), service.createSample(other, 'ba')]);
    assert.deepEqual([await data.dataVersion(app), await data.dataVersion(other)], [a + 1, b + 1]);
  });

  test('the full list is read again only after a write, and is always the current one', async () => {
    const json = await service.listSamplesJson(app);
    assert.equal(await service.listSamplesJson(app), json, 'same version: the same bytes, not read again');
    // A write by another service object over the same store (another process's view): no notice reaches this one.
    const elsewhere = new NluService(NluStore.over(store().db));
    await elsewhere.createSample(app, 'viết ở nơi khác');
    const after = JSON.parse((await service.listSamplesJson(app)).toString()) as { content: string }[];
    assert.equal(after.length, (JSON.parse(json.toString()) as unknown[]).length + 1);
    assert.ok(after.some((s) => s.content === 'viết ở nơi khác'));
    assert.deepEqual(JSON.parse((await service.listSamplesJson(other)).toString()), await data.listSamples(other, {}), "the other application's own list");
  });
});

describe('SampleListCache', () => {
  const bytes = (text: string) => Buffer.from(text);

  test('a list is served at the version it was read at, to its own application only', () => {
    const cache = new SampleListCache();
    cache.set('a', 3, bytes('[a3]'));
    assert.equal(cache.get('a', 3)?.toString(), '[a3]');
    assert.equal(cache.get('b', 3), undefined, 'same version, another application');
    assert.equal(cache.get('a', 4), undefined, 'written since');
    assert.equal(cache.get('a', 3), undefined, 'dropped once a newer version was seen');
  });

  test('a slower read of an older version does not replace a newer list', () => {
    const cache = new SampleListCache();
    cache.set('a', 5, bytes('[a5]'));
    cache.set('a', 4, bytes('[a4]'));
    assert.equal(cache.get('a', 5)?.toString(), '[a5]');
    assert.equal(cache.get('a', 4), undefined);
  });

  test('past its size the least recently used list goes', () => {
    const cache = new SampleListCache(10);
    cache.set('a', 1, bytes('aaaa'));
    cache.set('b', 1, bytes('bbbb'));
    assert.ok(cache.get('a', 1), 'a used last');
    cache.set('c', 1, bytes('cccc'));
    assert.equal(cache.get('b', 1), undefined, 'b evicted');
    assert.ok(cache.get('a', 1));
    assert.ok(cache.get('c', 1));
    cache.set('d', 1, bytes('x'.repeat(11)));
    assert.equal(cache.get('d', 1), undefined, 'a list larger than the cache is not kept');
  });
});
