/**
 * What the reader's worker threads are asked (one task per endpoint's image
 * work) and what they answer, as discriminated unions on `document`: the
 * worker dispatches on the task's document and tags its answer with it, so
 * the service reads each answer as its own type without casts.
 */
import type { ReadResult, ReadTask } from './pipeline/run.js';
import type { PassportResult } from './documents/passport/passport.js';
import type { LicenceResult } from './documents/licence/licence.js';
import type { QualityOutcome, QualityTask } from './quality-check.js';
import type { FraudMeasureOutcome } from './fraud-measures.js';

/** The OCR engine the main thread chose for the workers. */
export type OcrEngineName = 'native' | 'js';

export type ReaderTask = { engine: OcrEngineName } & (
  | (ReadTask & { document: 'idcard' | 'passport' | 'licence' })
  | (QualityTask & { document: 'quality' | 'fraud' })
);

export type ReaderResult =
  | { document: 'idcard'; result: ReadResult }
  | { document: 'passport'; result: PassportResult }
  | { document: 'licence'; result: LicenceResult }
  | { document: 'quality'; result: QualityOutcome }
  | { document: 'fraud'; result: FraudMeasureOutcome };

/** A worker that answered another document than its task's is a bug, not a bad photo. */
export function wrongAnswer(task: ReaderTask, answer: ReaderResult): Error {
  return new Error(`The reader worker answered a ${answer.document} task for a ${task.document} task`);
}
