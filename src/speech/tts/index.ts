import type { FastifyInstance } from 'fastify';
import type { ServiceDeps } from '../../platform/deps.js';
import { WorkerPool } from '../../platform/pool/index.js';
import { loadTtsConfig, type TtsConfig } from './config.js';
import { FfmpegMp3Encoder, LameMp3Encoder, type Mp3Encoder } from './engine/encode.js';
import { startTtsWorkers } from './jobs.js';
import { ttsModelsDir } from './models.js';
import { VoiceEngines } from './engine/neural.js';
import { ttsRoutes } from './routes.js';
import { CALLBACK_QUEUE, SYNTHESIS_QUEUE, TtsService } from './service.js';
import { TtsStore } from './store.js';
import { NativeEspeakEngine, WasmEspeakEngine, onPath, type SpeechEngine } from './engine/synthesise.js';
import type { WorkerResult, WorkerTask } from './engine/worker.js';

export interface TtsEngines {
  /** eSpeak NG, for every voice without an installed model. */
  engine: SpeechEngine;
  /** Every voice's engine: the operator's installed models where mapped, else `engine`. */
  voices: VoiceEngines;
  encoder: Mp3Encoder;
  /** Closes the worker pool, if the WASM engine, lamejs or a voice model started one. */
  close(): Promise<void>;
}

/**
 * Native where present, npm always: the espeak-ng and ffmpeg programs when on
 * the PATH (or forced by SAOLA_TTS_ENGINE / SAOLA_TTS_ENCODER), else the WASM
 * eSpeak NG and lamejs in worker threads.
 */
export async function openTtsEngines(
  tts: TtsConfig,
  pool: { threads: number; maxQueue: number },
  models: { dir?: string; log?: { info(o: object, m: string): void; error(o: object, m: string): void } } = {},
): Promise<TtsEngines> {
  let workerPool: WorkerPool<WorkerTask, WorkerResult> | undefined;
  const getPool = () =>
    (workerPool ??= new WorkerPool<WorkerTask, WorkerResult>({
      // The pool finds worker.ts under tsx and worker.js once compiled.
      filename: new URL('./engine/worker.js', import.meta.url),
      name: 'tts',
      threads: pool.threads,
      maxQueue: pool.maxQueue,
      timeoutMs: tts.synthesisTimeoutMs,
    }));
  let engine: SpeechEngine | undefined;
  if (tts.engine !== 'wasm') engine = await NativeEspeakEngine.detect();
  if (!engine && tts.engine === 'native') throw new Error('SAOLA_TTS_ENGINE=native but the espeak-ng program is not on the PATH');
  engine ??= new WasmEspeakEngine(getPool());
  let encoder: Mp3Encoder | undefined;
  if (tts.encoder !== 'lame' && onPath('ffmpeg')) encoder = new FfmpegMp3Encoder();
  if (!encoder && tts.encoder === 'ffmpeg') throw new Error('SAOLA_TTS_ENCODER=ffmpeg but the ffmpeg program is not on the PATH');
  encoder ??= new LameMp3Encoder(getPool());
  const log = models.log ?? { info() {}, error() {} };
  const voices = models.dir ? VoiceEngines.open(engine, models.dir, getPool, log) : new VoiceEngines(engine, {}, '', getPool, log);
  return {
    engine,
    voices,
    encoder,
    close: async () => {
      await voices.whenReady();
      await workerPool?.close();
    },
  };
}

/** Composition root of the text-to-speech service: POST /hmi/tts/v5, its status, its links and its jobs. */
export async function registerTts(app: FastifyInstance, deps: ServiceDeps): Promise<void> {
  const tts = loadTtsConfig();
  const log = app.log.child({ service: 'tts' });
  const engines = await openTtsEngines(
    tts,
    { threads: Math.min(2, deps.config.poolThreads), maxQueue: deps.config.poolQueue },
    { dir: ttsModelsDir(deps.config.dataDir), log },
  );
  deps.lifecycle.onClose('tts-pool', () => engines.close());
  const store = new TtsStore(deps.store);
  const service = new TtsService(store, deps.jobs, deps.config, tts, log);
  log.info({ engine: engines.engine.name, encoder: engines.encoder.name, workers: deps.config.runWorkers }, 'tts engine ready');

  deps.lifecycle.addReadiness('tts', async () => ({
    ok: true,
    engine: engines.engine.name,
    engineKind: engines.engine.kind,
    encoder: engines.encoder.name,
    ...engines.voices.describe(),
    queue: await deps.jobs.counts(SYNTHESIS_QUEUE),
    callbacks: await deps.jobs.counts(CALLBACK_QUEUE),
  }));

  if (deps.config.runWorkers) {
    const workers = startTtsWorkers({
      store,
      jobs: deps.jobs,
      blobs: deps.blobs,
      engine: engines.engine,
      voices: engines.voices,
      encoder: engines.encoder,
      config: tts,
      log,
    });
    deps.lifecycle.onClose('tts-workers', () => workers.stop());
  }
  await app.register(ttsRoutes, { prefix: '/hmi/tts/v5', service, credentials: deps.credentials, blobs: deps.blobs });
}
