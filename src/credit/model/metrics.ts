/** Evaluation of probability-of-repaying scores against outcomes (1 repaid, 0 defaulted). */

/** Area under the ROC curve (Mann-Whitney, ties counted half). */
export function auc(scores: number[], labels: number[]): number {
  const order = scores.map((s, i) => [s, labels[i]] as const).sort((a, b) => a[0] - b[0]);
  let rankSumPos = 0;
  let pos = 0;
  let i = 0;
  while (i < order.length) {
    let j = i;
    while (j + 1 < order.length && order[j + 1][0] === order[i][0]) j++;
    const midRank = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) {
      if (order[k][1] === 1) {
        rankSumPos += midRank;
        pos++;
      }
    }
    i = j + 1;
  }
  const neg = order.length - pos;
  if (pos === 0 || neg === 0) return NaN;
  return (rankSumPos - (pos * (pos + 1)) / 2) / (pos * neg);
}

/** Kolmogorov-Smirnov: the largest gap between the score distributions of goods and bads. */
export function ks(scores: number[], labels: number[]): number {
  const order = scores.map((s, i) => [s, labels[i]] as const).sort((a, b) => a[0] - b[0]);
  const goods = labels.filter((l) => l === 1).length;
  const bads = labels.length - goods;
  if (goods === 0 || bads === 0) return NaN;
  let g = 0;
  let b = 0;
  let best = 0;
  for (let i = 0; i < order.length; i++) {
    if (order[i][1] === 1) g++;
    else b++;
    // Only compare at the end of a run of equal scores.
    if (i + 1 < order.length && order[i + 1][0] === order[i][0]) continue;
    best = Math.max(best, Math.abs(g / goods - b / bads));
  }
  return best;
}

export function brier(scores: number[], labels: number[]): number {
  if (scores.length === 0) return NaN;
  return scores.reduce((sum, s, i) => sum + (s - labels[i]) ** 2, 0) / scores.length;
}

export interface CalibrationRow {
  bin: number;
  rows: number;
  minScore: number;
  maxScore: number;
  meanPredicted: number;
  observedRepaid: number;
}

/** Equal-count bins of the predicted probability: mean predicted vs the observed repayment rate. */
export function calibrationTable(scores: number[], labels: number[], bins = 10): CalibrationRow[] {
  const order = scores.map((s, i) => [s, labels[i]] as const).sort((a, b) => a[0] - b[0]);
  const rows: CalibrationRow[] = [];
  for (let k = 0; k < bins; k++) {
    const part = order.slice(Math.floor((k * order.length) / bins), Math.floor(((k + 1) * order.length) / bins));
    if (part.length === 0) continue;
    rows.push({
      bin: k + 1,
      rows: part.length,
      minScore: part[0][0],
      maxScore: part[part.length - 1][0],
      meanPredicted: part.reduce((s, p) => s + p[0], 0) / part.length,
      observedRepaid: part.reduce((s, p) => s + p[1], 0) / part.length,
    });
  }
  return rows;
}
