/**
 * Accuracy and speed of speech to text on a folder of recordings.
 *
 *   npm run eval:asr -- --model <folder|tiny> --data <folder|synthetic> [--limit N] [--json]
 *
 * --model: a sherpa-onnx model folder (as `saola models add asr` takes), or
 *   `tiny` for the untrained test model (proves the pipeline, WER ~100%).
 *   Defaults to SAOLA_ASR_MODEL.
 * --data: a VIVOS-style folder (prompts.txt with "ID text" lines and
 *   waves/**\/ID.wav), or any folder of audio files each with a .txt of the
 *   same name holding the reference; `synthetic` (default) makes a small set
 *   with eSpeak NG.
 * Prints WER, CER and the real-time factor (processing time / audio time)
 * through the same decode -> VAD -> recognition path as /hmi/asr/general.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/platform/config.js';
import { ServiceError } from '../src/platform/http/errors.js';
import { loadAsrSettings } from '../src/speech/asr/config.js';
import { FfmpegDecoder } from '../src/speech/asr/decode.js';
import { SherpaEngine } from '../src/speech/asr/engine.js';
import { createAsrService } from '../src/speech/asr/index.js';
import { buildTinyTransducer } from '../test/support/speech/asr/tiny-transducer.js';

const AUDIO = /\.(wav|mp3|m4a|aac|ogg|opus|webm|flac)$/i;

export interface Item {
  id: string;
  file: string;
  reference: string;
}

/** Lower case, NFC, no punctuation, single spaces: how VIVOS-style references are scored. */
export function normalise(text: string): string {
  return text
    .normalize('NFC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Edit distance between two sequences. */
export function editDistance<T>(a: T[], b: T[]): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length];
}

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

export function loadDataset(dir: string): Item[] {
  const prompts = ['prompts.txt', 'PROMPTS.txt'].map((f) => path.join(dir, f)).find((f) => fs.existsSync(f));
  const files = walk(dir).filter((f) => AUDIO.test(f));
  if (prompts) {
    const refs = new Map<string, string>();
    for (const line of fs.readFileSync(prompts, 'utf8').split('\n')) {
      const m = /^(\S+)\s+(.*)$/.exec(line.trim());
      if (m) refs.set(m[1], m[2]);
    }
    return files
      .map((file) => ({ id: path.basename(file).replace(AUDIO, ''), file }))
      .filter((x) => refs.has(x.id))
      .map((x) => ({ ...x, reference: refs.get(x.id)! }));
  }
  return files
    .map((file) => ({ id: path.relative(dir, file), file, txt: file.replace(AUDIO, '.txt') }))
    .filter((x) => fs.existsSync(x.txt))
    .map((x) => ({ id: x.id, file: x.file, reference: fs.readFileSync(x.txt, 'utf8').trim() }));
}

const SENTENCES = [
  'xin chào các bạn hôm nay trời rất đẹp',
  'tôi muốn đặt một vé máy bay đi hà nội',
  'cảm ơn bạn rất nhiều hẹn gặp lại ngày mai',
  'một hai ba bốn năm sáu bảy tám chín mười',
  'chúng tôi làm việc ở thành phố hồ chí minh',
  'bạn có thể nói chậm hơn một chút được không',
  'ngân hàng mở cửa lúc tám giờ sáng',
  'số điện thoại của tôi là không chín một hai',
];
const VOICES = ['vi', 'vi+f3', 'vi-vn-x-south', 'vi+f1'];

