import type { Migration } from 'kysely';

/** The credit service's tables. Append new migrations; never edit one that has shipped. */
export const creditMigrations: Readonly<Record<string, Migration>> = {};
