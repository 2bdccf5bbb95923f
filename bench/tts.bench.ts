import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { BenchRow } from './harness.js';
import { loadTtsConfig } from '../src/speech/tts/config.js';
import { pcmToWav } from '../src/speech/tts/engine/encode.js';
import { openTtsEngines } from '../src/speech/tts/index.js';
import { synthesiseText } from '../src/speech/tts/engine/synthesise.js';
import { VOICE_INFO } from '../src/speech/tts/voices.js';

const SENTENCE = 'Hôm nay, ngày 15/8/2024, ủy ban nhân dân thành phố đã tổ chức hội nghị tổng kết công tác quý hai với nhiều đại biểu. ';

/** Engine and encoder time per text length (native programs), the parts of request-to-ready. */
export default async function ttsBench(): Promise<BenchRow[]> {
  const { engine, encoder } = await openTtsEngines(loadTtsConfig({}), { threads: 1, maxQueue: 4 });
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'saola-tts-bench-'));
  const rows: BenchRow[] = [];
  try {
    for (const chars of [500, 5000]) {
      const text = SENTENCE.repeat(Math.ceil(chars / SENTENCE.length)).slice(0, chars);
      const t0 = performance.now();
      const pcm = await synthesiseText(engine, text, VOICE_INFO.banmai, 175, { parallel: 2 });
      const t1 = performance.now();
      const wav = path.join(dir, 'a.wav');
      await fs.writeFile(wav, pcmToWav(pcm));
      await encoder.encode(wav, path.join(dir, 'a.mp3'), { kbps: 48 });
      const t2 = performance.now();
      const audio = pcm.samples.length / pcm.sampleRate;
      rows.push({
        benchmark: `tts synthesis ${chars} chars (${engine.name})`,
        metric: 'time',
        value: t1 - t0,
        unit: 'ms',
        note: `${audio.toFixed(1)} s of audio, ${pcm.parts} parts`,
      });
      rows.push({ benchmark: `tts mp3 encode ${chars} chars (${encoder.name})`, metric: 'time', value: t2 - t1, unit: 'ms' });
    }
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
  return rows;
}
