import type { ServiceModule } from '../platform/service-module.js';
import { purgeNluModels, registerNlu } from './index.js';
import { nluMigrations } from './migrations.js';

export const nluService: ServiceModule = { name: 'nlu', prefixes: ['/api/v3/'], register: registerNlu, migrations: nluMigrations, purge: purgeNluModels };
