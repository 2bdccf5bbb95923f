/**
 * Cosine of two L2-normalised embeddings -> the API's similarity (0-1).
 * One versioned, monotone, piecewise-linear map, fitted for the model it names;
 * `saola eval face --pairs <dir>` prints a refit. Face search answers this value,
 * face match answers it times 100.
 */
/** The model tag stored with every embedding (a different model's vectors are not comparable); the map below is fitted for it. */
export { SHIPPED_RECOGNISER as EMBEDDING_MODEL } from './models.js';

/** A versioned monotone map from cosine to the API's similarity, for one recogniser. */
export interface SimilarityMap {
  version: string;
  knots: ReadonlyArray<readonly [number, number]>;
}

export const SIMILARITY_MAP: SimilarityMap = {
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
  ],
};

/**
 * The map of an installed recogniser that has not been calibrated and whose
 * manifest states none: ArcFace-class models put unrelated faces near cosine 0
 * and the same person above about 0.4, so 0.4 reads as 80 (the match
 * threshold). A guess until `saola face calibrate` fits one to the operator's people.
 */
export const UNCALIBRATED_MAP: SimilarityMap = {
  version: 'uncalibrated-arcface-v1',
  knots: [
    [-1, 0],
    [0, 0],
    [0.25, 0.6],
    [0.4, 0.8],
    [0.5, 0.85],
    [0.7, 0.95],
    [1, 1],
  ],
};

/** Checks knots: at least two, cosines from -1 to 1 increasing, similarities from 0 to 1 non-decreasing. */
export function validKnots(knots: unknown): knots is [number, number][] {
  if (!Array.isArray(knots) || knots.length < 2) return false;
  for (let i = 0; i < knots.length; i++) {
    const k = knots[i];
    if (!Array.isArray(k) || k.length !== 2 || !k.every((x) => typeof x === 'number' && Number.isFinite(x))) return false;
    if (k[1] < 0 || k[1] > 1) return false;
    if (i > 0 && (k[0] <= knots[i - 1][0] || k[1] < knots[i - 1][1])) return false;
  }
  return knots[0][0] === -1 && knots[knots.length - 1][0] === 1;
}

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
