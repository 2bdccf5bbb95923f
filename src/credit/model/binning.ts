import type { Bin } from './scorecard.js';

export interface BinningOptions {
  /** Quantile bins before merging. */
  fineBins: number;
  /** Bins after merging, at most (the missing bin not counted). */
  maxBins: number;
  /** Smallest share of the rows a bin may hold. */
  minBinShare: number;
}

export const DEFAULT_BINNING: BinningOptions = { fineBins: 20, maxBins: 6, minBinShare: 0.05 };

interface Working {
  min: number | null;
  max: number | null;
  good: number;
  bad: number;
}

/** Additive smoothing so an all-good or all-bad bin still has a finite WoE. */
const SMOOTHING = 0.5;

export function weightOfEvidence(good: number, bad: number, totalGood: number, totalBad: number): number {
  return Math.log((good + SMOOTHING) / (totalGood + SMOOTHING) / ((bad + SMOOTHING) / (totalBad + SMOOTHING)));
}

const badRate = (b: Working) => b.bad / Math.max(1, b.good + b.bad);

function merge(bins: Working[], i: number): void {
  const [a, b] = [bins[i], bins[i + 1]];
  bins.splice(i, 2, { min: a.min, max: b.max, good: a.good + b.good, bad: a.bad + b.bad });
}

/**
 * Bins one numeric feature for a scorecard: quantile fine classing, then
 * merging (too-small bins, bins with no goods or no bads, then any adjacent
 * pair that breaks a monotonic trend, then the closest pairs down to maxBins),
 * plus a bin for missing values when there are any. Returns [] when the
 * feature carries no information (one bin and no missing values).
 */
export function binFeature(values: (number | null)[], repaid: number[], opts: BinningOptions = DEFAULT_BINNING): Bin[] {
  const totalGood = repaid.reduce((s, y) => s + y, 0);
  const totalBad = repaid.length - totalGood;
  const present: { x: number; y: number }[] = [];
  let missingGood = 0;
  let missingBad = 0;
  values.forEach((x, i) => {
    if (x === null || !Number.isFinite(x)) {
      if (repaid[i] === 1) missingGood++;
      else missingBad++;
    } else present.push({ x, y: repaid[i] });
  });
  present.sort((a, b) => a.x - b.x);

  const cuts: number[] = [];
  for (let k = 1; k < opts.fineBins; k++) {
    const cut = present[Math.floor((k * present.length) / opts.fineBins)]?.x;
    if (cut !== undefined && cut > present[0].x && cut !== cuts[cuts.length - 1]) cuts.push(cut);
  }
  const bins: Working[] = [];
  if (present.length > 0) {
    const bounds = [null, ...cuts, null];
    for (let k = 0; k + 1 < bounds.length; k++) bins.push({ min: bounds[k], max: bounds[k + 1], good: 0, bad: 0 });
    let k = 0;
    for (const { x, y } of present) {
      while (bins[k].max !== null && x >= (bins[k].max as number)) k++;
      if (y === 1) bins[k].good++;
      else bins[k].bad++;
    }
  }

  const minRows = Math.max(1, Math.ceil(opts.minBinShare * repaid.length));
  // Too small, or no goods / no bads: merge into the neighbour with the closest bad rate.
  for (;;) {
    if (bins.length < 2) break;
    let worst = -1;
    for (let i = 0; i < bins.length; i++) {
      const n = bins[i].good + bins[i].bad;
      if (n < minRows || bins[i].good === 0 || bins[i].bad === 0) {
        if (worst < 0 || n < bins[worst].good + bins[worst].bad) worst = i;
      }
    }
    if (worst < 0) break;
    if (worst === 0) merge(bins, 0);
    else if (worst === bins.length - 1) merge(bins, worst - 1);
    else {
      const left = Math.abs(badRate(bins[worst - 1]) - badRate(bins[worst]));
      const right = Math.abs(badRate(bins[worst + 1]) - badRate(bins[worst]));
      merge(bins, left <= right ? worst - 1 : worst);
    }
  }
  // Monotonic WoE in the direction of the overall trend: explainable, and robust to noise.
  const woe = (b: Working) => weightOfEvidence(b.good, b.bad, totalGood, totalBad);
  if (bins.length > 1) {
    const direction = Math.sign(woe(bins[bins.length - 1]) - woe(bins[0])) || 1;
    for (let i = 0; i + 1 < bins.length;) {
      if (Math.sign(woe(bins[i + 1]) - woe(bins[i])) === -direction) {
        merge(bins, i);
        i = Math.max(0, i - 1);
      } else i++;
    }
  }
  while (bins.length > opts.maxBins) {
    let closest = 0;
    for (let i = 1; i + 1 < bins.length; i++) {
      if (Math.abs(woe(bins[i + 1]) - woe(bins[i])) < Math.abs(woe(bins[closest + 1]) - woe(bins[closest]))) closest = i;
    }
    merge(bins, closest);
  }

  const out: Bin[] = bins.map((b) => ({ min: b.min, max: b.max, woe: woe(b), good: b.good, bad: b.bad }));
  if (missingGood + missingBad > 0) {
    out.push({ min: null, max: null, missing: true, woe: weightOfEvidence(missingGood, missingBad, totalGood, totalBad), good: missingGood, bad: missingBad });
  }
  return out.length < 2 ? [] : out;
}

/** Information value: how well the bins separate goods from bads (< 0.02 useless, > 0.3 strong). */
export function informationValue(bins: Bin[]): number {
  const totalGood = bins.reduce((s, b) => s + b.good, 0);
  const totalBad = bins.reduce((s, b) => s + b.bad, 0);
  return bins.reduce((s, b) => s + ((b.good + SMOOTHING) / (totalGood + SMOOTHING) - (b.bad + SMOOTHING) / (totalBad + SMOOTHING)) * b.woe, 0);
}