/** A small eSpeak NG set: each sentence in a few voices, wav plus reference text. */
export function makeSyntheticSet(dir: string, count = SENTENCES.length): void {
  fs.mkdirSync(dir, { recursive: true });
  for (let i = 0; i < count; i++) {
    const text = SENTENCES[i % SENTENCES.length];
    const voice = VOICES[i % VOICES.length];
    const base = path.join(dir, `synthetic-${String(i).padStart(3, '0')}`);
    execFileSync('espeak-ng', ['-v', voice, '-w', `${base}.wav`, text]);
    fs.writeFileSync(`${base}.txt`, text + '\n');
  }
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      model: { type: 'string', default: process.env.SAOLA_ASR_MODEL },
      data: { type: 'string', default: 'synthetic' },
      limit: { type: 'string' },
      json: { type: 'boolean', default: false },
      verbose: { type: 'boolean', default: false },
    },
  });
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-asr-eval-'));
  try {
    let modelDir = values.model;
    if (!modelDir) {
      console.error('Give --model <folder> (a sherpa-onnx model) or --model tiny');
      return 2;
    }
    if (modelDir === 'tiny') {
      modelDir = path.join(scratch, 'tiny-model');
      buildTinyTransducer(modelDir);
    }
    let dataDir = values.data!;
    if (dataDir === 'synthetic') {
      dataDir = path.join(scratch, 'data');
      makeSyntheticSet(dataDir, 16);
    }
    let items = loadDataset(dataDir);
    if (values.limit) items = items.slice(0, Number(values.limit));
    if (items.length === 0) {
      console.error(`No audio with reference transcripts in ${dataDir} (prompts.txt, or a .txt beside each audio file)`);
      return 2;
    }

    const config = loadConfig({ SAOLA_DATA_DIR: scratch });
    const settings = { ...loadAsrSettings(config), modelDir: path.resolve(modelDir), queue: items.length };
    const engine = new SherpaEngine(settings);
    const state = await engine.model();
    if (state.state !== 'ready') {
      console.error(`The model did not load: ${JSON.stringify(state)}`);
      await engine.close();
      return 1;
    }
    const decoder = FfmpegDecoder.locate(settings.ffmpeg);
    const service = createAsrService(settings, engine, () => decoder);
    // Warm up: the worker loads the model on its first task.
    await service.recognize(fs.readFileSync(items[0].file), 'warmup').catch(() => undefined);

    let wordErrors = 0;
    let words = 0;
    let charErrors = 0;
    let chars = 0;
    let audioSeconds = 0;
    let processSeconds = 0;
    const rows: { id: string; reference: string; hypothesis: string; status: number; seconds: number; rtf: number }[] = [];
    for (const item of items) {
      const audio = fs.readFileSync(item.file);
      const pcm = await (await decoder).decode(audio, { maxSeconds: settings.maxSeconds });
      const started = performance.now();
      let hypothesis = '';
      let status = 0;
      try {
        hypothesis = (await service.recognize(audio, item.id)).hypotheses[0].utterance;
      } catch (err) {
        if (!(err instanceof ServiceError)) throw err;
        status = Number(err.entry.code);
      }
      const took = (performance.now() - started) / 1000;
      const ref = normalise(item.reference);
      const hyp = normalise(hypothesis);
      const refWords = ref.split(' ').filter(Boolean);
      wordErrors += editDistance(refWords, hyp.split(' ').filter(Boolean));
      words += refWords.length;
      const refChars = [...ref.replace(/ /g, '')];
      charErrors += editDistance(refChars, [...hyp.replace(/ /g, '')]);
      chars += refChars.length;
      audioSeconds += pcm.seconds;
      processSeconds += took;
      rows.push({ id: item.id, reference: ref, hypothesis: hyp, status, seconds: pcm.seconds, rtf: took / pcm.seconds });
    }
    await engine.close();

    const summary = {
      model: state.spec.dir,
      kind: state.spec.kind,
      data: values.data === 'synthetic' ? 'synthetic (eSpeak NG, 16 clips)' : dataDir,
      files: items.length,
      audioSeconds: +audioSeconds.toFixed(1),
      wer: +(wordErrors / Math.max(1, words)).toFixed(4),
      cer: +(charErrors / Math.max(1, chars)).toFixed(4),
      rtf: +(processSeconds / audioSeconds).toFixed(4),
      noVoice: rows.filter((r) => r.status === 1).length,
      goal: 'WER <= 0.10 on a VIVOS-like set, RTF <= 0.3 (2 cores)',
    };
    if (values.verbose) for (const r of rows) console.log(`${r.id}\tstatus ${r.status}\trtf ${r.rtf.toFixed(3)}\n  ref: ${r.reference}\n  hyp: ${r.hypothesis}`);
    if (values.json) console.log(JSON.stringify({ summary, rows }, null, 2));
    else console.table([summary]);
    return 0;
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('asr-eval.ts')) {
  main().then(
    (code) => process.exit(code),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
