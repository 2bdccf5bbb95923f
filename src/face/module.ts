import type { ServiceModule } from '../platform/service-module.js';
import { faceCalibrateCommand, faceEvalCommand, faceModelsActivateCommand, faceModelsAddCommand, faceModelsRemoveCommand, faceReindexCommand } from './cli.js';
import { purgeFaceBlobs } from './crops.js';
import { faceMigrations } from './migrations.js';
import { registerFace } from './index.js';

export const faceService: ServiceModule = {
  name: 'face',
  prefixes: ['/dmp/facesearch/', '/dmp/checkface/'],
  register: registerFace,
  migrations: faceMigrations,
  purge: purgeFaceBlobs,
  commands: [
    { words: 'eval face', usage: '--pairs DIR', summary: 'face verification accuracy and similarity refit', run: faceEvalCommand },
    {
      words: 'face reindex',
      usage: '[--model NAME] [--collection NAME] [--force]',
      summary: 're-embed every enrolled face with a recogniser and switch each collection to it',
      run: faceReindexCommand,
    },
    {
      words: 'face calibrate',
      usage: '--labels DIR [--dry-run]',
      summary: "fit and store the active recogniser's similarity map on labelled people",
      run: faceCalibrateCommand,
    },
    { words: 'models add face', usage: 'PATH [--name N] [--no-activate]', summary: 'install a face recogniser (ONNX)', run: faceModelsAddCommand },
    { words: 'models activate face', usage: 'NAME', summary: 'the face recogniser new collections and face match use', run: faceModelsActivateCommand },
    { words: 'models remove face', usage: 'NAME', summary: 'remove an installed face recogniser', run: faceModelsRemoveCommand },
  ],
};
