import type { ServiceModule } from '../../platform/service-module.js';
import { modelsListCommand, modelsRemoveCommand } from '../cli.js';
import { ttsModelsAddCommand } from './cli.js';
import { registerTts } from './index.js';
import { ttsMigrations } from './migrations.js';
import { purgeTtsAudio } from './purge.js';

export const ttsService: ServiceModule = {
  name: 'tts',
  prefixes: ['/hmi/tts/'],
  register: registerTts,
  migrations: ttsMigrations,
  purge: purgeTtsAudio,
  commands: [
    { words: 'models add tts', usage: 'PATH --voice V', summary: 'install a neural voice (VITS) for voice names V', run: ttsModelsAddCommand },
    // The installed speech models of both services (recognition and voices) are listed and removed together.
    { words: 'models list', usage: '', summary: 'installed speech models and the voices they speak', run: modelsListCommand },
    { words: 'models remove', usage: 'asr|tts NAME', summary: 'remove a speech model (saola models remove --help)', run: modelsRemoveCommand },
  ],
};
