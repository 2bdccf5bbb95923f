/**
 * Accuracy and speed of speech to text on a folder of recordings.
 *
 *   npm run eval:asr -- --real <folder> [--model <folder>] [--limit N] [--json] [--verbose]
 *   npm run eval:asr -- --model <folder|tiny> --data <folder|synthetic> [--limit N] [--json]
 *
 * --real: the operator's recordings (wav, mp3, m4a, ...) with a `truth.jsonl`
 *   of `{"file": "<path under the folder>", "text": "<what is said>"}` lines.
 *   The model is --model, else SAOLA_ASR_MODEL, else the one installed with
 *   `saola models add asr` (under SAOLA_DATA_DIR): the one the server serves.
 * --model: a sherpa-onnx model folder (as `saola models add asr` takes), or
 *   `tiny` for the untrained test model (proves the pipeline, WER ~100%).
 * --data: a VIVOS-style folder (prompts.txt with "ID text" lines and
 *   waves/**\/ID.wav), or any folder of audio files each with a .txt of the
 *   same name holding the reference; `synthetic` (default) makes a small set
 *   with eSpeak NG.
 * Prints WER and CER per file and in total (after src/speech/score.ts's
 * normalisation), the real-time factor (processing time / audio time) and CPU
 * seconds per audio second, through the same decode -> VAD -> recognition path
 * (AsrService.recognize) as /hmi/asr/general.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../src/platform/config.js';
import { ServiceError } from '../../src/platform/http/errors.js';
import { loadAsrSettings, type AsrSettings } from '../../src/speech/asr/config.js';
import { FfmpegDecoder } from '../../src/speech/asr/engine/decode.js';
import { SherpaEngine } from '../../src/speech/asr/engine/index.js';
import { createAsrService } from '../../src/speech/asr/index.js';
import type { ModelSpec } from '../../src/speech/asr/model.js';
import { countErrors, editDistance, errorRate, normaliseForScoring } from '../../src/speech/score.js';
import { buildTinyTransducer } from '../../fixtures/speech/tiny-transducer.js';

const AUDIO = /\.(wav|mp3|m4a|aac|ogg|opus|webm|flac)$/i;

export interface Item {
  id: string;
  file: string;
  reference: string;
}

/** The scoring normalisation (src/speech/score.ts), under the name earlier callers use. */
export const normalise = normaliseForScoring;
export { editDistance };

/** `truth.jsonl` of a --real folder: one `{"file", "text"}` per line; a missing file or a bad line is an error. */
export function loadTruth(dir: string): Item[] {
  const truthFile = path.join(dir, 'truth.jsonl');
  if (!fs.existsSync(truthFile)) throw new Error(`${truthFile} does not exist: write one {"file": ..., "text": ...} line per recording`);
  const items: Item[] = [];
  const problems: string[] = [];
  fs.readFileSync(truthFile, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (!line.trim()) return;
      let entry: { file?: unknown; text?: unknown };
      try {
        entry = JSON.parse(line);
      } catch {
        problems.push(`line ${i + 1}: not JSON`);
        return;
      }
      if (typeof entry.file !== 'string' || typeof entry.text !== 'string') {
        problems.push(`line ${i + 1}: needs "file" and "text" strings`);
        return;
      }
      const file = path.resolve(dir, entry.file);
      if (!fs.existsSync(file)) problems.push(`line ${i + 1}: ${entry.file} does not exist`);
      else items.push({ id: entry.file, file, reference: entry.text });
    });
  if (problems.length > 0) throw new Error(`${truthFile}:\n  ${problems.join('\n  ')}`);
  return items;
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

