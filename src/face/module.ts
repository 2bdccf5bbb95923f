import type { ServiceModule } from '../platform/service-module.js';
import { faceEvalCommand, faceReindexCommand } from './cli.js';
import { faceMigrations } from './migrations.js';
import { registerFace } from './index.js';

export const faceService: ServiceModule = {
  name: 'face',
  prefixes: ['/dmp/facesearch/', '/dmp/checkface/'],
  register: registerFace,
  migrations: faceMigrations,
  commands: [
    { words: 'eval face', usage: '--pairs DIR', summary: 'face verification accuracy and similarity refit', run: faceEvalCommand },
    {
      words: 'face reindex',
      usage: '[--collection NAME]',
      summary: 'faces embedded by another model than the running one (search ignores them)',
      run: faceReindexCommand,
    },
  ],
};
