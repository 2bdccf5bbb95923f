import type { Kysely, Migration } from 'kysely';
import { createAppTable } from '../../platform/db/tables.js';

/** Text to speech's tables. Append new migrations; never edit one that has shipped. */
export const ttsMigrations: Readonly<Record<string, Migration>> = {
  '0005_01_tts_requests': {
    async up(db: Kysely<any>) {
      await createAppTable(db, 'tts_requests')
        .addColumn('link_token', 'text', (c) => c.notNull().unique())
        .addColumn('async_url', 'text', (c) => c.notNull())
        .addColumn('voice', 'text', (c) => c.notNull())
        .addColumn('speed', 'integer', (c) => c.notNull())
        .addColumn('format', 'text', (c) => c.notNull())
        .addColumn('text_length', 'integer', (c) => c.notNull())
        .addColumn('callback_url', 'text')
        .addColumn('job_id', 'text')
        .addColumn('blob_key', 'text', (c) => c.notNull())
        .addColumn('audio_bytes', 'integer')
        .addColumn('audio_ms', 'integer')
        .addColumn('error', 'text')
        .addColumn('created_time', 'text', (c) => c.notNull())
        .addColumn('ready_time', 'text')
        .addColumn('failed_time', 'text')
        .execute();
      await db.schema.createIndex('tts_requests_app').on('tts_requests').columns(['app_code', 'created_time']).execute();
      await db.schema.createIndex('tts_requests_created').on('tts_requests').column('created_time').execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('tts_requests').execute();
    },
  },
  // The backlog check of POST /hmi/tts/v5 counts unfinished requests once a second.
  '0005_03_tts_unfinished_index': {
    async up(db: Kysely<any>) {
      await db.schema.createIndex('tts_requests_unfinished').on('tts_requests').columns(['ready_time', 'failed_time']).execute();
    },
  },
};
