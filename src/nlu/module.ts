import type { ServiceModule } from '../platform/service-module.js';
import { nluMigrations } from './migrations.js';
import { registerNlu } from './index.js';

export const nluService: ServiceModule = { name: 'nlu', prefixes: ['/api/v3/'], register: registerNlu, migrations: nluMigrations };
