import type { ServiceModule } from '../platform/service-module.js';
import { faceEvalCommand } from './cli.js';
import { faceMigrations } from './migrations.js';
import { registerFace } from './index.js';

export const faceService: ServiceModule = {
  name: 'face',
  prefixes: ['/dmp/facesearch/', '/dmp/checkface/'],
  register: registerFace,
  migrations: faceMigrations,
  commands: [{ words: 'eval face', usage: '--pairs DIR', summary: 'face verification accuracy and similarity refit', run: faceEvalCommand }],
};
