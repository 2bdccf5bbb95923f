import type { ServiceModule } from '../platform/service-module.js';
import { livenessEvalCommand } from './cli.js';
import { livenessMigrations } from './migrations.js';
import { purgeLivenessThreshold } from './purge.js';
import { registerLiveness } from './index.js';

export const livenessService: ServiceModule = {
  name: 'liveness',
  prefixes: ['/dmp/checklive/', '/dmp/liveness/'],
  register: registerLiveness,
  migrations: livenessMigrations,
  purge: purgeLivenessThreshold,
  commands: [
    {
      words: 'eval liveness',
      usage: '--live DIR --attack DIR',
      summary: 'liveness APCER/BPCER on your own videos; --write sets the threshold',
      run: livenessEvalCommand,
    },
  ],
};
