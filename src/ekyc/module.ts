import type { ServiceModule } from '../platform/service-module.js';
import { registerEkyc } from './index.js';
import { ekycMigrations } from './migrations.js';
import { purgeEkycImages } from './retention.js';

export const ekycService: ServiceModule = {
  name: 'ekyc',
  prefixes: ['/session/', '/ocr', '/face/'],
  register: registerEkyc,
  migrations: ekycMigrations,
  purge: purgeEkycImages,
};
