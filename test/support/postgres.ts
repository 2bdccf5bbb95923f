import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** Where the test PostgreSQL server is; CI and every dev machine run one on 127.0.0.1:5432. */
export const POSTGRES_ADMIN_URL = process.env.SAOLA_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * A fresh, empty PostgreSQL database for one test file, dropped afterwards.
 * If the server cannot be reached this throws: the suite fails, it never skips.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `saola_test_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  try {
    await admin.connect();
  } catch (err) {
    throw new Error(`PostgreSQL is required for this suite at ${POSTGRES_ADMIN_URL}: ${(err as Error).message}`);
  }
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
