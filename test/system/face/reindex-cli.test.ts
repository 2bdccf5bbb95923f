import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { faceReindexCommand } from '../../../src/face/cli.js';
import { EMBEDDING_MODEL } from '../../../src/face/engine/similarity.js';
import { FaceStore } from '../../../src/face/store.js';
import { loadConfig } from '../../../src/platform/config.js';
import { migrateToLatest, openStore } from '../../../src/platform/db/database.js';
import { migrations } from '../../../src/services.js';
import { createTestDatabase, type TestDatabase } from '../../../fixtures/servers/postgres.js';

const unit = (i: number) => {
  const v = new Float32Array(512);
  v[i] = 1;
  return v;
};

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`saola face reindex on ${engine}`, () => {
    let pgdb: TestDatabase | undefined;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-face-reindex-'));
    after(async () => {
      await pgdb?.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it("says there is nothing to do when every face is the running model's, and lists and refuses faces of another model", async () => {
      if (engine === 'postgres') pgdb = await createTestDatabase();
      const config = loadConfig({ SAOLA_DATA_DIR: dir, SAOLA_LOG_LEVEL: 'silent', ...(pgdb ? { SAOLA_DATABASE_URL: pgdb.url } : {}) });
      let out = '';
      let err = '';
      const run = (args: string[]) => {
        out = '';
        err = '';
        return faceReindexCommand({ config, migrations, args, stdout: (t: string) => (out += t), stderr: (t: string) => (err += t) });
      };
      const store = openStore(config.databaseUrl);
      try {
        await migrateToLatest(store, migrations);
        const faces = new FaceStore(store);
        const current = await faces.ensureCollection('app1', 'staff');
        const u = await faces.upsertUser('app1', current.id, 'a', 'A');
        await faces.addFace('app1', current.id, u.id, unit(1), EMBEDDING_MODEL);
        await faces.addFace('app1', current.id, u.id, unit(2), EMBEDDING_MODEL);
        assert.equal(await run([]), 0);
        assert.match(out, /2 face\(s\), all embedded by faceplugin-fr_feature-512: nothing to reindex/);

        const old = await faces.ensureCollection('app2', 'visitors');
        const v = await faces.upsertUser('app2', old.id, 'b', 'B');
        await faces.addFace('app2', old.id, v.id, unit(3), 'older-model-128');
        assert.equal(await run([]), 1);
        assert.match(out, /application app2, collection "visitors": 1 face\(s\) embedded by older-model-128/);
        assert.match(err, /cannot be recomputed: Saola does not keep the photos/);
        // One collection only: the current one is fine, the old one is not.
        assert.equal(await run(['--collection', 'staff']), 0);
        assert.equal(await run(['--collection', 'visitors']), 1);
        assert.equal(await run(['--bogus']), 2);
      } finally {
        await store.close();
      }
    });
  });
}
