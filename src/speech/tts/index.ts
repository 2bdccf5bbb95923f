import type { FastifyInstance } from 'fastify';
import type { ServiceDeps } from '../../platform/deps.js';

/** Composition root of the tts service (not built yet: registers no routes). */
export async function registerTts(_app: FastifyInstance, _deps: ServiceDeps): Promise<void> {}
