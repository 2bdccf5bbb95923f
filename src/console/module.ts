import type { ServiceModule } from '../platform/service-module.js';
import { registerConsole } from './index.js';
import { consoleMigrations } from './migrations.js';

/** The web console: not metered (no public prefixes); it gets the metering and purge hooks of the whole list. */
export const consoleService: ServiceModule = { name: 'console', prefixes: [], register: registerConsole, migrations: consoleMigrations };
