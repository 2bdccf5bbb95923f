/**
 * Samples created in one turn of the event loop are written by one statement; on PostgreSQL its SQL text is
 * built once per shape (rows, applications) and later batches of that shape only bind their values. A batch of
 * a shape seen before must store exactly its own rows, each under its own application, and bump each
 * application's version once, as the first batch of that shape did.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { Credentials } from '../../../src/platform/auth/credentials.js';
import { NluService } from '../../../src/nlu/service.js';
import { NluStore } from '../../../src/nlu/store.js';
import { useMigratedStore } from '../../support/store.js';

describe('NLU sample batches on postgres', () => {
  const store = useMigratedStore('postgres');
  let apps: string[];
  let data: NluStore;
  let service: NluService;

  before(async () => {
    const credentials = new Credentials(store(), 0);
    apps = [(await credentials.createApp('batch-a')).app_code, (await credentials.createApp('batch-b')).app_code];
    data = NluStore.over(store().db, 'postgres');
    service = new NluService(data);
  });

  /** One batch: three rows of the first application and two of the second, created in the same turn. */
  async function batch(round: number) {
    const texts = [0, 1, 2, 3, 4].map((i) => `mẫu ${round}.${i}: đặt vé đi Huế lúc ${i + 7} giờ`);
    const owners = [apps[0], apps[1], apps[0], apps[1], apps[0]];
    const versions = await Promise.all(apps.map((a) => data.dataVersion(a)));
    const created = await Promise.all(texts.map((t, i) => service.createSample(owners[i]!, t)));
    return { texts, owners, versions, created };
  }

  test('a batch of a shape seen before stores its own rows under their own applications', async () => {
    for (let round = 0; round < 3; round++) {
      const { texts, owners, versions, created } = await batch(round);
      assert.deepEqual(
        await Promise.all(apps.map((a) => data.dataVersion(a))),
        versions.map((v) => v + 1),
        `round ${round}: each version bumped once`,
      );
      for (const [i, sample] of created.entries()) {
        const stored = await data.findSample(owners[i]!, sample.code);
        assert.deepEqual(stored, { code: sample.code, app_code: owners[i], content: texts[i], created_time: sample.created_time }, `round ${round}, row ${i}`);
        assert.equal(await data.findSample(owners[1 - apps.indexOf(owners[i]!)]!, sample.code), undefined, 'not under the other application');
      }
    }
    const listed = await Promise.all(apps.map((a) => data.listSamples(a, {})));
    assert.deepEqual(
      listed.map((l) => l.length),
      [9, 6],
    );
  });

  test('a failing row in a batch of a known shape fails alone', async () => {
    await batch(10);
    const versions = await Promise.all(apps.map((a) => data.dataVersion(a)));
    // The same shape; one row only the database refuses (PostgreSQL text cannot hold NUL).
    const owners = [apps[0]!, apps[1]!, apps[0]!, apps[1]!, apps[0]!];
    const texts = owners.map((_, i) => (i === 3 ? 'lần hai \u0000' : `lần hai ${i}`));
    const outcomes = await Promise.allSettled(owners.map((o, i) => service.createSample(o, texts[i]!)));
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
    );
    for (const [i, o] of outcomes.entries()) {
      if (o.status === 'fulfilled') assert.equal((await data.findSample(owners[i]!, o.value.code))?.content, texts[i]);
    }
    const after = await Promise.all(apps.map((a) => data.dataVersion(a)));
    assert.ok(after[0]! > versions[0]! && after[1]! > versions[1]!, 'the rows that landed bumped their applications');
  });
});
