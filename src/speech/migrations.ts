import type { Migration } from 'kysely';

/** The speech service's tables. Append new migrations; never edit one that has shipped. */
export const speechMigrations: Readonly<Record<string, Migration>> = {};
