import { WorkerPool } from '../../../platform/pool/index.js';
import type { AsrSettings } from '../config.js';
import type { Pcm } from './decode.js';
import { detectModel, probeModel, resolveConfiguredModel, type ModelSpec, type RecognizerOptions } from '../model.js';
import type { Segment, VadOptions } from './vad.js';
import type { AsrTask, AsrTaskResult } from './worker.js';

export type ModelState =
  { state: 'none' } | { state: 'loading'; dir: string } | { state: 'ready'; spec: ModelSpec; loadMs?: number } | { state: 'failed'; dir: string; error: string };

/** What the service needs from a recogniser: find voice, turn a stretch of it into text. */
export interface SpeechEngine {
  /** Resolves once the configured model has been checked (at once when there is none). */
  model(): Promise<ModelState>;
  detectSpeech(pcm: Pcm): Promise<Segment[]>;
  transcribe(pcm: Pcm, segment: Segment): Promise<string>;
  describe(): Record<string, unknown>;
  close(): Promise<void>;
}

/**
 * sherpa-onnx in a pool of worker threads: Silero VAD and the offline
 * recogniser, each thread loading them once. The pool is only started when
 * the first request needs it, so a server without a model costs nothing.
 */
export class SherpaEngine implements SpeechEngine {
  private pool: WorkerPool<AsrTask, AsrTaskResult> | undefined;
  private state: ModelState = { state: 'none' };
  private readonly ready: Promise<ModelState>;
  private readonly vad: VadOptions;
  private readonly options: RecognizerOptions;

  constructor(
    private readonly settings: AsrSettings,
    private readonly log: { info(o: object, m: string): void; error(o: object, m: string): void } = { info() {}, error() {} },
  ) {
    this.vad = { threshold: settings.vadThreshold, maxSegmentSeconds: settings.maxSegmentSeconds };
    this.options = { numThreads: settings.engineThreads, decodingMethod: settings.decodingMethod, language: settings.language };
    this.ready = this.load();
  }

  private async load(): Promise<ModelState> {
    let dir: string | undefined;
    try {
      dir = resolveConfiguredModel(this.settings.modelDir, this.settings.modelsDir);
      if (!dir) {
        this.log.info({}, 'asr: no recognition model installed; /hmi/asr/general answers status 9 until one is');
        return (this.state = { state: 'none' });
      }
      this.state = { state: 'loading', dir };
      const spec = detectModel(dir);
      const probe = this.settings.probeModel ? await probeModel(spec, this.options) : undefined;
      this.log.info({ kind: spec.kind, dir: spec.dir, loadMs: probe?.loadMs }, 'asr: recognition model ready');
      return (this.state = { state: 'ready', spec, loadMs: probe?.loadMs });
    } catch (err) {
      const error = (err as Error).message;
      this.log.error({ err: error }, 'asr: recognition model failed to load');
      return (this.state = { state: 'failed', dir: dir ?? '', error });
    }
  }

  model(): Promise<ModelState> {
    return this.ready;
  }

  private workers(): WorkerPool<AsrTask, AsrTaskResult> {
    this.pool ??= new WorkerPool<AsrTask, AsrTaskResult>({
      // Under tsx (tests) this module is the .ts source and piscina's loader cannot map .js to it.
      filename: new URL('./worker.js', import.meta.url),
      name: 'speech recognition',
      threads: this.settings.threads,
      maxQueue: this.settings.queue,
      // A safety net only: the service cancels requests at its own time limit and stops feeding the pool.
      timeoutMs: this.settings.timeoutMs + 60_000,
    });
    return this.pool;
  }

  async detectSpeech(pcm: Pcm): Promise<Segment[]> {
    const result = await this.workers().run({ op: 'detect', samples: pcm.samples, vad: this.vad });
    return result.op === 'detect' ? result.segments : [];
  }

  async transcribe(pcm: Pcm, segment: Segment): Promise<string> {
    if (this.state.state !== 'ready') throw new Error('No recognition model is ready');
    const result = await this.workers().run({ op: 'recognize', samples: pcm.samples, segment, model: this.state.spec, options: this.options });
    return result.op === 'recognize' ? result.text : '';
  }

  describe(): Record<string, unknown> {
    const s = this.state;
    return {
      runtime: 'sherpa-onnx-node',
      vad: 'silero (sherpa-onnx)',
      model: s.state === 'ready' ? { state: 'ready', kind: s.spec.kind, dir: s.spec.dir } : s.state === 'none' ? { state: 'none' } : { ...s },
      pool: this.pool?.stats() ?? null,
    };
  }

  async close(): Promise<void> {
    await this.ready.catch(() => undefined);
    await this.pool?.close();
  }
}
