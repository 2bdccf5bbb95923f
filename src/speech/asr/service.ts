import { PlatformError, ServiceError } from '../../platform/http/errors.js';
import { PoolTimeoutError } from '../../platform/pool/index.js';
import { AudioDecodeError, type AudioDecoder } from './engine/decode.js';
import type { SpeechEngine } from './engine/index.js';
import { AsrErrors } from './errors.js';

export interface Recognition {
  status: 0;
  hypotheses: { utterance: string }[];
  id: string;
}

export interface AsrLimits {
  maxSeconds: number;
  timeoutMs: number;
  /** Requests recognised at once plus those allowed to wait; past that, "system busy". */
  maxInFlight: number;
}

class Canceled extends Error {}

/** Counters for /readyz and the logs. */
export interface AsrCounters {
  inFlight: number;
  recognized: number;
  noVoice: number;
  canceled: number;
  timedOut: number;
  busy: number;
}

/**
 * Speech to text: decode the upload, find the voice, recognise it stretch by
 * stretch and join the utterances. A request holds one slot from start to end;
 * when every slot is taken the answer is "system busy" at once.
 */
export class AsrService {
  readonly counters: AsrCounters = { inFlight: 0, recognized: 0, noVoice: 0, canceled: 0, timedOut: 0, busy: 0 };

  constructor(
    private readonly decoder: () => Promise<AudioDecoder>,
    private readonly engine: SpeechEngine,
    private readonly limits: AsrLimits,
  ) {}

  /** `signal` aborts when the client goes away. */
  async recognize(audio: Buffer | undefined, id: string, signal?: AbortSignal): Promise<Recognition> {
    const model = await this.engine.model();
    if (model.state === 'none') throw new ServiceError(AsrErrors.noModel);
    if (model.state === 'failed') throw new ServiceError(AsrErrors.modelFailed, `${AsrErrors.modelFailed.message}: ${model.error}`);
    if (!audio || audio.length === 0) throw new ServiceError(AsrErrors.emptyAudio);
    if (this.counters.inFlight >= this.limits.maxInFlight) {
      this.counters.busy++;
      throw new ServiceError(AsrErrors.busy);
    }

    this.counters.inFlight++;
    const timeLimit = new AbortController();
    const timer = setTimeout(() => timeLimit.abort(), this.limits.timeoutMs);
    const stop = signal ? AbortSignal.any([signal, timeLimit.signal]) : timeLimit.signal;
    try {
      const text = await this.run(audio, stop);
      if (!text) {
        this.counters.noVoice++;
        throw new ServiceError(AsrErrors.noVoice);
      }
      this.counters.recognized++;
      return { status: 0, hypotheses: [{ utterance: text }], id };
    } catch (err) {
      if (err instanceof ServiceError) throw err;
      if (timeLimit.signal.aborted || err instanceof PoolTimeoutError) {
        this.counters.timedOut++;
        throw new ServiceError(AsrErrors.timeLimit, `Recognition canceled: it took longer than ${this.limits.timeoutMs} ms`);
      }
      if (stop.aborted || err instanceof Canceled) {
        this.counters.canceled++;
        throw new ServiceError(AsrErrors.canceled);
      }
      if (err instanceof PlatformError && err.condition === 'busy') {
        this.counters.busy++;
        throw new ServiceError(AsrErrors.busy);
      }
      throw err;
    } finally {
      clearTimeout(timer);
      this.counters.inFlight--;
    }
  }

  /** The recognised text ('' when there is no voice), or Canceled once `stop` fires. */
  private async run(audio: Buffer, stop: AbortSignal): Promise<string> {
    const decoder = await this.decoder();
    const pcm = await this.until(stop, decoder.decode(audio, { maxSeconds: this.limits.maxSeconds, signal: stop })).catch((err) => {
      if (err instanceof AudioDecodeError) {
        const entry = err.reason === 'empty' ? AsrErrors.emptyAudio : err.reason === 'tooLong' ? AsrErrors.audioTooLong : AsrErrors.invalidAudio;
        throw new ServiceError(entry, err.message);
      }
      throw err;
    });
    const segments = await this.until(stop, this.engine.detectSpeech(pcm));
    if (segments.length === 0) return '';
    const parts: string[] = [];
    // One segment per pool task: other requests interleave, and a cancel stops between segments.
    for (const segment of segments) {
      const text = await this.until(stop, this.engine.transcribe(pcm, segment));
      const clean = text.replace(/\s+/g, ' ').trim();
      if (clean) parts.push(clean);
    }
    return parts.join(' ');
  }

  /** Waits for `work` unless `stop` fires first (the work finishes in the background and is dropped). */
  private until<T>(stop: AbortSignal, work: Promise<T>): Promise<T> {
    if (stop.aborted) {
      work.catch(() => undefined);
      return Promise.reject(new Canceled());
    }
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(new Canceled());
      stop.addEventListener('abort', onAbort, { once: true });
      work.then(
        (value) => {
          stop.removeEventListener('abort', onAbort);
          resolve(value);
        },
        (err) => {
          stop.removeEventListener('abort', onAbort);
          reject(err);
        },
      );
    });
  }
}
