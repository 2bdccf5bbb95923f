/**
 * The training worker thread: trains one model per task off the event loop
 * and answers the model document as JSON text (one string crosses the thread
 * boundary instead of a large object graph).
 */
import { trainModel, type TrainRequest } from './model.js';

export default async function trainWorker(request: TrainRequest): Promise<string> {
  return JSON.stringify(trainModel(request));
}
