/**
 * Latency histogram with fixed bucket bounds, so counts from many processes
 * and days add up by plain addition in SQL (`b07 = b07 + excluded.b07`).
 * Percentiles are read back as the upper bound of the bucket they fall in:
 * within about 1.5x of the true value, which is what a usage page needs.
 */
export const BUCKET_BOUNDS_MS = [1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 75, 100, 150, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 5000, 10_000, 30_000, Infinity] as const;
export const BUCKET_COUNT = BUCKET_BOUNDS_MS.length;

/** Column names b00..b24, one per bucket. */
export const BUCKET_COLUMNS = BUCKET_BOUNDS_MS.map((_, i) => `b${String(i).padStart(2, '0')}`);

export function bucketOf(ms: number): number {
  for (let i = 0; i < BUCKET_COUNT - 1; i++) if (ms <= BUCKET_BOUNDS_MS[i]) return i;
  return BUCKET_COUNT - 1;
}

/** The q-quantile (0..1) of a histogram, as a bucket's upper bound in ms; the last bucket reports `maxMs`. */
export function quantileMs(buckets: readonly number[], q: number, maxMs: number): number | null {
  const total = buckets.reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (let i = 0; i < buckets.length; i++) {
    seen += buckets[i];
    if (seen >= rank) return roundMs(i === BUCKET_COUNT - 1 ? maxMs : Math.min(BUCKET_BOUNDS_MS[i], maxMs));
  }
  return roundMs(maxMs);
}

const roundMs = (ms: number) => Math.round(ms * 10) / 10;