/** CPU seconds of this process (all its threads) and of its finished children (ffmpeg). */
export function cpuSeconds(): number {
  const own = process.cpuUsage();
  let children = 0;
  try {
    // Fields 16 and 17 of /proc/self/stat: cutime and cstime, in clock ticks (100 per second on Linux).
    const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    children = (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    /* not Linux: children's CPU is not counted */
  }
  return (own.user + own.system) / 1e6 + children;
}

export interface FileScore {
  id: string;
  status: number;
  seconds: number;
  wordErrors: number;
  words: number;
  charErrors: number;
  chars: number;
  wer: number;
  cer: number;
  rtf: number;
  cpuPerSecond: number;
  reference: string;
  hypothesis: string;
}

export interface EvaluationTotals {
  model: string;
  kind: string;
  files: number;
  audioSeconds: number;
  wer: number;
  cer: number;
  rtf: number;
  cpuPerAudioSecond: number;
  noVoice: number;
}

/**
 * Recognises each recording through AsrService (decode, VAD, recognition in
 * the worker pool, as /hmi/asr/general) and scores it against its reference.
 * Answers undefined when the model does not load (the reason on stderr).
 */
export async function evaluateRecordings(
  settings: AsrSettings,
  items: readonly { id: string; reference: string; audio: () => Buffer }[],
): Promise<{ spec: ModelSpec; rows: FileScore[]; totals: EvaluationTotals } | undefined> {
  const engine = new SherpaEngine({ ...settings, queue: Math.max(settings.queue, items.length) });
  try {
    const state = await engine.model();
    if (state.state !== 'ready') {
      console.error(
        state.state === 'none'
          ? 'No recognition model: give --model, set SAOLA_ASR_MODEL or install one with saola models add asr'
          : `The model did not load: ${JSON.stringify(state)}`,
      );
      return undefined;
    }
    const decoder = FfmpegDecoder.locate(settings.ffmpeg);
    const service = createAsrService(settings, engine, () => decoder);
    // Warm up: each worker loads the model on its first task.
    if (items.length > 0) await service.recognize(items[0].audio(), 'warmup').catch(() => undefined);

    const rows: FileScore[] = [];
    for (const item of items) {
      const audio = item.audio();
      const { seconds } = await (await decoder).decode(audio, { maxSeconds: settings.maxSeconds });
      const cpu0 = cpuSeconds();
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
      const cpu = cpuSeconds() - cpu0;
      const counts = countErrors(item.reference, hypothesis);
      rows.push({
        id: item.id,
        status,
        seconds,
        ...counts,
        wer: errorRate(counts.wordErrors, counts.words),
        cer: errorRate(counts.charErrors, counts.chars),
        rtf: took / seconds,
        cpuPerSecond: cpu / seconds,
      });
    }
    const sum = (f: (r: FileScore) => number) => rows.reduce((n, r) => n + f(r), 0);
    const audioSeconds = sum((r) => r.seconds);
    const totals: EvaluationTotals = {
      model: state.spec.dir,
      kind: state.spec.kind,
      files: rows.length,
      audioSeconds: round(audioSeconds, 1),
      wer: round(
        errorRate(
          sum((r) => r.wordErrors),
          sum((r) => r.words),
        ),
        4,
      ),
      cer: round(
        errorRate(
          sum((r) => r.charErrors),
          sum((r) => r.chars),
        ),
        4,
      ),
      rtf: round(sum((r) => r.rtf * r.seconds) / audioSeconds, 4),
      cpuPerAudioSecond: round(sum((r) => r.cpuPerSecond * r.seconds) / audioSeconds, 4),
      noVoice: rows.filter((r) => r.status === 1).length,
    };
    return { spec: state.spec, rows, totals };
  } finally {
    await engine.close();
  }
}

function round(value: number, digits: number): number {
  return Number.isFinite(value) ? +value.toFixed(digits) : value;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      model: { type: 'string', default: process.env.SAOLA_ASR_MODEL },
      data: { type: 'string', default: 'synthetic' },
      real: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean', default: false },
      verbose: { type: 'boolean', default: false },
    },
  });
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-asr-eval-'));
  try {
    let modelDir = values.model;
    if (!modelDir && !values.real) {
      console.error('Give --model <folder> (a sherpa-onnx model) or --model tiny, or --real <folder> to use the installed model');
      return 2;
    }
    if (modelDir === 'tiny') {
      modelDir = path.join(scratch, 'tiny-model');
      buildTinyTransducer(modelDir);
    }
    let items: Item[];
    let dataLabel: string;
    if (values.real) {
      try {
        items = loadTruth(path.resolve(values.real));
      } catch (err) {
        console.error((err as Error).message);
        return 2;
      }
      dataLabel = path.resolve(values.real);
    } else {
      let dataDir = values.data!;
      if (dataDir === 'synthetic') {
        dataDir = path.join(scratch, 'data');
        makeSyntheticSet(dataDir, 16);
      }
      items = loadDataset(dataDir);
      dataLabel = values.data === 'synthetic' ? 'synthetic (eSpeak NG, 16 clips)' : dataDir;
    }
    if (values.limit) items = items.slice(0, Number(values.limit));
    if (items.length === 0) {
      console.error(`No audio with reference transcripts in ${dataLabel} (truth.jsonl for --real; prompts.txt or a .txt beside each audio file for --data)`);
      return 2;
    }

    // The server's own settings (SAOLA_ASR_*, SAOLA_DATA_DIR for the installed model), a model folder given here winning.
    const base = loadAsrSettings(loadConfig());
    const settings: AsrSettings = { ...base, modelDir: modelDir ? path.resolve(modelDir) : base.modelDir };
    const result = await evaluateRecordings(
      settings,
      items.map((item) => ({ id: item.id, reference: item.reference, audio: () => fs.readFileSync(item.file) })),
    );
    if (!result) return 1;
    const { rows, totals } = result;

    const perFile = rows.map((r) => ({
      file: r.id,
      status: r.status,
      'audio s': +r.seconds.toFixed(2),
      WER: +r.wer.toFixed(3),
      CER: +r.cer.toFixed(3),
      RTF: +r.rtf.toFixed(3),
      'CPU s/audio s': +r.cpuPerSecond.toFixed(3),
    }));
    const summary = {
      ...totals,
      data: dataLabel,
      goal: 'WER <= 0.10 on a VIVOS-like set, RTF <= 0.3 (2 cores)',
    };
    if (values.json) {
      console.log(JSON.stringify({ summary, rows }, null, 2));
      return 0;
    }
    if (values.real || values.verbose) console.table(perFile);
    if (values.verbose) for (const r of rows) console.log(`${r.id}\n  ref: ${r.reference}\n  hyp: ${r.hypothesis}`);
    console.table([summary]);
    return 0;
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('eval/speech/asr.ts')) {
  main().then(
    (code) => process.exit(code),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
