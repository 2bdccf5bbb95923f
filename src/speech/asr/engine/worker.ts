import { createRequire } from 'node:module';
import { recognizerConfig, sherpaModulePath, type ModelSpec, type RecognizerOptions } from '../model.js';
import { VoiceDetector, type Segment, type VadOptions } from './vad.js';

/**
 * The speech worker thread: finds voice and recognises it. The model and the
 * detector are loaded once per thread and kept; audio arrives in shared memory.
 */
export type AsrTask =
  { op: 'detect'; samples: Float32Array; vad: VadOptions } | { op: 'recognize'; samples: Float32Array; segment: Segment; model: ModelSpec; options: RecognizerOptions };

export type AsrTaskResult = { op: 'detect'; segments: Segment[] } | { op: 'recognize'; text: string };

interface SherpaStream {
  acceptWaveform(wave: { samples: Float32Array; sampleRate: number }): void;
}
interface SherpaRecognizer {
  createStream(): SherpaStream;
  decode(stream: SherpaStream): void;
  getResult(stream: SherpaStream): { text: string };
}

const sherpa = createRequire(import.meta.url)(sherpaModulePath()) as {
  OfflineRecognizer: new (config: Record<string, unknown>) => SherpaRecognizer;
  Vad: ConstructorParameters<typeof VoiceDetector>[0];
};

let detector: { key: string; value: VoiceDetector } | undefined;
let recognizer: { key: string; value: SherpaRecognizer } | undefined;

function detectorFor(options: VadOptions, samples: number): VoiceDetector {
  const key = JSON.stringify(options);
  const seconds = Math.ceil(samples / 16_000) + 1;
  if (detector?.key !== key || detector.value.bufferSeconds < seconds) {
    // Grown in steps of a minute, so a worker rebuilds it only a few times.
    detector = { key, value: new VoiceDetector(sherpa.Vad, options, Math.max(60, Math.ceil(seconds / 60) * 60)) };
  }
  return detector.value;
}

function recognizerFor(model: ModelSpec, options: RecognizerOptions): SherpaRecognizer {
  const config = recognizerConfig(model, options);
  const key = JSON.stringify(config);
  if (recognizer?.key !== key) recognizer = { key, value: new sherpa.OfflineRecognizer(config) };
  return recognizer.value;
}

export default async function asrWorker(task: AsrTask): Promise<AsrTaskResult> {
  if (task.op === 'detect') return { op: 'detect', segments: detectorFor(task.vad, task.samples.length).detect(task.samples) };
  const engine = recognizerFor(task.model, task.options);
  const stream = engine.createStream();
  // slice() copies out of shared memory into a buffer the native side may keep.
  stream.acceptWaveform({ samples: task.samples.slice(task.segment.start, task.segment.end), sampleRate: 16_000 });
  engine.decode(stream);
  return { op: 'recognize', text: engine.getResult(stream).text };
}
