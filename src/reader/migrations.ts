import type { Kysely, Migration } from 'kysely';

/** The reader service's tables. Append new migrations; never edit one that has shipped. */
export const readerMigrations: Readonly<Record<string, Migration>> = {
  '0003_01_reader_app_settings': {
    async up(db: Kysely<any>) {
      // One row per application that an operator has configured; no row means the defaults.
      // `features` is 0/1 (SQLite has no boolean): 1 when the customer has the arrangement
      // the spec asks for before a back's distinguishing features are returned.
      await db.schema
        .createTable('reader_app_settings')
        .addColumn('app_code', 'text', (c) => c.primaryKey().references('applications.code'))
        .addColumn('features', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('updated_time', 'text', (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('reader_app_settings').execute();
    },
  },
};
