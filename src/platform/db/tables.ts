import type { CreateTableBuilder, Kysely } from 'kysely';

/**
 * A table whose every row belongs to one application: a text primary key (`key`, `id` unless the table
 * names it otherwise) and `app_code`, the column every query of a service store filters on.
 */
export function createAppTable(db: Kysely<any>, name: string, key = 'id'): CreateTableBuilder<string, 'app_code'> {
  return db.schema
    .createTable(name)
    .addColumn(key, 'text', (c) => c.primaryKey())
    .addColumn('app_code', 'text', (c) => c.notNull());
}
