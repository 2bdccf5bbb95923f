import type { Migration } from 'kysely';

/** The face service's tables. Append new migrations; never edit one that has shipped. */
export const faceMigrations: Readonly<Record<string, Migration>> = {};
