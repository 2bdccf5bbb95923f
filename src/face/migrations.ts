import { sql, type Kysely, type Migration } from 'kysely';
import { createAppTable } from '../platform/db/tables.js';

/** The face service's tables. Append new migrations; never edit one that has shipped. */
export const faceMigrations: Readonly<Record<string, Migration>> = {
  '0004_face_search': {
    async up(db: Kysely<any>) {
      await createAppTable(db, 'face_collections')
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('face_collections_app_name', ['app_code', 'name'])
        .execute();
      await createAppTable(db, 'face_users')
        .addColumn('collection_id', 'text', (c) => c.notNull().references('face_collections.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('face_users_collection_user', ['collection_id', 'user_id'])
        .execute();
      await createAppTable(db, 'face_embeddings')
        .addColumn('collection_id', 'text', (c) => c.notNull().references('face_collections.id').onDelete('cascade'))
        .addColumn('user_row_id', 'text', (c) => c.notNull().references('face_users.id').onDelete('cascade'))
        .addColumn('embedding', 'text', (c) => c.notNull())
        .addColumn('model', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('face_embeddings_collection').on('face_embeddings').columns(['collection_id']).execute();
      await db.schema.createIndex('face_embeddings_user').on('face_embeddings').columns(['user_row_id']).execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('face_embeddings').execute();
      await db.schema.dropTable('face_users').execute();
      await db.schema.dropTable('face_collections').execute();
    },
  },
  '0004_face_search_02_index_versions': {
    /*
     * Why: a search checked the index against "count:last id" of the
     * collection's faces, a count over every face per search (a bitmap heap
     * scan of the collection, EXPLAIN on PostgreSQL), and read new faces with
     * `id > last ORDER BY id LIMIT n`, which with only the collection_id index
     * visited and sorted every face of the collection per page. And a face
     * whose UUIDv7 sorted below the last id (another host's clock behind) was
     * never appended. Now each collection carries two counters bumped in the
     * same transaction as the change: `faces_seq` numbers its faces in commit
     * order (the row lock on the collection serialises adds), `faces_epoch`
     * moves on every delete. Faces are read by (collection_id, seq).
     */
    async up(db: Kysely<any>) {
      await db.schema
        .alterTable('face_collections')
        .addColumn('faces_seq', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('face_collections')
        .addColumn('faces_epoch', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('face_embeddings')
        .addColumn('seq', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      // Existing faces keep their id order (both engines have window functions and UPDATE ... FROM).
      await sql`update face_embeddings set seq = r.n
        from (select id, row_number() over (partition by collection_id order by id) as n from face_embeddings) as r
        where face_embeddings.id = r.id`.execute(db);
      await sql`update face_collections set faces_seq = coalesce((select max(e.seq) from face_embeddings e where e.collection_id = face_collections.id), 0)`.execute(db);
      await db.schema.createIndex('face_embeddings_collection_seq').on('face_embeddings').columns(['collection_id', 'seq']).unique().execute();
      // Its leading column serves every query the single-column index did.
      await db.schema.dropIndex('face_embeddings_collection').execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.createIndex('face_embeddings_collection').on('face_embeddings').columns(['collection_id']).execute();
      await db.schema.dropIndex('face_embeddings_collection_seq').execute();
      await db.schema.alterTable('face_embeddings').dropColumn('seq').execute();
      await db.schema.alterTable('face_collections').dropColumn('faces_epoch').execute();
      await db.schema.alterTable('face_collections').dropColumn('faces_seq').execute();
    },
  },
  '0004_face_search_03_recognisers': {
    /*
     * Several recognisers side by side: each collection names the recogniser
     * its search serves from (null: the shipped one), each face keeps its
     * aligned crop in the blob store (null: enrolled without one), a reindex
     * stages the new recogniser's embeddings beside the served ones until the
     * collection switches, and calibrations are stored per recogniser.
     */
    async up(db: Kysely<any>) {
      await db.schema.alterTable('face_collections').addColumn('model', 'text').execute();
      await db.schema.alterTable('face_embeddings').addColumn('crop_key', 'text').execute();
      await db.schema
        .createTable('face_staged_embeddings')
        .addColumn('face_id', 'text', (c) => c.primaryKey().references('face_embeddings.id').onDelete('cascade'))
        .addColumn('app_code', 'text', (c) => c.notNull())
        .addColumn('collection_id', 'text', (c) => c.notNull().references('face_collections.id').onDelete('cascade'))
        .addColumn('model', 'text', (c) => c.notNull())
        .addColumn('embedding', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('face_staged_embeddings_collection').on('face_staged_embeddings').columns(['collection_id', 'model']).execute();
      await db.schema
        .createTable('face_similarity_maps')
        .addColumn('model', 'text', (c) => c.primaryKey())
        .addColumn('version', 'text', (c) => c.notNull())
        .addColumn('knots', 'text', (c) => c.notNull())
        .addColumn('report', 'text', (c) => c.notNull())
        .addColumn('fitted_at', 'text', (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('face_similarity_maps').execute();
      await db.schema.dropTable('face_staged_embeddings').execute();
      await db.schema.alterTable('face_embeddings').dropColumn('crop_key').execute();
      await db.schema.alterTable('face_collections').dropColumn('model').execute();
    },
  },
};
