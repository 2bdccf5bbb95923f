/**
 * `npm run eval:tts`: what the text-to-speech engine is worth here.
 *   1. Tone check per voice: the tone each syllable's diacritic implies versus
 *      the tone digit in the engine's phoneme output (goal 100%).
 *   2. Audio duration per speed (-3..3): must grow as speed falls.
 *   3. Request-to-ready over HTTP for 500 and 5000 characters (goals <= 0.5 s and <= 3 s).
 * Prints a table.
 *
 * `npm run eval:tts -- --asr [--model DIR] [--sentences N] [--json]`: an
 * intelligibility check instead. Each speaker (and each Ace variant with a
 * model of its own) reads the sentences with the engine the server would use
 * (eSpeak NG, or the operator's installed VITS model), the installed
 * recognition model (or --model, or SAOLA_ASR_MODEL) recognises the audio
 * through AsrService, and word and character error rates are printed per voice.
 * Only with a recognition model: without one it says so and exits 2.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { printTable, type BenchRow } from '../../bench/harness.js';
import { evaluateRecordings } from './asr.js';
import { loadConfig } from '../../src/platform/config.js';
import { loadAsrSettings } from '../../src/speech/asr/config.js';
import { resolveConfiguredModel } from '../../src/speech/asr/model.js';
import { pcmToWav } from '../../src/speech/tts/engine/encode.js';
import { ttsModelsDir } from '../../src/speech/tts/models.js';
import { startTestApp } from '../../fixtures/servers/app.js';
import { loadTtsConfig } from '../../src/speech/tts/config.js';
import { openTtsEngines } from '../../src/speech/tts/index.js';
import { normaliseText } from '../../src/speech/tts/engine/normalise.js';
import { synthesiseText, type SpeechEngine } from '../../src/speech/tts/engine/synthesise.js';
import { ACE_VOICES, SPEAKERS, VOICE_INFO, wordsPerMinute, type AceVoice, type Voice } from '../../src/speech/tts/voices.js';

/** Sentences covering the six tones on open, nasal and stop-final syllables. */
const SENTENCES = [
  'Ma mà má mả mã mạ.',
  'Hôm nay trời đẹp quá, chúng tôi đi dạo ở công viên.',
  'Bạn có khỏe không? Tôi vẫn khỏe, cảm ơn bạn nhiều.',
  'Những ngày mưa bão kéo dài khiến người dân lo lắng.',
  'Học sinh được nghỉ hè sau kỳ thi cuối năm.',
  'Cô ấy đã mua một chiếc áo mới ở chợ Bến Thành.',
  'Đường phố Hà Nội rất đông đúc vào giờ tan tầm.',
  'Chúng ta cần bảo vệ môi trường sống cho thế hệ sau.',
  'Giá xăng dầu tăng mạnh trong tháng vừa qua.',
  'Anh ấy thích đọc sách và nghe nhạc vào buổi tối.',
  'Trường đại học tổ chức lễ tốt nghiệp cho sinh viên.',
  'Mẹ tôi nấu phở bò rất ngon mỗi sáng chủ nhật.',
  'Bác sĩ khuyên nên uống đủ nước và ngủ sớm.',
  'Những cánh đồng lúa chín vàng trải dài tới chân núi.',
  'Ngân hàng sẽ mở cửa lúc tám giờ sáng ngày mai.',
  'Tôi muốn đặt vé máy bay đi Đà Nẵng vào cuối tuần.',
  'Hãy giữ gìn sức khỏe và rửa tay thường xuyên.',
  'Chiếc xe đạp cũ vẫn chạy tốt sau nhiều năm.',
  'Em bé ngủ ngon trong vòng tay của mẹ.',
  'Gió lạnh thổi qua những mái nhà phủ đầy rêu.',
];

const TONE_OF_MARK: Record<string, number> = { '\u0300': 2, '\u0301': 3, '\u0309': 4, '\u0303': 5, '\u0323': 6 };

/** The tone a written syllable carries: 1 ngang, 2 huyền, 3 sắc, 4 hỏi, 5 ngã, 6 nặng. */
function writtenTone(syllable: string): number {
  for (const ch of syllable.normalize('NFD')) if (TONE_OF_MARK[ch]) return TONE_OF_MARK[ch];
  return 1;
}

/**
 * Tones in eSpeak's phoneme mnemonics: each syllable starts at a stress mark
 * (' or ,) and carries a digit 1-7 after its vowel (7 is the clause-final
 * level tone; the WASM build leaves level tones without a digit).
 */
