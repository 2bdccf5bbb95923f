import { booleanSetting, choiceSetting, integerSetting, numberSetting, type Env } from '../platform/settings.js';

/** The reader service's own settings, read from SAOLA_READER_* variables (documented in docs/reader.md). */
export interface ReaderConfig {
  /** Largest image accepted, bytes (the spec: 5 MB). Larger answers 413. */
  maxImageBytes: number;
  /** Largest decoded image, pixels (decompression bombs). */
  maxPixels: number;
  /** OCR engine: `auto` uses the Debian `tesseract` program when on PATH, else tesseract.js. */
  ocrEngine: 'auto' | 'native' | 'js';
  /** Let image_url reach loopback/private addresses (tests, trusted intranets). Default false. */
  allowPrivateUrls: boolean;
  /** image_url fetch timeout, ms. */
  fetchTimeoutMs: number;
  /** Worker threads for the reader pipeline (default: the platform's pool size). */
  threads?: number;
  /** Minimum card area as a fraction of the image before it counts as "not found" (code 3). */
  minCardArea: number;
  /** Enlargement of the field line crops before OCR (1 = card pixels; 1.4 reads accents better for ~10% more CPU). */
  fieldScale: number;
  /** Run the project's line recogniser (models/line-recogniser) on ID-card names, unconfirmed ids and dates, unplaced places; false: not at all. */
  lineRecogniser: boolean;
}

export function loadReaderConfig(env: Env = process.env): ReaderConfig {
  const threads = integerSetting(env, 'SAOLA_READER_THREADS', 0, 0, 64);
  return {
    maxImageBytes: integerSetting(env, 'SAOLA_READER_MAX_IMAGE_BYTES', 5 * 1024 * 1024, 1024, 100 * 1024 * 1024),
    maxPixels: integerSetting(env, 'SAOLA_READER_MAX_PIXELS', 40_000_000, 100_000, 500_000_000),
    ocrEngine: choiceSetting(env, 'SAOLA_READER_OCR_ENGINE', 'auto', ['auto', 'native', 'js'] as const),
    allowPrivateUrls: booleanSetting(env, 'SAOLA_READER_ALLOW_PRIVATE_URLS', false),
    fetchTimeoutMs: integerSetting(env, 'SAOLA_READER_FETCH_TIMEOUT_MS', 10_000, 100, 120_000),
    threads: threads === 0 ? undefined : threads,
    minCardArea: integerSetting(env, 'SAOLA_READER_MIN_CARD_AREA_PERCENT', 12, 1, 90) / 100,
    fieldScale: numberSetting(env, 'SAOLA_READER_FIELD_SCALE', 1.4, 0.5, 3, { integer: false }),
    lineRecogniser: booleanSetting(env, 'SAOLA_READER_LINE_RECOGNISER', true),
  };
}
