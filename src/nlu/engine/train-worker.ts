/**
 * The training worker thread: trains one model per task off the event loop
 * and answers the model document as JSON text (one string crosses the thread
 * boundary instead of a large object graph). A task may carry a message port:
 * the training's progress is posted there, once per percent at most. A report task (`crossValidate`) answers
 * the k-fold report of its training set, as JSON text too.
 */
import type { MessagePort } from 'node:worker_threads';
import { trainModel, type TrainProgress, type TrainRequest } from './model.js';
import { crossValidate } from './report.js';

export interface TrainTask extends TrainRequest {
  progress?: MessagePort;
  /** The cross-validated report of the request instead of a model. */
  crossValidate?: boolean;
}

export default async function trainWorker(task: TrainTask): Promise<string> {
  const { progress: port, crossValidate: wantReport, ...request } = task;
  if (wantReport) return JSON.stringify(crossValidate(request));
  let last = -1;
  const report = port
    ? (p: TrainProgress) => {
        const pct = Math.floor(p.fraction * 100);
        if (pct === last) return;
        last = pct;
        port.postMessage(p);
      }
    : undefined;
  try {
    return JSON.stringify(trainModel(request, report));
  } finally {
    port?.close();
  }
}
