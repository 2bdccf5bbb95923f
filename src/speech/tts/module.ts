import type { ServiceModule } from '../../platform/service-module.js';
import { registerTts } from './index.js';
import { ttsMigrations } from './migrations.js';
import { purgeTtsAudio } from './purge.js';

export const ttsService: ServiceModule = { name: 'tts', prefixes: ['/hmi/tts/'], register: registerTts, migrations: ttsMigrations, purge: purgeTtsAudio };
