import type { CsvRecord } from './csv.js';
import type { CreditParts } from './index.js';
import type { RejectedRow } from './import.js';
import { DEFAULT_EVALUATION, labelledRows } from './model/default-models.js';
import { auc, brier, calibrationTable, ks, type CalibrationRow } from './model/metrics.js';
import type { ActiveModel } from './model/registry.js';
import { scoreProbability } from './model/scorecard.js';
import type { LabelledRow } from './model/train.js';
import { isHoldout } from './model/train.js';
import type { SourceName } from './sources/source.js';
import { generatePopulation } from './synthetic.js';
import { collectFeatures } from './training.js';

export interface Evaluation {
  dltype: number;
  model: string;
  rows: number;
  repaid_rate: number;
  auc: number;
  ks: number;
  brier: number;
  calibration: CalibrationRow[];
}

export function evaluateModel(model: ActiveModel, rows: LabelledRow[]): Evaluation {
  const scores = rows.map((r) => scoreProbability(model.scorecard, r.features));
  const labels = rows.map((r) => r.repaid);
  return {
    dltype: model.scorecard.dltype,
    model: model.ref,
    rows: rows.length,
    repaid_rate: labels.reduce((s, y) => s + y, 0) / Math.max(1, labels.length),
    auc: auc(scores, labels),
    ks: ks(scores, labels),
    brier: brier(scores, labels),
    calibration: calibrationTable(scores, labels),
  };
}

/** The shipped default models on a synthetic population they were never trained on (a different seed). */
export function evaluateDefaults(parts: CreditParts, population = DEFAULT_EVALUATION): { population: string; results: Evaluation[] } {
  const people = generatePopulation(population);
  const results: Evaluation[] = [];
  for (const dltype of [1, 2]) {
    const model = parts.models.defaultModel('alpha', dltype);
    if (model) results.push(evaluateModel(model, labelledRows(people, dltype)));
  }
  return { population: `synthetic, seed ${population.seed}, ${population.people} people (held out: not the training seed)`, results };
}

/** An application's current models on the held-out part of an outcomes file (the phones `train` never fits on). */
export async function evaluateOutcomes(
  parts: CreditParts,
  appCode: string,
  source: SourceName,
  records: AsyncIterable<CsvRecord>,
): Promise<{ results: Evaluation[]; errors: string[]; no_data: number; rejects: RejectedRow[] }> {
  const collected = await collectFeatures(parts, appCode, source, records);
  const results: Evaluation[] = [];
  const errors: string[] = [];
  for (const dltype of [...new Set(collected.rows.map((r) => r.dltype))].sort()) {
    const rows = collected.rows.filter((r) => r.dltype === dltype && isHoldout(r.phone));
    const model = await parts.models.model(appCode, source, dltype);
    if (!model) errors.push(`dltype ${dltype}: no ${source} model`);
    else if (rows.length === 0) errors.push(`dltype ${dltype}: no held-out rows`);
    else results.push(evaluateModel(model, rows));
  }
  return { results, errors, no_data: collected.noData, rejects: collected.rejects };
}

const f3 = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : 'n/a');

/** AUC, KS, Brier and the calibration table, as text. */
export function formatEvaluation(e: Evaluation): string {
  const lines = [
    `dltype ${e.dltype}  model ${e.model}`,
    `  held-out rows ${e.rows}  repaid ${(e.repaid_rate * 100).toFixed(1)}%  AUC ${f3(e.auc)}  KS ${f3(e.ks)}  Brier ${f3(e.brier)}`,
    '  calibration (equal-count bins of the predicted probability of repaying)',
    '  bin   rows   score range      mean predicted   observed repaid',
  ];
  for (const c of e.calibration) {
    lines.push(
      `  ${String(c.bin).padStart(3)}  ${String(c.rows).padStart(5)}   ${f3(c.minScore)}-${f3(c.maxScore)}      ${f3(c.meanPredicted).padStart(6)}           ${f3(c.observedRepaid).padStart(6)}`,
    );
  }
  return lines.join('\n');
}
