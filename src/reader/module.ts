import type { ServiceModule } from '../platform/service-module.js';
import { readerFeaturesCommand } from './cli.js';
import { readerMigrations } from './migrations.js';
import { registerReader } from './index.js';

export const readerService: ServiceModule = {
  name: 'reader',
  prefixes: ['/vision/', '/cmt'],
  register: registerReader,
  migrations: readerMigrations,
  commands: [
    { words: 'reader features', usage: 'APP on|off|show', summary: "answer ID card backs' distinguishing features for an application", run: readerFeaturesCommand },
  ],
};
