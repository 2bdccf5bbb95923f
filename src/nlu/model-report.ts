import type { Static } from 'typebox';
import { ServiceError } from '../platform/http/errors.js';
import type { ModelReport, ReportComparison } from './api-schemas.js';
import type { ModelReport as ReportData } from './engine/report.js';
import { NluErrors } from './errors.js';
import type { ModelStore } from './model-store.js';

type Report = Static<typeof ModelReport>;

const EMPTY: ReportData = {
  folds: 0,
  samples: 0,
  intents: { accuracy: 0, macro_f1: 0, per_intent: [] },
  confusions: [],
  entities: { micro: { precision: 0, recall: 0, f1: 0, support: 0 }, per_label: [] },
  confused_samples: [],
};

const round = (n: number) => Math.round(n * 1e4) / 1e4;
const change = (from: number, to: number) => ({ from, to, change: round(to - from) });

/** F1 per name in either list, the largest change first. */
function f1Changes<K extends string>(key: K, from: ({ f1: number } & Record<K, string>)[], to: ({ f1: number } & Record<K, string>)[]) {
  const before = new Map(from.map((r) => [r[key], r.f1]));
  const after = new Map(to.map((r) => [r[key], r.f1]));
  return [...new Set([...before.keys(), ...after.keys()])]
    .map((name) => ({ [key]: name, ...change(before.get(name) ?? 0, after.get(name) ?? 0) }) as { from: number; to: number; change: number } & Record<K, string>)
    .sort((a, b) => Math.abs(b.change) - Math.abs(a.change) || a[key].localeCompare(b[key]));
}

/** The cross-validated reports of an application's model versions, one at a time or two compared. */
export class ReportService {
  constructor(private readonly models: ModelStore) {}

  async report(app: string, modelCode?: string): Promise<Report> {
    const code = modelCode ?? (await this.models.lastSuccess(app))?.code;
    const row = code ? await this.models.report(app, code) : undefined;
    if (!row) throw new ServiceError(NluErrors.reportNotFound, code ? `No report of model "${code}"` : 'No trained model yet');
    const data = row.state === 'ready' ? (JSON.parse(row.report) as ReportData) : EMPTY;
    return {
      model_code: row.model_code,
      state: row.state as Report['state'],
      message: row.message,
      run_ms: Number(row.run_ms),
      created_time: row.created_time,
      finished_time: row.finished_time ?? '',
      ...data,
    };
  }

  /** What changed from one version's report to another's (by default the newest model and the one before it). */
  async compare(app: string, query: { from?: string; to?: string }): Promise<Static<typeof ReportComparison>> {
    const to = await this.report(app, query.to);
    const fromCode = query.from ?? (await this.models.previousSuccess(app, to.model_code))?.code;
    if (!fromCode) throw new ServiceError(NluErrors.reportNotFound, `No model before "${to.model_code}" to compare with`);
    const from = await this.report(app, fromCode);
    const pair = (c: { expected: string; predicted: string }) => `${c.expected}\u0000${c.predicted}`;
    const before = new Set(from.confusions.map(pair));
    const after = new Set(to.confusions.map(pair));
    return {
      from: from.model_code,
      to: to.model_code,
      accuracy: change(from.intents.accuracy, to.intents.accuracy),
      macro_f1: change(from.intents.macro_f1, to.intents.macro_f1),
      entity_f1: change(from.entities.micro.f1, to.entities.micro.f1),
      intents: f1Changes('intent', from.intents.per_intent, to.intents.per_intent),
      entities: f1Changes('entity', from.entities.per_label, to.entities.per_label),
      confusions_gone: from.confusions.filter((c) => !after.has(pair(c))),
      confusions_new: to.confusions.filter((c) => !before.has(pair(c))),
    };
  }
}
