import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BenchRow } from './harness.js';
import { loadConfig } from '../src/platform/config.js';
import { loadAsrSettings } from '../src/speech/asr/config.js';
import { FfmpegDecoder } from '../src/speech/asr/engine/decode.js';
import { SherpaEngine } from '../src/speech/asr/engine/index.js';
import { buildTinyTransducer } from '../fixtures/speech/tiny-transducer.js';

/**
 * Speech to text stage by stage on this machine, with the tiny untrained
 * transducer (SAOLA_ASR_MODEL, when set, benchmarks that model instead):
 * decode, VAD and recognition of a 60 s recording, and HTTP round trips.
 */
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export default async function asrBench(): Promise<BenchRow[]> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-asr-bench-'));
  const rows: BenchRow[] = [];
  try {
    const modelDir = process.env.SAOLA_ASR_MODEL ?? path.join(scratch, 'tiny');
    if (!process.env.SAOLA_ASR_MODEL) buildTinyTransducer(modelDir);
    const modelName = process.env.SAOLA_ASR_MODEL ? path.basename(modelDir) : 'tiny untrained transducer';

    const sentence = path.join(scratch, 'sentence.wav');
    execFileSync('espeak-ng', ['-v', 'vi', '-w', sentence, 'Xin chào, hôm nay trời đẹp quá. Tôi muốn đặt một vé máy bay đi Hà Nội vào sáng mai.']);
    const minute = path.join(scratch, 'minute.mp3');
    execFileSync('ffmpeg', ['-loglevel', 'error', '-y', '-stream_loop', '20', '-i', sentence, '-af', 'apad=pad_dur=1', '-t', '60', '-ar', '16000', '-ac', '1', minute]);
    const audio = fs.readFileSync(minute);

    const config = loadConfig({ SAOLA_DATA_DIR: scratch });
    const settings = { ...loadAsrSettings(config), modelDir, threads: 1 };
    const engine = new SherpaEngine(settings);
    await engine.model();
    for (const source of ['native', 'npm'] as const) {
      const decoder = await FfmpegDecoder.locate(source);
      const times: number[] = [];
      for (let i = 0; i < 3; i++) {
        const t = performance.now();
        await decoder.decode(audio, { maxSeconds: 600 });
        times.push(performance.now() - t);
      }
      rows.push({ benchmark: `decode 60 s mp3 (${source} ffmpeg)`, metric: 'median', value: median(times), unit: 'ms' });
    }
    const pcm = await (await FfmpegDecoder.locate('auto')).decode(audio, { maxSeconds: 600 });
    await engine.detectSpeech(pcm); // loads the worker and the VAD
    const vadTimes: number[] = [];
    let segments = await engine.detectSpeech(pcm);
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      segments = await engine.detectSpeech(pcm);
      vadTimes.push(performance.now() - t);
    }
    rows.push({ benchmark: 'Silero VAD over 60 s (1 thread)', metric: 'median', value: median(vadTimes), unit: 'ms', note: `${segments.length} segments` });
    await engine.transcribe(pcm, segments[0]);
    const t = performance.now();
    for (const s of segments) await engine.transcribe(pcm, s);
    const recog = performance.now() - t;
    rows.push({
      benchmark: `recognition of 60 s (${modelName})`,
      metric: 'time per audio second',
      value: recog / pcm.seconds,
      unit: 'ms/s',
      goal: '<= 300 (RTF 0.3) with a real model',
      note: `RTF ${(recog / 1000 / pcm.seconds).toFixed(4)}`,
    });
    await engine.close();

    // The whole endpoint over HTTP.
    const { startTestApp } = await import('../fixtures/servers/app.js');
    process.env.SAOLA_ASR_MODEL = modelDir;
    const app = await startTestApp();
    try {
      const clip = fs.readFileSync(sentence);
      const post = () => fetch(`${app.url}/hmi/asr/general`, { method: 'POST', headers: { api_key: app.apiKey }, body: new Uint8Array(clip) }).then((r) => r.json());
      await post();
      const times: number[] = [];
      for (let i = 0; i < 10; i++) {
        const s = performance.now();
        await post();
        times.push(performance.now() - s);
      }
      rows.push({
        benchmark: `POST /hmi/asr/general, ${(clip.length / 44100).toFixed(1)} s wav`,
        metric: 'median latency',
        value: median(times),
        unit: 'ms',
        note: modelName,
      });
      const s = performance.now();
      await Promise.all(Array.from({ length: 8 }, post));
      rows.push({ benchmark: 'POST /hmi/asr/general, 8 concurrent', metric: 'throughput', value: 8 / ((performance.now() - s) / 1000), unit: 'req/s' });
    } finally {
      await app.close();
    }
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  return rows;
}
