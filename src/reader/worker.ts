/**
 * The reader's worker thread: OpenCV loads once per thread, the OCR engine is
 * made on the first task (the main thread decides native or js) and kept
 * (its Tesseract processes stay loaded), then every
 * task runs its document's pipeline; the answer is tagged with the document (tasks.ts).
 */
import { loadOpenCv } from '../platform/vision/card-outline.js';
import { JsTesseract, NativeTesseract, type OcrEngine } from './pipeline/ocr.js';
import { readCard } from './pipeline/run.js';
import type { ReaderResult, ReaderTask } from './tasks.js';
import { readPassport } from './documents/passport/passport.js';
import { readLicence } from './documents/licence/licence.js';
import { measureQualityTask } from './quality-check.js';
import { measureFraudTask } from './fraud-measures.js';

let ocr: OcrEngine | undefined;
void loadOpenCv();
// The long-lived Tesseract processes end with the thread: their stdin pipes close with it, also when the
// thread is terminated (no 'exit' event then), and Tesseract stops at the end of its list. The images
// handed to Tesseract are removed by close, or, for a terminated thread, by the pool's owner (reader/index.ts).
process.on('exit', () => void ocr?.close());

export default async function run(task: ReaderTask): Promise<ReaderResult> {
  ocr ??= task.engine === 'js' ? new JsTesseract() : new NativeTesseract();
  switch (task.document) {
    case 'passport':
      return { document: 'passport', result: await readPassport(task, ocr) };
    case 'licence':
      return { document: 'licence', result: await readLicence(task, ocr) };
    case 'quality':
      return { document: 'quality', result: await measureQualityTask(task) };
    case 'fraud':
      return { document: 'fraud', result: await measureFraudTask(task) };
    case 'idcard':
      return { document: 'idcard', result: await readCard(task, ocr) };
  }
}
