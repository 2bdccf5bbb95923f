import type { Affine } from './image.js';

export type Point2 = [number, number];

/** ArcFace's 5 reference points (eyes, nose tip, mouth corners) in a 112x112 crop. */
export const ARCFACE_112: readonly Point2[] = [
  [38.2946, 51.6963],
  [73.5318, 51.5014],
  [56.0252, 71.7366],
  [41.5493, 92.3655],
  [70.7299, 92.2041],
];

/** The 5 alignment points from the 68-point landmarks (iBUG order): eye centres, nose tip, mouth corners. */
export function fivePoints(lm: Float32Array | number[]): Point2[] {
  const mean = (...idx: number[]) => landmarkMean(lm, idx);
  return [mean(36, 37, 38, 39, 40, 41), mean(42, 43, 44, 45, 46, 47), mean(30), mean(48, 60), mean(54, 64)];
}

/** The centre of some landmarks (their indices in the flat x, y list). */
export function landmarkMean(lm: Float32Array | readonly number[], idx: readonly number[]): Point2 {
  let x = 0;
  let y = 0;
  for (const i of idx) {
    x += lm[2 * i];
    y += lm[2 * i + 1];
  }
  return [x / idx.length, y / idx.length];
}

/**
 * Least-squares similarity transform (rotation, uniform scale, translation)
 * taking `src` onto `dst` (Umeyama 1991). Returns [a, b, tx, c, d, ty] with
 * dst = [[a, b], [c, d]] * src + t.
 */
export function umeyama(src: readonly Point2[], dst: readonly Point2[]): Affine {
  const n = src.length;
  let msx = 0,
    msy = 0,
    mdx = 0,
    mdy = 0;
  for (let i = 0; i < n; i++) {
    msx += src[i][0];
    msy += src[i][1];
    mdx += dst[i][0];
    mdy += dst[i][1];
  }
  msx /= n;
  msy /= n;
  mdx /= n;
  mdy /= n;
  // For 2-D similarity the closed form reduces to: scale*cos = sum(sx*dx + sy*dy)/var, scale*sin = sum(sx*dy - sy*dx)/var.
  let sxx = 0,
    sxy = 0,
    varS = 0;
  for (let i = 0; i < n; i++) {
    const sx = src[i][0] - msx,
      sy = src[i][1] - msy;
    const dx = dst[i][0] - mdx,
      dy = dst[i][1] - mdy;
    sxx += sx * dx + sy * dy;
    sxy += sx * dy - sy * dx;
    varS += sx * sx + sy * sy;
  }
  if (varS === 0) return [1, 0, mdx - msx, 0, 1, mdy - msy];
  const a = sxx / varS;
  const b = sxy / varS;
  // [[a, -b], [b, a]]
  return [a, -b, mdx - (a * msx - b * msy), b, a, mdy - (b * msx + a * msy)];
}

/** Inverse of an affine [a, b, tx, c, d, ty]. */
export function invertAffine(m: Affine): Affine {
  const [a, b, tx, c, d, ty] = m;
  const det = a * d - b * c;
  const ia = d / det,
    ib = -b / det,
    ic = -c / det,
    id = a / det;
  return [ia, ib, -(ia * tx + ib * ty), ic, id, -(ic * tx + id * ty)];
}
