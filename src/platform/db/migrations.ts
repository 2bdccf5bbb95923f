import type { Kysely, Migration } from 'kysely';

/**
 * The platform's tables (applications, credentials, jobs). Each service keeps
 * its own tables in its `migrations.ts`; `src/migrations.ts` joins them into
 * the one migration set, written with Kysely's schema builder in types both
 * SQLite and PostgreSQL share (text ids and timestamps, integer counters).
 * Append new migrations; never edit one that has shipped.
 */
const migrations: Record<string, Migration> = {
  '0001_platform': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('applications')
        .addColumn('code', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull().unique())
        .addColumn('created_time', 'text', (c) => c.notNull())
        .addColumn('revoked_time', 'text')
        .execute();
      await db.schema
        .createTable('credentials')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('app_code', 'text', (c) => c.notNull().references('applications.code').onDelete('cascade'))
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
        .addColumn('prefix', 'text', (c) => c.notNull())
        .addColumn('created_time', 'text', (c) => c.notNull())
        .addColumn('revoked_time', 'text')
        .execute();
      await db.schema.createIndex('credentials_app').on('credentials').column('app_code').execute();
      await db.schema
        .createTable('jobs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('queue', 'text', (c) => c.notNull())
        .addColumn('app_code', 'text')
        .addColumn('job_key', 'text')
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('max_attempts', 'integer', (c) => c.notNull())
        .addColumn('run_at', 'text', (c) => c.notNull())
        .addColumn('lease_until', 'text')
        .addColumn('progress', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('result', 'text')
        .addColumn('last_error', 'text')
        .addColumn('created_time', 'text', (c) => c.notNull())
        .addColumn('updated_time', 'text', (c) => c.notNull())
        .addUniqueConstraint('jobs_queue_key', ['queue', 'job_key'])
        .execute();
      await db.schema.createIndex('jobs_claim').on('jobs').columns(['queue', 'status', 'run_at']).execute();
    },
  },
  '0001_platform_02_cors_origins': {
    async up(db: Kysely<any>) {
      // One row per application that lets browsers in; no row: no CORS header for it (src/platform/http/cors.ts).
      await db.schema
        .createTable('app_cors_origins')
        .addColumn('app_code', 'text', (c) => c.primaryKey().references('applications.code'))
        .addColumn('origins', 'text', (c) => c.notNull())
        .addColumn('updated_time', 'text', (c) => c.notNull())
        .execute();
    },
  },
};

export const platformMigrations: Readonly<Record<string, Migration>> = migrations;
