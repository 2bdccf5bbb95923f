import type { Migration } from 'kysely';
import { creditMigrations } from './credit/migrations.js';
import { faceMigrations } from './face/migrations.js';
import { nluMigrations } from './nlu/migrations.js';
import { platformMigrations } from './platform/db/migrations.js';
import { readerMigrations } from './reader/migrations.js';
import { speechMigrations } from './speech/migrations.js';
import { usageMigrations } from './platform/usage/migrations.js';
import { consoleMigrations } from './console/migrations.js';

/**
 * Every table of Saola: the platform's and each service's, one migration set
 * for SQLite and PostgreSQL. Names start with the owner's number: 0001
 * platform, 0002 nlu, 0003 reader, 0004 face, 0005 speech, 0006 credit,
 * 0007 console, 0008 usage and quotas, then a sequence
 * (`0005_02_tts_retention`); later ones append.
 */
export const migrations: Readonly<Record<string, Migration>> = {
  ...platformMigrations,
  ...nluMigrations,
  ...readerMigrations,
  ...faceMigrations,
  ...speechMigrations,
  ...creditMigrations,
  ...usageMigrations,
  ...consoleMigrations,
};
