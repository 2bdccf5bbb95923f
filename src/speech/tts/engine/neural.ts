import path from 'node:path';
import type { WorkerPool } from '../../../platform/pool/index.js';
import type { Pcm } from './encode.js';
import { detectVitsModel, offlineTtsConfig, probeVitsModel, readVoiceMap, sherpaSpeed, type VitsModelSpec, type VoiceMap } from '../models.js';
import type { SpeechEngine } from './synthesise.js';
import { ALL_VOICES, VOICE_INFO, type Voice, type VoiceInfo } from '../voices.js';
import type { WorkerResult, WorkerTask } from './worker.js';

/**
 * One speaker of an installed VITS model, run by sherpa-onnx in the TTS worker
 * pool (each thread loads a model once, on first use). The API speed becomes
 * the model's length scale (models.ts, sherpaSpeed).
 */
export class NeuralVoiceEngine implements SpeechEngine {
  readonly kind = 'neural';
  readonly name: string;
  private readonly config: Record<string, unknown>;

  constructor(
    private readonly pool: WorkerPool<WorkerTask, WorkerResult>,
    readonly model: string,
    private readonly spec: VitsModelSpec,
    readonly speaker: number,
  ) {
    this.name = `sherpa-onnx VITS ${model} speaker ${speaker}`;
    this.config = offlineTtsConfig(spec);
  }

  async synthesise(text: string, _voice: VoiceInfo, wpm: number, signal?: AbortSignal): Promise<Pcm> {
    // MMS-style character models know lower-case letters only, and sherpa-onnx lower-cases ASCII alone.
    const task: WorkerTask = {
      op: 'neural',
      key: this.spec.dir,
      config: this.config,
      text: text.toLowerCase(),
      sid: this.speaker,
      speed: sherpaSpeed(wpm, this.spec.lengthScale),
    };
    const result = await this.pool.run(task, { signal });
    if (result.op !== 'synthesise') throw new Error('unexpected worker answer');
    return { samples: result.samples, sampleRate: result.sampleRate };
  }

  async phonemes(): Promise<string> {
    return '';
  }
}

/** How one mapped voice stands: the engine it will use and why. */
export interface NeuralVoiceStatus {
  model: string;
  speaker: number;
  state: 'loading' | 'ready' | 'failed';
  error?: string;
}

interface Logger {
  info(o: object, m: string): void;
  error(o: object, m: string): void;
}

/**
 * Which engine speaks each voice: the operator's installed model where
 * voices.json maps one (to the voice's own name, or for an Ace variant to its
 * speaker's name), eSpeak NG otherwise. Each model is loaded and tried once in
 * a child process first (sherpa-onnx ends its process on a broken model); a
 * model that fails there leaves its voices on eSpeak NG and says why in /readyz.
 */
export class VoiceEngines {
  private readonly engines = new Map<Voice, SpeechEngine>();
  private readonly status = new Map<Voice, NeuralVoiceStatus>();
  private readonly ready: Promise<void>;

  constructor(
    readonly fallback: SpeechEngine,
    map: VoiceMap,
    private readonly modelsDir: string,
    private readonly pool: () => WorkerPool<WorkerTask, WorkerResult>,
    private readonly log: Logger,
    private readonly probe = true,
  ) {
    for (const [voice, mapping] of Object.entries(map) as [Voice, { model: string; speaker: number }][]) {
      this.status.set(voice, { model: mapping.model, speaker: mapping.speaker, state: 'loading' });
    }
    this.ready = this.load();
  }

  /** Reads voices.json of the models folder (none: every voice on eSpeak NG). */
  static open(fallback: SpeechEngine, modelsDir: string, pool: () => WorkerPool<WorkerTask, WorkerResult>, log: Logger, probe = true): VoiceEngines {
    let map: VoiceMap = {};
    try {
      map = readVoiceMap(modelsDir);
    } catch (err) {
      log.error({ err: (err as Error).message }, 'tts: the voice map is unreadable; every voice uses eSpeak NG');
    }
    return new VoiceEngines(fallback, map, modelsDir, pool, log, probe);
  }

  private async load(): Promise<void> {
    const byModel = new Map<string, Voice[]>();
    for (const [voice, s] of this.status) byModel.set(s.model, [...(byModel.get(s.model) ?? []), voice]);
    for (const [model, voices] of byModel) {
      const fail = (error: string) => {
        for (const v of voices) this.status.set(v, { ...this.status.get(v)!, state: 'failed', error });
        this.log.error({ model, voices, err: error }, 'tts: voice model failed to load; its voices use eSpeak NG');
      };
      let spec: VitsModelSpec;
      try {
        spec = detectVitsModel(path.join(this.modelsDir, model));
        if (this.probe)
          await probeVitsModel(
            spec,
            voices.map((v) => this.status.get(v)!.speaker),
          );
      } catch (err) {
        fail((err as Error).message);
        continue;
      }
      for (const v of voices) {
        const s = this.status.get(v)!;
        this.engines.set(v, new NeuralVoiceEngine(this.pool(), model, spec, s.speaker));
        this.status.set(v, { ...s, state: 'ready' });
      }
      this.log.info({ model, voices }, 'tts: voice model ready');
    }
  }

  /** Resolves once every mapped model has been checked (at once when none is mapped). */
  whenReady(): Promise<void> {
    return this.ready;
  }

  /** The engine of a voice: its own model, else its speaker's (an Ace variant), else eSpeak NG. */
  async engineFor(voice: VoiceInfo): Promise<SpeechEngine> {
    if (this.status.size === 0) return this.fallback;
    await this.ready;
    return this.engines.get(voice.name) ?? this.engines.get(voice.speaker) ?? this.fallback;
  }

  /** For /readyz: every voice's engine by name, and the state of each mapped voice. */
  describe(): { voices: Record<string, string>; neural: Record<string, NeuralVoiceStatus> } {
    const voices: Record<string, string> = {};
    for (const v of ALL_VOICES) {
      const engine = this.engines.get(v) ?? this.engines.get(VOICE_INFO[v].speaker);
      const loading = [this.status.get(v), this.status.get(VOICE_INFO[v].speaker)].find((s) => s?.state === 'loading');
      voices[v] = engine?.name ?? (loading ? `${this.fallback.name} (model ${loading.model} loading)` : this.fallback.name);
    }
    return { voices, neural: Object.fromEntries(this.status) };
  }
}
