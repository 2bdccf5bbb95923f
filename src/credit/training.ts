import { uuidv7 } from 'uuidv7';
import type { CsvRecord } from './csv.js';
import type { CreditParts } from './index.js';
import type { RejectedRow } from './import.js';
import { isHoldout, trainScorecard, TrainingError, type LabelledRow } from './model/train.js';
import type { HoldoutMetrics } from './model/scorecard.js';
import { readOutcomes, type Outcome } from './outcomes.js';
import type { SourceName } from './sources/source.js';

export interface LabelledOutcome extends LabelledRow {
  phone: string;
  dltype: number;
}

export interface FeatureCollection {
  rows: LabelledOutcome[];
  /** Outcomes whose number the source knew nothing about at the decision time. */
  noData: number;
  rejects: RejectedRow[];
  outcomes: number;
}

/** Each outcome's features as the source saw them at its own decision time (point in time: no leakage into training). */
export async function collectFeatures(parts: CreditParts, appCode: string, source: SourceName, records: AsyncIterable<CsvRecord>): Promise<FeatureCollection> {
  const { outcomes, rejects } = await readOutcomes(records);
  const rows: LabelledOutcome[] = [];
  let noData = 0;
  for (const o of outcomes as Outcome[]) {
    const features = await parts.sources[source].features(appCode, o.phone, o.decisionTime);
    if (!features) noData++;
    else rows.push({ phone: o.phone, dltype: o.dltype, features, repaid: o.repaid });
  }
  return { rows, noData, rejects, outcomes: outcomes.length };
}

export interface TrainedModel {
  dltype: number;
  id?: string;
  version?: number;
  train_rows: number;
  holdout_rows: number;
  holdout: HoldoutMetrics | null;
  features?: string[];
  error?: string;
}

export interface TrainReport {
  source: SourceName;
  outcomes: number;
  rejected: number;
  rejects: RejectedRow[];
  no_data: number;
  models: TrainedModel[];
}

/**
 * Trains and stores one scorecard per dltype found in the outcomes (or only
 * `onlyDltype`), fitting on the rows whose phone is not held out and
 * measuring on those that are. Each stored model is the next version.
 */
export async function trainFromOutcomes(
  parts: CreditParts,
  appCode: string,
  source: SourceName,
  records: AsyncIterable<CsvRecord>,
  opts: { fileName: string; onlyDltype?: number },
): Promise<TrainReport> {
  const collected = await collectFeatures(parts, appCode, source, records);
  const dltypes = [...new Set(collected.rows.map((r) => r.dltype))].filter((d) => opts.onlyDltype === undefined || d === opts.onlyDltype).sort();
  if (opts.onlyDltype !== undefined && dltypes.length === 0) dltypes.push(opts.onlyDltype);
  const report: TrainReport = {
    source,
    outcomes: collected.outcomes,
    rejected: collected.rejects.length,
    rejects: collected.rejects,
    no_data: collected.noData,
    models: [],
  };
  for (const dltype of dltypes) {
    const rows = collected.rows.filter((r) => r.dltype === dltype);
    const train = rows.filter((r) => !isHoldout(r.phone));
    const holdout = rows.filter((r) => isHoldout(r.phone));
    try {
      const scorecard = trainScorecard(train, holdout, { source, dltype, trainedOn: `outcomes file ${opts.fileName}` });
      const saved = await parts.store.saveModel(
        {
          id: uuidv7(),
          app_code: appCode,
          source,
          dltype,
          model: '',
          metrics: JSON.stringify(scorecard.holdout),
          train_rows: train.length,
          created_time: new Date().toISOString(),
        },
        (version) => JSON.stringify({ ...scorecard, version }),
      );
      report.models.push({
        dltype,
        id: saved.id,
        version: saved.version,
        train_rows: train.length,
        holdout_rows: holdout.length,
        holdout: scorecard.holdout,
        features: scorecard.features.map((f) => f.name),
      });
    } catch (err) {
      if (!(err instanceof TrainingError)) throw err;
      report.models.push({ dltype, train_rows: train.length, holdout_rows: holdout.length, holdout: null, error: err.message });
    }
  }
  return report;
}
