import type { FastifyInstance } from 'fastify';
import type { ServiceDeps } from '../../platform/deps.js';
import { loadAsrSettings, type AsrSettings } from './config.js';
import { FfmpegDecoder, type AudioDecoder } from './engine/decode.js';
import { SherpaEngine, type SpeechEngine } from './engine/index.js';
import { asrRoutes } from './routes.js';
import { AsrService } from './service.js';
import { sileroAvailable } from './engine/vad.js';

/** Composition root of speech to text: wires the decoder, the engine and the service. */
export function createAsrService(settings: AsrSettings, engine: SpeechEngine, decoder: () => Promise<AudioDecoder>): AsrService {
  return new AsrService(decoder, engine, {
    maxSeconds: settings.maxSeconds,
    timeoutMs: settings.timeoutMs,
    maxInFlight: settings.threads + settings.queue,
  });
}

export async function registerAsr(app: FastifyInstance, deps: ServiceDeps): Promise<void> {
  const settings = loadAsrSettings(deps.config);
  const log = app.log.child({ service: 'asr' });
  const engine = new SherpaEngine(settings, log);
  // ffmpeg is found on first use: servers that never hear audio never look for it.
  let decoder: Promise<FfmpegDecoder> | undefined;
  const findDecoder = () => {
    decoder ??= FfmpegDecoder.locate(settings.ffmpeg).then((d) => {
      log.info({ ffmpeg: d.source, binary: d.binary }, 'asr: audio decoder ready');
      return d;
    });
    decoder.catch(() => (decoder = undefined));
    return decoder;
  };
  const service = createAsrService(settings, engine, findDecoder);

  deps.lifecycle.onClose('asr', () => engine.close());
  deps.lifecycle.addReadiness('asr', async () => {
    const model = await engine.model();
    const ffmpeg = await findDecoder().then(
      (d) => d.source,
      (err: Error) => `missing: ${err.message}`,
    );
    return {
      ok: model.state === 'ready' && (ffmpeg === 'native' || ffmpeg === 'npm') && sileroAvailable(),
      ffmpeg,
      sileroVad: sileroAvailable(),
      ...engine.describe(),
      limits: { maxBytes: settings.maxBytes, maxSeconds: settings.maxSeconds, timeoutMs: settings.timeoutMs },
      requests: { ...service.counters },
    };
  });

  await app.register(asrRoutes, { prefix: '/hmi/asr', service, credentials: deps.credentials, maxBytes: settings.maxBytes });
}
