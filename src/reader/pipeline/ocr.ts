/**
 * Stage 5 engine: Tesseract 5. The Debian `tesseract` program when it is on the
 * PATH: long-lived processes fed image paths (tesseract-stream.ts), or, where
 * `stdbuf` is missing, one child process per call (image on stdin, TSV on
 * stdout); OMP_THREAD_LIMIT=1 either way. Otherwise tesseract.js with @tesseract.js-data/vie, behind the same
 * interface. SAOLA_READER_OCR_ENGINE=js forces the fallback.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import sharp from 'sharp';
import { stdbufAvailable, tesseractOptions, TesseractStreams } from './tesseract-stream.js';

export interface OcrWord {
  text: string;
  /** 0-100 */
  conf: number;
  left: number;
  top: number;
  width: number;
  height: number;
  /** Block/paragraph/line key: words with the same key are on one text line. */
  line: string;
}

export interface OcrOptions {
  lang: 'vie' | 'eng';
  /** Tesseract page segmentation mode: 6 (a block of lines), 7 (one line), 11 (sparse). */
  psm: number;
  /** Only these characters (MRZ: A-Z 0-9 <). */
  whitelist?: string;
}

export interface OcrEngine {
  readonly name: 'tesseract' | 'tesseract.js';
  /** Reads a PNG (8-bit gray or RGB) or a binary PGM (`grayPgm`). */
  recognize(image: Buffer, options: OcrOptions): Promise<OcrWord[]>;
  /** Ids of the long-lived OCR processes it runs now (CPU accounting in the evaluation). */
  pids?(): number[];
  close(): Promise<void>;
}

const TIMEOUT_MS = 20_000;

/**
 * 8-bit gray pixels as a binary PGM (P5), the image format the reader's stacks are handed to OCR in: Tesseract
 * (Leptonica) reads it as it is, where a PNG cost it a fifth of its CPU in zlib, libpng and an RGB-to-gray pass
 * (sharp writes a one-channel image as RGB) and cost the reader its encoding.
 */
export function grayPgm(pixels: Uint8Array, width: number, height: number): Buffer {
  if (pixels.length !== width * height) throw new Error(`PGM: ${pixels.length} pixels for ${width} x ${height}`);
  return Buffer.concat([Buffer.from(`P5\n${width} ${height}\n255\n`, 'latin1'), pixels]);
}

/** The size and pixels of a binary PGM written by `grayPgm`; undefined for any other image. */
export function readPgm(image: Buffer): { width: number; height: number; pixels: Buffer } | undefined {
  const m = /^P5\n(\d+) (\d+)\n255\n/.exec(image.subarray(0, 32).toString('latin1'));
  if (!m) return undefined;
  const width = Number(m[1]);
  const height = Number(m[2]);
  const pixels = image.subarray(m[0].length);
  return pixels.length === width * height ? { width, height, pixels } : undefined;
}

export function parseTsv(tsv: string): OcrWord[] {
  const words: OcrWord[] = [];
  for (const row of tsv.split('\n').slice(1)) {
    const c = row.split('\t');
    if (c.length < 12 || c[0] !== '5') continue;
    const text = c.slice(11).join('\t').trim();
    if (!text) continue;
    words.push({
      text,
      conf: Math.max(0, Number(c[10])),
      left: Number(c[6]),
      top: Number(c[7]),
      width: Number(c[8]),
      height: Number(c[9]),
      line: `${c[2]}.${c[3]}.${c[4]}`,
    });
  }
  return words;
}

let streamingSupported: boolean | undefined;

export class NativeTesseract implements OcrEngine {
  readonly name = 'tesseract' as const;
  private readonly streams: TesseractStreams | undefined;
  private readonly tessdataDir?: string;

  /** `streaming: false` runs one process per call (the mode used where `stdbuf` is missing). */
  constructor(options: { streaming?: boolean; tessdataDir?: string } = {}) {
    const streaming = options.streaming ?? (streamingSupported ??= stdbufAvailable());
    this.streams = streaming ? new TesseractStreams(TIMEOUT_MS) : undefined;
    this.tessdataDir = options.tessdataDir;
  }

