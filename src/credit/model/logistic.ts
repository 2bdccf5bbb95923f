/**
 * Logistic regression by Newton's method (IRLS) with a small ridge penalty.
 * Scorecards have a handful of WoE columns, so the p x p system is tiny.
 */
export interface LogisticFit {
  intercept: number;
  coefficients: number[];
  iterations: number;
}

function solve(a: number[][], b: number[]): number[] {
  // Gaussian elimination with partial pivoting; a is small and symmetric positive definite.
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let pivot = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r][c]) > Math.abs(m[pivot][c])) pivot = r;
    [m[c], m[pivot]] = [m[pivot], m[c]];
    if (Math.abs(m[c][c]) < 1e-12) throw new Error('singular system in logistic regression');
    for (let r = c + 1; r < n; r++) {
      const f = m[r][c] / m[c][c];
      for (let k = c; k <= n; k++) m[r][k] -= f * m[c][k];
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let s = m[r][n];
    for (let k = r + 1; k < n; k++) s -= m[r][k] * x[k];
    x[r] = s / m[r][r];
  }
  return x;
}

/** Fits P(y=1) = sigmoid(b0 + x.b); `ridge` penalises the coefficients, not the intercept. */
export function fitLogistic(x: number[][], y: number[], ridge = 1e-4, maxIterations = 50): LogisticFit {
  const p = (x[0]?.length ?? 0) + 1;
  const w = new Array<number>(p).fill(0);
  const positives = y.reduce((s, v) => s + v, 0);
  w[0] = Math.log((positives + 0.5) / (y.length - positives + 0.5));
  const lambda = ridge * y.length;
  let iterations = 0;
  for (; iterations < maxIterations; iterations++) {
    const grad = new Array<number>(p).fill(0);
    const hess = Array.from({ length: p }, () => new Array<number>(p).fill(0));
    for (let i = 0; i < y.length; i++) {
      const row = [1, ...x[i]];
      let z = 0;
      for (let k = 0; k < p; k++) z += w[k] * row[k];
      const mu = 1 / (1 + Math.exp(-z));
      const weight = Math.max(mu * (1 - mu), 1e-10);
      for (let k = 0; k < p; k++) {
        grad[k] += (y[i] - mu) * row[k];
        for (let l = k; l < p; l++) hess[k][l] += weight * row[k] * row[l];
      }
    }
    for (let k = 0; k < p; k++) {
      for (let l = 0; l < k; l++) hess[k][l] = hess[l][k];
      if (k > 0) {
        grad[k] -= lambda * w[k];
        hess[k][k] += lambda;
      }
    }
    const step = solve(hess, grad);
    let largest = 0;
    for (let k = 0; k < p; k++) {
      w[k] += step[k];
      largest = Math.max(largest, Math.abs(step[k]));
    }
    if (largest < 1e-9) {
      iterations++;
      break;
    }
  }
  return { intercept: w[0], coefficients: w.slice(1), iterations };
}
