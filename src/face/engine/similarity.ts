/**
 * Cosine of two L2-normalised embeddings -> the API's similarity (0-1).
 * One versioned, monotone, piecewise-linear map, fitted for the model it names;
 * `saola eval face --pairs <dir>` prints a refit. Face search answers this value,
 * face match answers it times 100.
 */
/** The model tag stored with every embedding (a different model's vectors are not comparable); the map below is fitted for it. */
export const EMBEDDING_MODEL = 'faceplugin-fr_feature-512';

export const SIMILARITY_MAP = {
  version: 'fr_feature-2026-11-v1',
  /**
   * [cosine, similarity] knots, increasing. First map of DESIGN.md. A fit to
   * faces-dev's distributions (fitSimilarityMap: 80 at cosine 0.445) was not
   * adopted: this model's impostors on East Asian faces reach 0.55 (docs/face.md).
   */
  knots: [
    [-1, 0],
    [0, 0],
    [0.5, 0.8],
    [0.6, 0.85],
    [0.8, 0.95],
    [1, 1],
  ] as ReadonlyArray<readonly [number, number]>,
};

export function cosineToSimilarity(cosine: number, knots = SIMILARITY_MAP.knots): number {
  if (!Number.isFinite(cosine)) return 0;
  const c = Math.max(-1, Math.min(1, cosine));
  for (let i = 1; i < knots.length; i++) {
    const [x0, y0] = knots[i - 1];
    const [x1, y1] = knots[i];
    if (c <= x1) return x1 === x0 ? y1 : y0 + ((c - x0) / (x1 - x0)) * (y1 - y0);
  }
  return knots[knots.length - 1][1];
}

/** Inverse of the map: the cosine a similarity threshold corresponds to. */
export function similarityToCosine(similarity: number, knots = SIMILARITY_MAP.knots): number {
  const s = Math.max(0, Math.min(1, similarity));
  for (let i = 1; i < knots.length; i++) {
    const [x0, y0] = knots[i - 1];
    const [x1, y1] = knots[i];
    if (s <= y1 && y1 > y0) return x0 + ((s - y0) / (y1 - y0)) * (x1 - x0);
  }
  return 1;
}

export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}
