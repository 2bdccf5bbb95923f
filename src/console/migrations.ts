import type { Kysely, Migration } from 'kysely';

/** Console sign-in sessions, in the store so every `saola serve` process behind a balancer knows them. */
export const consoleMigrations: Readonly<Record<string, Migration>> = {
  '0007_console_sessions': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('console_sessions')
        // sha256 of the cookie's value: a stolen database does not sign anyone in.
        .addColumn('id_hash', 'text', (c) => c.primaryKey())
        .addColumn('csrf', 'text', (c) => c.notNull())
        .addColumn('created_time', 'text', (c) => c.notNull())
        .addColumn('expires_time', 'text', (c) => c.notNull())
        .execute();
    },
  },
};
