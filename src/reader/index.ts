import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { ServiceDeps } from '../platform/deps.js';
import { WorkerPool } from '../platform/pool/index.js';
import { loadReaderConfig, type ReaderConfig } from './config.js';
import { nativeTesseractAvailable } from './pipeline/ocr.js';
import { checkLineModel } from './pipeline/line-recogniser.js';
import { removeProcessScratchOnExit, removeThreadScratch } from './pipeline/tesseract-stream.js';
import { readerRoutes } from './routes.js';
import { FACE_PREFIX, ReaderService } from './service.js';
import type { ReaderResult, ReaderTask } from './tasks.js';
import { ReaderSettingsStore } from './store.js';

export type { ReaderService } from './service.js';
export type { ReadCard } from './pipeline/run.js';
export type { ReadPassport } from './documents/passport/passport.js';
export type { ReadLicence } from './documents/licence/licence.js';
export { LAYOUTS, type CardKind } from './layouts.js';
export { idrItem } from './documents/id-card/answer.js';
export { passportItem } from './documents/passport/passport.js';
export { licenceItem } from './documents/licence/licence.js';
export { qualityPassed, type QualityResult } from './quality-check.js';
export { checkingResult } from './fraud-check.js';
export { postCheck, parseDate, today, type PostCheckResult, type ReadSide } from './post-check.js';

/** Face crops of /cmt are kept this long, then swept. */
const FACE_RETENTION_MS = 24 * 3600_000;

/** The reader as one process holds it: its worker pool, settings and the service over them. */
export interface ProcessReader {
  service: ReaderService;
  config: ReaderConfig;
  settings: ReaderSettingsStore;
}

const processReaders = new WeakMap<ServiceDeps, ProcessReader>();

/**
 * The process's one reader (a worker pool with OpenCV and Tesseract), made by whichever service asks first:
 * the reader's own routes and the eKYC flow. Closed with the process's lifecycle.
 */
export function processReader(deps: ServiceDeps, log?: FastifyBaseLogger): ProcessReader {
  const found = processReaders.get(deps);
  if (found) return found;
  const config = loadReaderConfig();
  // Asked for by name, the program must be there: otherwise /readyz would name an engine that fails every read.
  if (config.ocrEngine === 'native' && !nativeTesseractAvailable()) {
    throw new Error('SAOLA_READER_OCR_ENGINE=native but the tesseract program (with its vie data) is not on the PATH');
  }
  const engine: 'native' | 'js' = config.ocrEngine === 'js' ? 'js' : config.ocrEngine === 'native' || nativeTesseractAvailable() ? 'native' : 'js';
  const pool = new WorkerPool<ReaderTask, ReaderResult>({
    filename: new URL('./worker.js', import.meta.url),
    name: 'reader',
    threads: config.threads ?? deps.config.poolThreads,
    maxQueue: deps.config.poolQueue,
    maxWaitMs: deps.config.poolMaxWaitMs,
    timeoutMs: deps.config.poolTaskTimeoutMs,
    // Tesseract's input images (card crops) of a thread the pool ended, and of the whole process at exit.
    onThreadEnd: removeThreadScratch,
  });
  removeProcessScratchOnExit();
  deps.lifecycle.onClose('reader pool', () => pool.close());
  const engineName = engine === 'native' ? 'tesseract (Debian program)' : 'tesseract.js (npm fallback)';
  log?.info({ service: 'reader', ocr: engineName }, 'reader OCR engine');
  // The name stage's network, checked once here (each worker thread checks it again when it loads it).
  const lineModel = config.lineRecogniser ? checkLineModel() : undefined;
  const names = !lineModel ? 'Tesseract alone (SAOLA_READER_LINE_RECOGNISER=false)' : lineModel.ok ? 'Tesseract and the line recogniser' : `Tesseract alone (line recogniser unusable: ${lineModel.why})`;
  if (lineModel && !lineModel.ok) log?.warn({ service: 'reader', why: lineModel.why }, 'reader line recogniser unusable: names read by Tesseract alone');
  deps.lifecycle.addReadiness('reader', () => ({
    ok: !pool.lastError,
    ocr: engineName,
    locate: 'opencv-js 4.12.0',
    names,
    ...pool.stats(),
    ...(pool.lastError ? { error: pool.lastError } : {}),
  }));
  // Per-application settings are read from the store on each answer that needs them (no cache),
  // so `saola reader features` from another process takes effect on the next request.
  const settings = new ReaderSettingsStore(deps.store.db);
  const made = { service: new ReaderService(pool, config, engine, deps.blobs, settings), config, settings };
  processReaders.set(deps, made);
  return made;
}

/** Composition root of the ID card reader: config, worker pool (OpenCV + Tesseract), routes. */
export async function registerReader(app: FastifyInstance, deps: ServiceDeps): Promise<void> {
  const { service, config, settings } = processReader(deps, app.log);
  const sweep = setInterval(() => {
    void deps.blobs.deleteOlderThan(FACE_PREFIX, new Date(Date.now() - FACE_RETENTION_MS)).catch(() => undefined);
  }, 3600_000);
  sweep.unref();
  deps.lifecycle.onClose('reader face sweep', () => clearInterval(sweep));
  // The same switch as `saola reader features`, offered to the console.
  deps.appSettings?.register({
    key: 'reader.features',
    label: 'ID card back: distinguishing features',
    description: 'Answer the distinguishing features read on ID card backs (only for applications with the separate arrangement); off: "N/A"',
    get: (appCode) => settings.featuresArranged(appCode),
    set: async (appCode, on) => void (await settings.setFeatures(appCode, on)),
  });
  await app.register(readerRoutes, { service, credentials: deps.credentials, blobs: deps.blobs, config, platform: deps.config });
}
