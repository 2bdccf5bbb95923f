import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { binFeature } from '../../../src/credit/model/binning.js';
import { buildDefaultModels, shippedDefaultModels } from '../../../src/credit/model/default-models.js';
import { fitLogistic } from '../../../src/credit/model/logistic.js';
import { auc, calibrationTable, ks } from '../../../src/credit/model/metrics.js';
import { parseScorecard, scoreWithContributions, topReasons, type Scorecard } from '../../../src/credit/model/scorecard.js';
import { isHoldout, trainScorecard, TrainingError, type LabelledRow } from '../../../src/credit/model/train.js';
import { seededRandom } from '../../../src/platform/random.js';

function closeTo(actual: number, expected: number, tolerance: number, what: string): void {
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: ${actual} is not within ${tolerance} of ${expected}`);
}

describe('metrics', () => {
  test('AUC and KS on a hand-computed case', () => {
    // Goods at 0.9, 0.8, 0.4; bads at 0.7, 0.3: 5 of 6 pairs ordered right.
    const scores = [0.9, 0.8, 0.4, 0.7, 0.3];
    const labels = [1, 1, 1, 0, 0];
    closeTo(auc(scores, labels), 5 / 6, 1e-12, 'AUC');
    // Below 0.4: bads 1/2, goods 0/3 -> 0.5; below 0.7: bads 1/2, goods 1/3; below 0.8: bads 2/2, goods 1/3 -> 0.667.
    closeTo(ks(scores, labels), 2 / 3, 1e-12, 'KS');
    assert.equal(auc([0.5, 0.5], [1, 0]), 0.5, 'ties count half');
    assert.ok(Number.isNaN(auc([0.1, 0.2], [1, 1])), 'one class only: undefined');
  });
  test('calibration table: equal-count bins with the observed rate', () => {
    const scores = Array.from({ length: 100 }, (_, i) => i / 100);
    const labels = scores.map((s) => (s >= 0.5 ? 1 : 0));
    const table = calibrationTable(scores, labels, 4);
    assert.equal(table.length, 4);
    assert.deepEqual(
      table.map((r) => r.rows),
      [25, 25, 25, 25],
    );
    assert.deepEqual(
      table.map((r) => r.observedRepaid),
      [0, 0, 1, 1],
    );
  });
});

describe('logistic regression', () => {
  test('recovers known weights from simulated data', () => {
    const rand = seededRandom(5);
    const x: number[][] = [];
    const y: number[] = [];
    for (let i = 0; i < 20_000; i++) {
      const a = rand() * 4 - 2;
      const b = rand() * 4 - 2;
      x.push([a, b]);
      y.push(rand() < 1 / (1 + Math.exp(-(0.5 + 1.5 * a - 0.8 * b))) ? 1 : 0);
    }
    const fit = fitLogistic(x, y, 0);
    closeTo(fit.intercept, 0.5, 0.08, 'intercept');
    closeTo(fit.coefficients[0], 1.5, 0.08, 'weight of a');
    closeTo(fit.coefficients[1], -0.8, 0.08, 'weight of b');
  });
});

describe('binning and weight of evidence', () => {
  test('bins are contiguous, monotonic in WoE, and missing values get their own bin', () => {
    const rand = seededRandom(9);
    const values: (number | null)[] = [];
    const repaid: number[] = [];
    for (let i = 0; i < 5000; i++) {
      const missing = rand() < 0.1;
      const x = Math.floor(rand() * 100);
      values.push(missing ? null : x);
      repaid.push(rand() < (missing ? 0.5 : 0.5 + x / 250) ? 1 : 0);
    }
    const bins = binFeature(values, repaid);
    const numeric = bins.filter((b) => !b.missing);
    assert.ok(numeric.length >= 2 && numeric.length <= 6, `${numeric.length} bins`);
    assert.equal(numeric[0].min, null);
    assert.equal(numeric[numeric.length - 1].max, null);
    for (let i = 1; i < numeric.length; i++) {
      assert.equal(numeric[i].min, numeric[i - 1].max, 'contiguous');
      assert.ok(numeric[i].woe > numeric[i - 1].woe, 'repayment rises with x, so WoE must too');
    }
    assert.equal(bins.filter((b) => b.missing).length, 1);
    assert.equal(
      bins.reduce((s, b) => s + b.good + b.bad, 0),
      5000,
      'every row is in one bin',
    );
  });
  test('a constant feature has no bins (no information)', () => {
    assert.deepEqual(binFeature([1, 1, 1, 1, 1, 1], [1, 0, 1, 0, 1, 1]), []);
  });
});

function simulatedRows(n: number, seed: number): (LabelledRow & { phone: string })[] {
  const rand = seededRandom(seed);
  return Array.from({ length: n }, (_, i) => {
    const good = rand() * 10;
    const noise = rand() * 10;
    return {
      phone: `8491${String(i).padStart(7, '0')}`,
      features: { good_signal: good, noise, sometimes: rand() < 0.2 ? null : good },
      repaid: rand() < 1 / (1 + Math.exp(-(good - 4))) ? 1 : 0,
    };
  });
}

describe('scorecard training', () => {
  const rows = simulatedRows(4000, 3);
  const model = trainScorecard(
    rows.filter((r) => !isHoldout(r.phone)),
    rows.filter((r) => isHoldout(r.phone)),
    { source: 'alpha', dltype: 1, trainedOn: 'unit test' },
  );

  test('keeps informative features, drops noise, and measures on the held-out rows', () => {
    const names = model.features.map((f) => f.name);
    assert.ok(names.includes('good_signal'));
    assert.ok(!names.includes('noise'), 'pure noise has no information value');
    assert.ok(
      model.features.every((f) => f.coefficient > 0),
      'WoE weights are positive',
    );
    assert.ok(model.holdout && model.holdout.auc > 0.8, `holdout AUC ${model.holdout?.auc}`);
    assert.equal(model.holdout?.rows, rows.filter((r) => isHoldout(r.phone)).length);
  });

  test('a stored (serialised) model reproduces its scores exactly, and reasons add up to the score', () => {
    const reloaded = parseScorecard(JSON.parse(JSON.stringify(model)));
    for (const r of rows.slice(0, 200)) {
      const a = scoreWithContributions(model, r.features);
      const b = scoreWithContributions(reloaded, r.features);
      assert.equal(b.probability, a.probability);
      const z = model.intercept + a.reasons.reduce((s, x) => s + x.effect, 0);
      closeTo(1 / (1 + Math.exp(-z)), a.probability, 1e-3, 'sum of effects');
      assert.ok(a.probability >= 0 && a.probability <= 1);
    }
  });

  test('reasons: strongest first, direction matches the sign', () => {
    const { reasons } = scoreWithContributions(model, { good_signal: 9.9, sometimes: 9.9, noise: 1 });
    const top = topReasons(reasons, 2);
    assert.ok(top.length <= 2);
    assert.ok(Math.abs(top[0].effect) >= Math.abs(top[top.length - 1].effect));
    for (const r of top) assert.equal(r.direction, r.effect >= 0 ? 'raises' : 'lowers');
    assert.equal(top.find((r) => r.feature === 'good_signal')?.direction, 'raises');
  });

  test('refuses to train on too little data', () => {
    assert.throws(() => trainScorecard(rows.slice(0, 50), [], { source: 'alpha', dltype: 1, trainedOn: 'x' }), TrainingError);
    const allGood = rows.slice(0, 500).map((r) => ({ ...r, repaid: 1 }));
    assert.throws(() => trainScorecard(allGood, [], { source: 'alpha', dltype: 1, trainedOn: 'x' }), TrainingError);
  });

  test('a corrupt stored model is refused, not trusted', () => {
    assert.throws(() => parseScorecard('{"format":"other"}'));
    const broken = JSON.parse(JSON.stringify(model)) as Scorecard;
    (broken.features[0].bins[0] as { woe: unknown }).woe = 'x';
    assert.throws(() => parseScorecard(broken));
  });
});

describe('shipped default models', () => {
  test('are the deterministic product of the synthetic population (rebuilding gives the committed file)', () => {
    const shipped = shippedDefaultModels();
    const rebuilt = buildDefaultModels();
    assert.deepEqual(
      rebuilt.map((m) => [m.source, m.dltype]),
      [
        ['alpha', 1],
        ['alpha', 2],
      ],
    );
    assert.deepEqual(JSON.parse(JSON.stringify(rebuilt)), shipped, 'run `npm run credit:default-model` after changing the generator or trainer');
    for (const m of shipped) {
      assert.match(m.trained_on, /synthetic/);
      assert.ok(m.holdout && m.holdout.auc > 0.65, `dltype ${m.dltype} holdout AUC ${m.holdout?.auc}`);
    }
  });
});
