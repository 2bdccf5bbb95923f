import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, type Migration, type SqliteDatabase } from 'kysely';
import pg from 'pg';
import { sqliteFile } from '../config.js';
import type { Database } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';

/**
 * A service's typed view of the store: its own tables `T` beside the platform's, on the
 * same connection. Each service declares its rows in its own `schema.ts` and reaches them
 * only through this; the platform's `Database` knows the platform's tables alone.
 */
export type ServiceDb<T> = Kysely<Database & T>;

// Kysely's own constraint on a map of tables.
export function serviceDb<T extends Record<string, Record<string, any>>>(db: Kysely<Database>): ServiceDb<T> {
  return db.withTables<T>();
}

/** The relational store: a Kysely handle plus which engine is behind it. */
export interface Store {
  db: Kysely<Database>;
  dialect: Dialect;
  /** A short description for logs and /readyz, with no password in it. */
  describe: string;
  close(): Promise<void>;
}

function redact(databaseUrl: string): string {
  try {
    const u = new URL(databaseUrl);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres';
  }
}

/** Statements kept per SQLite connection (distinct SQL texts: an `in (...)` list of each length is one). */
const PREPARED_STATEMENTS = 500;

/**
 * The SQLite connection as Kysely sees it, with each SQL text prepared once: Kysely's driver prepares every
 * query it runs, and preparing (parsing and planning) cost more than running the small queries of a request.
 * A statement still being iterated (a streamed query) is busy, so that query gets a fresh one.
 */
export function preparedOnce(sqlite: SQLite.Database): SqliteDatabase {
  const statements = new Map<string, SQLite.Statement>();
  return {
    prepare(sql: string) {
      const cached = statements.get(sql);
      if (cached && !cached.busy) return cached;
      const statement = sqlite.prepare(sql);
      if (!cached) {
        if (statements.size >= PREPARED_STATEMENTS) statements.delete(statements.keys().next().value!);
        statements.set(sql, statement);
      }
      return statement;
    },
    close() {
      statements.clear();
      sqlite.close();
    },
  };
}

export function openStore(databaseUrl: string): Store {
  const file = sqliteFile(databaseUrl);
  if (file !== undefined) {
    if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
    const sqlite = new SQLite(file);
    // WAL keeps readers off the writer's back; NORMAL sync is still crash-safe
    // for a killed process (only an OS crash may drop the last transactions).
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: preparedOnce(sqlite) }) });
    return { db, dialect: 'sqlite', describe: `sqlite:${file}`, close: () => db.destroy() };
  }
  // pg answers int8 (count(*)) as text; our counts fit in a double.
  pg.types.setTypeParser(20, (value) => Number(value));
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  pool.on('error', () => {
    /* an idle client lost its connection; the pool replaces it */
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, dialect: 'postgres', describe: redact(databaseUrl), close: () => db.destroy() };
}

/**
 * Brings the schema to the newest migration; safe to run from several
 * processes. Migration names start with a number and run in name order;
 * services own numbers of their own, so a later-numbered one may ship first.
 */
export async function migrateToLatest(store: Store, migrations: Readonly<Record<string, Migration>>): Promise<string[]> {
  const migrator = new Migrator({
    db: store.db,
    provider: { getMigrations: async () => ({ ...migrations }) },
    allowUnorderedMigrations: true,
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** True when a write failed on a UNIQUE constraint, on either engine (a lost race, usually). */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: string } | undefined)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
