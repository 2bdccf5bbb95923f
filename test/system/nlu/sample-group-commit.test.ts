/**
 * Sample creation is group-committed (WriteBatcher; on PostgreSQL a statement also waits briefly for the rows its
 * clients are about to send): on both stores, samples created by concurrent clients all land, each under its
 * own application, and a row the database refuses fails only its own request.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { Credentials } from '../../../src/platform/auth/credentials.js';
import { serviceDb } from '../../../src/platform/db/database.js';
import { NluService } from '../../../src/nlu/service.js';
import { NluStore } from '../../../src/nlu/store.js';
import type { NluTables, SampleRow } from '../../../src/nlu/schema.js';
import { useMigratedStore } from '../../support/store.js';

/** Records the size of every sample statement the service sends. */
class RecordingStore extends NluStore {
  readonly statements: number[] = [];
  override insertSamplesAndBump(rows: SampleRow[]): Promise<void> {
    this.statements.push(rows.length);
    return super.insertSamplesAndBump(rows);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`NLU sample group commit on ${engine}`, () => {
    const store = useMigratedStore(engine, 'saola-nlu-group-');
    let apps: string[];
    let data: RecordingStore;
    let service: NluService;

    before(async () => {
      const credentials = new Credentials(store(), 0);
      apps = [(await credentials.createApp('group-a')).app_code, (await credentials.createApp('group-b')).app_code];
      data = new RecordingStore(serviceDb<NluTables>(store().db), store().dialect);
      service = new NluService(data);
      // A row the database itself refuses, on either engine: the statement holding it fails as a whole.
      if (engine === 'sqlite') {
        await sql`create trigger nlu_test_refuse before insert on nlu_samples when new.content like 'refused%'
          begin select raise(abort, 'refused by the test trigger'); end`.execute(store().db);
      } else {
        await sql`create function nlu_test_refuse() returns trigger language plpgsql as $$
          begin if new.content like 'refused%' then raise exception 'refused by the test trigger'; end if; return new; end $$`.execute(store().db);
        await sql`create trigger nlu_test_refuse before insert on nlu_samples for each row execute function nlu_test_refuse()`.execute(store().db);
      }
    });

    test('samples created by concurrent clients all land, each under its own application', async () => {
      const versions = await Promise.all(apps.map((a) => data.dataVersion(a)));
      const statementsBefore = data.statements.length;
      const clients = 12;
      const rounds = 6;
      const created: { app: string; text: string; code: string; time: string }[] = [];
      // Each client keeps one request in flight and sends its next a little later (0-3 ms), as HTTP clients do.
      await Promise.all(
        Array.from({ length: clients }, async (_, c) => {
          const app = apps[c % 2]!;
          for (let r = 0; r < rounds; r++) {
            const text = `khách ${c} lần ${r}: đặt bàn cho ${r + 2} người`;
            const sample = await service.createSample(app, text);
            created.push({ app, text, code: sample.code, time: sample.created_time });
            await sleep((c + r) % 4);
          }
        }),
      );
      assert.equal(created.length, clients * rounds);
      const statements = data.statements.slice(statementsBefore);
      assert.equal(
        statements.reduce((a, b) => a + b, 0),
        clients * rounds,
        'every row written once',
      );
      assert.ok(
        statements.some((n) => n > 1),
        `rows of concurrent clients share statements: ${JSON.stringify(statements)}`,
      );
      for (const { app, text, code, time } of created) {
        assert.deepEqual(await data.findSample(app, code), { code, app_code: app, content: text, created_time: time });
        assert.equal(await data.findSample(apps[1 - apps.indexOf(app)]!, code), undefined, 'not under the other application');
      }
      const listed = await Promise.all(apps.map((a) => data.listSamples(a, {})));
      assert.deepEqual(
        listed.map((l) => l.length),
        [(clients / 2) * rounds, (clients / 2) * rounds],
      );
      const after = await Promise.all(apps.map((a) => data.dataVersion(a)));
      assert.ok(after[0]! > versions[0]! && after[1]! > versions[1]!, 'both versions moved');
    });

    test('a row the database refuses fails only its own request', async () => {
      const counts = await Promise.all(apps.map(async (a) => (await data.listSamples(a, {})).length));
      const statementsBefore = data.statements.length;
      const texts = Array.from({ length: 10 }, (_, i) => (i === 4 ? `refused ${i}` : `giữ lại ${i}`));
      const owners = texts.map((_, i) => apps[i % 2]!);
      const outcomes = await Promise.allSettled(texts.map((t, i) => service.createSample(owners[i]!, t)));
      assert.deepEqual(
        outcomes.map((o) => o.status),
        texts.map((_, i) => (i === 4 ? 'rejected' : 'fulfilled')),
      );
      assert.match(String((outcomes[4] as PromiseRejectedResult).reason), /refused by the test trigger/);
      assert.ok(data.statements.slice(statementsBefore)[0]! > 1, 'the refused row was in a statement with others');
      for (const [i, o] of outcomes.entries()) {
        if (o.status === 'fulfilled') assert.equal((await data.findSample(owners[i]!, o.value.code))?.content, texts[i]);
      }
      const after = await Promise.all(apps.map(async (a) => (await data.listSamples(a, {})).map((s) => s.content)));
      assert.equal(after[0]!.length, counts[0]! + 4, 'four of the five of the first application landed');
      assert.equal(after[1]!.length, counts[1]! + 5);
      assert.ok(!after[0]!.includes('refused 4'), 'the refused row is not stored');
    });
  });
}
