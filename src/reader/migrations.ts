import type { Migration } from 'kysely';

/** The reader service's tables. Append new migrations; never edit one that has shipped. */
export const readerMigrations: Readonly<Record<string, Migration>> = {};