function phonemeTones(phonemes: string): number[] {
  const tones: number[] = [];
  for (const word of phonemes.split(/\s+/)) {
    const segments = word.split(/['，,]/).slice(1);
    for (const seg of segments) {
      const digit = /[1-7]/.exec(seg)?.[0];
      const tone = digit === undefined ? 1 : Number(digit);
      tones.push(tone === 7 ? 1 : tone);
    }
  }
  return tones;
}

/** Matches of the best alignment (edit distance) of expected and produced tone sequences. */
function alignedMatches(expected: number[], produced: number[]): number {
  const n = expected.length;
  const m = produced.length;
  // dp over (cost, matches): minimise edits, then maximise matches.
  const cost: number[][] = Array.from({ length: n + 1 }, (_, i) => Array.from({ length: m + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  const hits: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = 1; i <= n; i++) {
    for (let j = 1; j <= m; j++) {
      const same = expected[i - 1] === produced[j - 1];
      const options: Array<[number, number]> = [
        [cost[i - 1][j - 1] + (same ? 0 : 1), hits[i - 1][j - 1] + (same ? 1 : 0)],
        [cost[i - 1][j] + 1, hits[i - 1][j]],
        [cost[i][j - 1] + 1, hits[i][j - 1]],
      ];
      options.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
      [cost[i][j], hits[i][j]] = options[0];
    }
  }
  return hits[n][m];
}

async function toneCheck(engine: SpeechEngine, label: string): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const voice of SPEAKERS) {
    let expectedTotal = 0;
    let matched = 0;
    const byTone = new Map<number, { n: number; ok: number }>();
    for (const sentence of SENTENCES) {
      const text = normaliseText(sentence);
      const expected = text
        .split(/[^\p{L}]+/u)
        .filter(Boolean)
        .map(writtenTone);
      const produced = phonemeTones(await engine.phonemes(text, VOICE_INFO[voice]));
      expectedTotal += expected.length;
      matched += alignedMatches(expected, produced);
      // Per-tone view where the counts line up one to one.
      if (produced.length === expected.length) {
        expected.forEach((tone, i) => {
          const entry = byTone.get(tone) ?? { n: 0, ok: 0 };
          entry.n++;
          if (produced[i] === tone) entry.ok++;
          byTone.set(tone, entry);
        });
      }
    }
    const weak = [...byTone.entries()]
      .filter(([, v]) => v.ok < v.n)
      .map(([tone, v]) => `tone ${tone}: ${v.ok}/${v.n}`)
      .join(', ');
    rows.push({
      benchmark: `tone check ${voice} (${VOICE_INFO[voice].espeak}, ${label})`,
      metric: 'syllables with the written tone',
      value: (100 * matched) / expectedTotal,
      unit: '%',
      goal: '100',
      note: `${matched}/${expectedTotal}${weak ? `; ${weak}` : ''}`,
    });
  }
  return rows;
}

async function durationPerSpeed(engine: SpeechEngine): Promise<BenchRow[]> {
  const text = SENTENCES.slice(1, 6).join(' ');
  const rows: BenchRow[] = [];
  let previous = Infinity;
  for (let speed = -3; speed <= 3; speed++) {
    const pcm = await synthesiseText(engine, text, VOICE_INFO.banmai, wordsPerMinute(speed));
    const seconds = pcm.samples.length / pcm.sampleRate;
    rows.push({
      benchmark: `duration at speed ${speed >= 0 ? '+' : ''}${speed} (${wordsPerMinute(speed)} wpm)`,
      metric: `audio of ${[...text].length} characters`,
      value: seconds,
      unit: 's',
      goal: 'shorter than the slower speed',
      note: seconds < previous ? 'monotonic' : 'NOT monotonic',
    });
    previous = seconds;
  }
  return rows;
}

function textOf(chars: number): string {
  let text = '';
  for (let i = 0; text.length < chars; i++) text += `${SENTENCES[i % SENTENCES.length]} `;
  return text.slice(0, chars).trim();
}

async function requestToReady(): Promise<BenchRow[]> {
  const app = await startTestApp();
  const rows: BenchRow[] = [];
  try {
    for (const [chars, goal] of [
      [500, 0.5],
      [5000, 3],
    ] as const) {
      for (const format of ['mp3', 'wav'] as const) {
        const times: number[] = [];
        for (let run = 0; run < 3; run++) {
          const text = textOf(chars);
          const start = performance.now();
          const res = await fetch(`${app.url}/hmi/tts/v5`, { method: 'POST', headers: { api_key: app.apiKey, format }, body: text });
          const { async: link } = (await res.json()) as { async: string };
          for (;;) {
            const got = await fetch(link, { method: 'HEAD' });
            if (got.status === 200) break;
            await new Promise((r) => setTimeout(r, 10));
          }
          times.push((performance.now() - start) / 1000);
        }
        times.sort((a, b) => a - b);
        rows.push({
          benchmark: `request to ready, ${chars} characters, ${format}`,
          metric: 'median of 3 (POST until the link answers 200)',
          value: times[1],
          unit: 's',
          goal: `<= ${goal}`,
          note: `min ${times[0].toFixed(2)} max ${times[2].toFixed(2)}`,
        });
      }
    }
  } finally {
    await app.close();
  }
  return rows;
}

/**
 * The intelligibility check: each voice reads SENTENCES, the recogniser hears
 * them. Answers an exit code (2: no recognition model).
 */
async function intelligibility(opts: { model?: string; sentences: number; json: boolean }): Promise<number> {
  const config = loadConfig();
  const base = loadAsrSettings(config);
  const settings = { ...base, modelDir: opts.model ? path.resolve(opts.model) : base.modelDir };
  if (!resolveConfiguredModel(settings.modelDir, settings.modelsDir)) {
    console.error('eval:tts --asr needs a recognition model: install one (saola models add asr FOLDER), set SAOLA_ASR_MODEL or give --model FOLDER');
    return 2;
  }
  const silent = {
    info() {},
    error(o: object, m: string) {
      console.error(m, o);
    },
  };
  const engines = await openTtsEngines(loadTtsConfig(), { threads: 2, maxQueue: 256 }, { dir: ttsModelsDir(config.dataDir), log: silent });
  try {
    await engines.voices.whenReady();
    const mapped = engines.voices.describe().neural;
    // Every speaker; an Ace variant only when a model of its own makes it sound different from its speaker.
    const voices: Voice[] = [...SPEAKERS, ...(Object.keys(ACE_VOICES) as AceVoice[]).filter((v) => mapped[v]?.state === 'ready')];
    const sentences = SENTENCES.slice(0, opts.sentences);
    const items: { id: string; reference: string; audio: () => Buffer }[] = [];
    const engineOf = new Map<Voice, string>();
    for (const voice of voices) {
      const engine = await engines.voices.engineFor(VOICE_INFO[voice]);
      engineOf.set(voice, engine.name);
      for (const [i, sentence] of sentences.entries()) {
        const wav = pcmToWav(await synthesiseText(engine, sentence, VOICE_INFO[voice], wordsPerMinute(0), { parallel: 2 }));
        items.push({ id: `${voice}/${i}`, reference: sentence, audio: () => wav });
      }
    }
    const result = await evaluateRecordings(settings, items);
    if (!result) return 1;
    const rows: BenchRow[] = [];
    const perVoice: Record<string, { wer: number; cer: number; engine: string }> = {};
    for (const voice of voices) {
      const mine = result.rows.filter((r) => r.id.startsWith(`${voice}/`));
      const sum = (f: (r: (typeof mine)[number]) => number) => mine.reduce((n, r) => n + f(r), 0);
      const wer =
        sum((r) => r.wordErrors) /
        Math.max(
          1,
          sum((r) => r.words),
        );
      const cer =
        sum((r) => r.charErrors) /
        Math.max(
          1,
          sum((r) => r.chars),
        );
      perVoice[voice] = { wer, cer, engine: engineOf.get(voice)! };
      rows.push({
        benchmark: `intelligibility ${voice}`,
        metric: `WER over ${mine.length} sentences (CER in the note)`,
        value: 100 * wer,
        unit: '%',
        goal: 'lower is better; compare voices and engines',
        note: `CER ${(100 * cer).toFixed(1)}%; ${engineOf.get(voice)}; no voice found in ${mine.filter((r) => r.status === 1).length}`,
      });
    }
    rows.push({
      benchmark: 'intelligibility, all voices',
      metric: `WER, recogniser ${result.totals.kind} ${result.totals.model}`,
      value: 100 * result.totals.wer,
      unit: '%',
      note: `CER ${(100 * result.totals.cer).toFixed(1)}%; ${result.totals.audioSeconds} s of audio`,
    });
    if (opts.json)
      console.log(JSON.stringify({ recogniser: { model: result.totals.model, kind: result.totals.kind }, voices: perVoice, totals: result.totals }, null, 2));
    else printTable(rows);
    return 0;
  } finally {
    await engines.close();
  }
}

const { values: args } = parseArgs({
  options: {
    asr: { type: 'boolean', default: false },
    model: { type: 'string' },
    sentences: { type: 'string', default: String(SENTENCES.length) },
    json: { type: 'boolean', default: false },
  },
});
if (args.asr) {
  const sentences = Math.max(1, Math.min(SENTENCES.length, Number(args.sentences) || SENTENCES.length));
  process.exit(await intelligibility({ model: args.model, sentences, json: args.json }));
}

const rows: BenchRow[] = [];
const native = await openTtsEngines({ ...loadTtsConfig({}), engine: 'native', encoder: 'ffmpeg' }, { threads: 1, maxQueue: 4 });
rows.push(...(await toneCheck(native.engine, 'native')));
rows.push(...(await durationPerSpeed(native.engine)));
const wasm = await openTtsEngines({ ...loadTtsConfig({}), engine: 'wasm', encoder: 'lame' }, { threads: 1, maxQueue: 4 });
try {
  rows.push(...(await toneCheck(wasm.engine, 'wasm')));
} catch (err) {
  rows.push({ benchmark: 'tone check (wasm)', metric: 'error', value: NaN, unit: '', note: (err as Error).message });
} finally {
  await wasm.close();
}
rows.push(...(await requestToReady()));
printTable(rows);
