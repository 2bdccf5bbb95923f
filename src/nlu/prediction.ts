import type { Static } from 'typebox';
import { ServiceError } from '../platform/http/errors.js';
import type { HistoryPage, PredictAnswer } from './api-schemas.js';
import { NluErrors } from './errors.js';
import type { InboxService } from './inbox.js';
import type { ServedModels } from './model-cache.js';
import type { HistoryRow, ModelStore } from './model-store.js';
import { now, type TrainPart } from './training.js';

const MAX_PREDICT_CHARS = 2_000;

const PREDICT_MESSAGE: Record<TrainPart, string> = {
  all: 'Predict All successful',
  intent: 'Predict Intents successful',
  entity: 'Recognize Entities successful',
};

type PredictAnswerData = Static<typeof PredictAnswer>['data'];

/** Predictions with the newest model of an application, above its threshold, and their history when asked. */
export class PredictionService {
  constructor(
    private readonly models: ModelStore,
    private readonly served: ServedModels,
    /** Saves predictions asked to be saved: masked per the application's settings, unsure ones into the inbox. */
    private readonly history: Pick<InboxService, 'savePrediction'>,
  ) {}

  async predict(app: string, input: { content: string; save_history?: boolean }, part: TrainPart): Promise<Static<typeof PredictAnswer>> {
    const content = input.content;
    if (!content.trim()) throw new ServiceError(NluErrors.emptyContent, 'content must not be empty');
    if (content.length > MAX_PREDICT_CHARS && Array.from(content).length > MAX_PREDICT_CHARS) {
      throw new ServiceError(NluErrors.invalidRequest, `content is limited to ${MAX_PREDICT_CHARS} characters`);
    }
    const served = this.served.serve(app);
    const { model, threshold } = served instanceof Promise ? await served : served;
    if (!model) throw new ServiceError(NluErrors.noModel);
    const data: PredictAnswerData = { history_id: 0 };
    const predicted = this.served.predictor.predict(model, content, Date.now(), { intent: part !== 'entity', entity: part !== 'intent' });
    const found = predicted instanceof Promise ? await predicted : predicted;
    if (found.intents) data.intents = found.intents.filter((i) => i.confidence >= threshold);
    if (found.entities) data.entities = found.entities;
    if (input.save_history) {
      // The inbox judges the intents as ranked before the threshold cut.
      data.history_id = await this.history.savePrediction(app, content, data, found.intents, threshold);
    }
    return { status: { code: 200, message: PREDICT_MESSAGE[part], module: '', api_code: 0, err_code: 0 }, data };
  }

  threshold(app: string): Promise<number> {
    return this.served.threshold(app);
  }

  async setThreshold(app: string, threshold: number): Promise<{ threshold: number }> {
    if (!Number.isFinite(threshold) || threshold < 0 || threshold > 1) {
      throw new ServiceError(NluErrors.invalidThreshold, `threshold must be a number from 0 to 1, got ${threshold}`);
    }
    await this.models.setThreshold(app, threshold, now());
    this.served.forget(app);
    return { threshold };
  }
}

type HistoryItem = Static<typeof HistoryPage>['items'][number];

/** The history of an application's predictions (those asked to be saved). */
export class HistoryService {
  constructor(private readonly models: ModelStore) {}

  async listHistory(app: string, page: { limit?: number; offset?: number }): Promise<{ total: number; items: HistoryItem[] }> {
    const [total, rows] = await Promise.all([this.models.countHistory(app), this.models.listHistory(app, { limit: page.limit ?? 100, offset: page.offset ?? 0 })]);
    return { total, items: rows.map(toHistoryItem) };
  }

  async deleteHistory(app: string, id?: number): Promise<number> {
    const deleted = await this.models.deleteHistory(app, id);
    if (id !== undefined && deleted === 0) throw new ServiceError(NluErrors.historyNotFound, `No history entry ${id}`);
    return deleted;
  }
}

function toHistoryItem(row: HistoryRow): HistoryItem {
  const answer = JSON.parse(row.answer) as { intents: unknown; entities: unknown };
  return { history_id: Number(row.id), content: row.content, intents: answer.intents, entities: answer.entities, created_time: row.created_time };
}
