/** The eKYC store on both engines: sessions with their guarded updates, images, the fraud memory's window and retention. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SqlEkycStore } from '../../../src/ekyc/index.js';
import type { EkycSessionRow } from '../../../src/ekyc/schema.js';
import { newSessionRow } from '../../../src/ekyc/store.js';
import { useMigratedStore } from '../../support/store.js';

const session = (id: string, app: string, created: string): EkycSessionRow => newSessionRow(id, app, 'api', null, new Date(created), 1800_000);

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`eKYC store on ${engine}`, () => {
    const opened = useMigratedStore(engine, 'saola-ekyc-store-');

    it('a side is stored once: the second of two racing updates changes nothing', async () => {
      const store = SqlEkycStore.over(opened().db);
      await store.createSession(session('s1', 'app1', new Date().toISOString()));
      assert.equal(await store.updateSession('app1', 's1', { status: 'open', front: null }, { front: '{"a":1}', document_type: 'idr' }), true);
      assert.equal(await store.updateSession('app1', 's1', { status: 'open', front: null }, { front: '{"a":2}' }), false);
      assert.equal((await store.session('app1', 's1'))!.front, '{"a":1}');
      // Another application neither reads nor changes it.
      assert.equal(await store.session('app2', 's1'), undefined);
      assert.equal(await store.updateSession('app2', 's1', { status: 'open' }, { status: 'failed' }), false);
      assert.equal(await store.updateSession('app1', 's1', { status: 'open', attempts: 0 }, { attempts: 1 }), true);
      assert.equal(await store.updateSession('app1', 's1', { status: 'open', attempts: 0 }, { attempts: 1 }), false);
    });

    it('the fraud memory answers within its window and for its application only', async () => {
      const store = SqlEkycStore.over(opened().db);
      const now = Date.parse('2026-01-01T12:00:00Z');
      const at = (ms: number) => new Date(now + ms).toISOString();
      await store.remember({
        id: 'm1',
        app_code: 'app1',
        session_id: 's1',
        id_number: '001090000001',
        face: 'AAAA',
        reason: 'FC01',
        created_time: at(0),
        expires_time: at(6 * 3600_000),
      });
      assert.equal((await store.rememberedId('app1', '001090000001', at(3600_000)))?.reason, 'FC01');
      assert.equal(await store.rememberedId('app2', '001090000001', at(3600_000)), undefined);
      assert.equal(await store.rememberedId('app1', '001090000001', at(7 * 3600_000)), undefined);
      assert.deepEqual(await store.rememberedFaces('app1', at(0)), [{ session_id: 's1', face: 'AAAA' }]);
      assert.equal(await store.forgetExpired(at(7 * 3600_000)), 1);
      assert.deepEqual(await store.rememberedFaces('app1', at(0)), []);
    });

    it('retention: sessions started before the cut, with their images', async () => {
      const store = SqlEkycStore.over(opened().db);
      await store.createSession(session('old', 'app1', '2020-01-01T00:00:00.000Z'));
      await store.addImage({ id: 'i1', app_code: 'app1', session_id: 'old', kind: 'front', blob_key: 'ekyc/old/front.jpg', created_time: '2020-01-01T00:00:00.000Z' });
      const { sessionIds, keys } = await store.expiredImageKeys('2021-01-01T00:00:00.000Z', 10);
      assert.deepEqual(sessionIds, ['old']);
      assert.deepEqual(keys, ['ekyc/old/front.jpg']);
      assert.deepEqual(await store.imageKeysOfApp('app1'), ['ekyc/old/front.jpg']);
      assert.equal(await store.deleteSessions(sessionIds), 1);
      assert.deepEqual(await store.imageKeysOfApp('app1'), []);
    });
  });
}
