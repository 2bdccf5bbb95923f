import type { FastifyInstance } from 'fastify';
import type { ServiceDeps } from '../platform/deps.js';
import { registerAsr } from './asr/index.js';
import { registerTts } from './tts/index.js';

/** The speech services: text to speech (/hmi/tts/v5) and speech to text (/hmi/asr/general). */
export async function registerSpeech(app: FastifyInstance, deps: ServiceDeps): Promise<void> {
  await registerTts(app, deps);
  await registerAsr(app, deps);
}
