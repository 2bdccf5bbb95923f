import type { Kysely, Migration } from 'kysely';

/**
 * Liveness's table. Its migration was first shipped with the face service's
 * (hence the 0004 name, kept: a migration's name is its identity in every
 * existing database). Append new ones as 0009_...; never edit one that has shipped.
 */
export const livenessMigrations: Readonly<Record<string, Migration>> = {
  '0004_face_search_03_liveness_thresholds': {
    async up(db: Kysely<any>) {
      // Live-probability thresholds chosen by `saola eval liveness --write`: one row per application,
      // or scope '*' for every application without its own; no row means SAOLA_LIVENESS_THRESHOLD.
      await db.schema
        .createTable('liveness_thresholds')
        .addColumn('scope', 'text', (c) => c.primaryKey())
        .addColumn('threshold', 'double precision', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('liveness_thresholds').execute();
    },
  },
};
