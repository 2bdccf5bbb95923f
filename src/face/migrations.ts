import type { Kysely, Migration } from 'kysely';

/** The face service's tables. Append new migrations; never edit one that has shipped. */
export const faceMigrations: Readonly<Record<string, Migration>> = {
  '0004_face_search': {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('face_collections')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('app_code', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('face_collections_app_name', ['app_code', 'name'])
        .execute();
      await db.schema
        .createTable('face_users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('app_code', 'text', (c) => c.notNull())
        .addColumn('collection_id', 'text', (c) => c.notNull().references('face_collections.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('face_users_collection_user', ['collection_id', 'user_id'])
        .execute();
      await db.schema
        .createTable('face_embeddings')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('app_code', 'text', (c) => c.notNull())
        .addColumn('collection_id', 'text', (c) => c.notNull().references('face_collections.id').onDelete('cascade'))
        .addColumn('user_row_id', 'text', (c) => c.notNull().references('face_users.id').onDelete('cascade'))
        .addColumn('embedding', 'text', (c) => c.notNull())
        .addColumn('model', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('face_embeddings_collection').on('face_embeddings').columns(['collection_id']).execute();
      await db.schema.createIndex('face_embeddings_user').on('face_embeddings').columns(['user_row_id']).execute();
    },
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    async down(db: Kysely<any>) {
      await db.schema.dropTable('face_embeddings').execute();
      await db.schema.dropTable('face_users').execute();
      await db.schema.dropTable('face_collections').execute();
    },
  },
};
