/**
 * The reader's worker thread: OpenCV loads once per thread, the OCR engine is
 * made on the first task (the main thread decides native or js) and kept
 * (its Tesseract processes stay loaded), then every
 * task runs the card pipeline.
 */
import { loadOpenCv } from '../platform/vision/card-outline.js';
import { JsTesseract, NativeTesseract, type OcrEngine } from './pipeline/ocr.js';
import { readCard, type ReadResult } from './pipeline/run.js';
import type { ReaderTask } from './service.js';
import { readPassport } from './passport.js';
import { readLicence } from './licence.js';
import { measureQualityTask } from './quality-check.js';
import { measureFraudTask } from './fraud-measures.js';

let ocr: OcrEngine | undefined;
void loadOpenCv();
// The long-lived Tesseract processes end with the thread: their stdin pipes close with it, also when the
// thread is terminated (no 'exit' event then), and Tesseract stops at the end of its list. The images
// handed to Tesseract are removed by close, or, for a terminated thread, by the pool's owner (reader/index.ts).
process.on('exit', () => void ocr?.close());

export default async function run(task: ReaderTask): Promise<ReadResult> {
  ocr ??= task.engine === 'js' ? new JsTesseract() : new NativeTesseract();
  // The passport's answer travels through the same pool (ReaderService.readPassport reads it as such).
  if (task.document === 'passport') return readPassport(task, ocr) as unknown as ReadResult;
  if (task.document === 'licence') return readLicence(task, ocr) as unknown as ReadResult;
  if (task.document === 'quality') return measureQualityTask(task) as unknown as ReadResult;
  if (task.document === 'fraud') return measureFraudTask(task) as unknown as ReadResult;
  return readCard(task, ocr);
}
