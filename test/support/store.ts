/** A migrated store on SQLite (temporary file) or PostgreSQL (throw-away database) for one describe block. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import { migrations } from '../../src/services.js';
import { migrateToLatest, openStore, type Store } from '../../src/platform/db/database.js';
import { createTestDatabase, type TestDatabase } from '../../fixtures/servers/postgres.js';

/** Registers before/after hooks in the current describe; `store()` is valid inside its tests. */
export function useMigratedStore(engine: 'sqlite' | 'postgres', prefix = 'saola-store-'): () => Store {
  let store: Store | undefined;
  let pgdb: TestDatabase | undefined;
  let dir: string | undefined;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    if (engine === 'postgres') pgdb = await createTestDatabase();
    store = openStore(pgdb?.url ?? `sqlite:${path.join(dir, 'db.sqlite')}`);
    await migrateToLatest(store, migrations);
  });
  after(async () => {
    await store?.close();
    await pgdb?.drop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    if (!store) throw new Error('the store is opened in before()');
    return store;
  };
}