  async recognize(image: Buffer, options: OcrOptions): Promise<OcrWord[]> {
    if (this.streams) return parseTsv(await this.streams.recognize(image, { ...options, tessdataDir: options.lang === 'vie' ? this.tessdataDir : undefined }));
    return this.recognizeOnce(image, options);
  }

  pids(): number[] {
    return this.streams?.pids() ?? [];
  }

  private recognizeOnce(image: Buffer, options: OcrOptions): Promise<OcrWord[]> {
    const args = ['stdin', 'stdout', ...tesseractOptions(options), 'tsv'];
    return new Promise((resolve, reject) => {
      const child = spawn('tesseract', args, { env: { ...process.env, OMP_THREAD_LIMIT: '1' }, stdio: ['pipe', 'pipe', 'pipe'] });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS);
      child.stdout.on('data', (d: Buffer) => out.push(d));
      child.stderr.on('data', (d: Buffer) => err.push(d));
      child.on('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        if (code !== 0) reject(new Error(`tesseract exited with ${code}: ${Buffer.concat(err).toString().slice(0, 300)}`));
        else resolve(parseTsv(Buffer.concat(out).toString('utf8')));
      });
      child.stdin.on('error', () => undefined);
      child.stdin.end(image);
    });
  }

  async close(): Promise<void> {
    this.streams?.close();
  }
}

type TjsWorker = {
  setParameters(p: Record<string, string>): Promise<unknown>;
  recognize(image: Buffer, opts?: unknown, output?: unknown): Promise<{ data: { tsv?: string | null } }>;
  terminate(): Promise<unknown>;
};

export class JsTesseract implements OcrEngine {
  readonly name = 'tesseract.js' as const;
  private workers = new Map<string, Promise<TjsWorker>>();

  private worker(lang: 'vie' | 'eng'): Promise<TjsWorker> {
    let w = this.workers.get(lang);
    if (!w) {
      w = (async () => {
        const require = createRequire(import.meta.url);
        const { createWorker } = (await import('tesseract.js')) as unknown as { createWorker: (...a: unknown[]) => Promise<TjsWorker> };
        // Vietnamese ships in @tesseract.js-data/vie; English is read from the same folder layout of @tesseract.js-data/eng when installed.
        const data = require(`@tesseract.js-data/${lang}`) as { langPath: string; gzip: boolean };
        return createWorker(lang, 1, { langPath: data.langPath, gzip: data.gzip, cacheMethod: 'none' });
      })();
      this.workers.set(lang, w);
    }
    return w;
  }

  async recognize(image: Buffer, options: OcrOptions): Promise<OcrWord[]> {
    // English data may not be installed for the fallback: read the MRZ with vie and the whitelist.
    let lang = options.lang;
    if (lang === 'eng') {
      try {
        createRequire(import.meta.url).resolve('@tesseract.js-data/eng');
      } catch {
        lang = 'vie';
      }
    }
    const worker = await this.worker(lang);
    await worker.setParameters({
      tessedit_pageseg_mode: String(options.psm),
      tessedit_char_whitelist: options.whitelist ?? '',
      user_defined_dpi: '300',
      // As the native program (tesseract-stream.ts): the images are black text on white, never inverted.
      tessedit_do_invert: '0',
    });
    // tesseract.js is given a PNG, as it always was (its Leptonica build is not relied on for PGM).
    const pgm = readPgm(image);
    const png = pgm
      ? await sharp(pgm.pixels, { raw: { width: pgm.width, height: pgm.height, channels: 1 } })
          .png({ compressionLevel: 1 })
          .toBuffer()
      : image;
    const result = await worker.recognize(png, {}, { tsv: true, text: false, blocks: false });
    return parseTsv(result.data.tsv ?? '');
  }

  async close(): Promise<void> {
    for (const w of this.workers.values()) await (await w).terminate();
    this.workers.clear();
  }
}

export function nativeTesseractAvailable(): boolean {
  try {
    const langs = execFileSync('tesseract', ['--list-langs'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 5000 });
    return /\bvie\b/.test(langs);
  } catch {
    return false;
  }
}

export function chooseOcrEngine(setting: 'auto' | 'native' | 'js'): OcrEngine {
  if (setting === 'js') return new JsTesseract();
  if (setting === 'native' || nativeTesseractAvailable()) return new NativeTesseract();
  return new JsTesseract();
}
