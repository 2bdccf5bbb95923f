import type { ServiceModule } from '../../platform/service-module.js';
import { asrModelsCommand } from './cli.js';
import { registerAsr } from './index.js';

export const asrService: ServiceModule = {
  name: 'asr',
  prefixes: ['/hmi/asr'],
  register: registerAsr,
  commands: [{ words: 'models add asr', usage: 'PATH', summary: 'install a speech-recognition model', run: asrModelsCommand }],
};
