import type { ServiceModule } from '../platform/service-module.js';
import { creditCommand } from './cli.js';
import { creditMigrations } from './migrations.js';
import { registerCredit } from './index.js';

export const creditService: ServiceModule = {
  name: 'credit',
  prefixes: ['/dmp/creditscoring'],
  register: registerCredit,
  migrations: creditMigrations,
  commands: [{ words: 'credit', usage: 'import|train|eval ...', summary: 'credit-scoring data and models (saola credit --help)', run: creditCommand }],
};
