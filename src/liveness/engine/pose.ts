import type { Box } from '../../face/index.js';
import { eyeCentres } from './motion.js';

/**
 * Yaw cues that do not rest on the nose-to-eyes offset alone. The landmark
 * net was trained mostly on frontal faces: shown a turned head it pulls the
 * eyes and nose back towards a frontal layout, so the face engine's yaw
 * (nose tip against the eye midpoint, in half inter-ocular distances) reads
 * a 50-degree turn as 15-20 degrees. Two other measurements see the turn:
 *
 * - contour: where the nose tip sits between the left and right face
 *   outline (landmarks 0-4 and 12-16, the jaw line at cheek height, which the
 *   net places on the silhouette's edge even when it misplaces the inner
 *   points);
 * - box: where the nose tip sits inside the detector's box (a separate
 *   model), measured along the eye line so a tilted head is read along its
 *   own axis.
 *
 * Each gives an asymmetry a = (right - left) / (right + left), 0 for a
 * frontal face, turned into degrees with a cylinder model of the head (a
 * surface point at angle phi is seen at R sin(phi + yaw); the nose tip at R
 * sin(yaw), one outline at -R cos(yaw), the other at R):
 * a(yaw) = (2 sin(yaw) + cos(yaw) - 1) / (1 + cos(yaw)), increasing from 0
 * at 0 degrees to 1 at 90.
 */

/** Asymmetry of a head turned by `degrees` under the cylinder model (0..1 for 0..90 degrees). */
export function cylinderAsymmetry(degrees: number): number {
  const t = (Math.min(90, Math.abs(degrees)) * Math.PI) / 180;
  return (2 * Math.sin(t) + Math.cos(t) - 1) / (1 + Math.cos(t));
}

/** Inverse of cylinderAsymmetry, signed: degrees (0-90) for an asymmetry in -1..1. */
export function asymmetryToYaw(a: number): number {
  const target = Math.min(1, Math.abs(a));
  let lo = 0;
  let hi = 90;
  for (let i = 0; i < 40; i++) {
    const mid = (lo + hi) / 2;
    if (cylinderAsymmetry(mid) < target) lo = mid;
    else hi = mid;
  }
  return Math.sign(a) * ((lo + hi) / 2);
}

type Pts = ArrayLike<number>;

/** Unit vector along the eye line (left eye centre to right eye centre) of 68 landmarks, and the eye distance. */
function eyeAxis(lm: Pts): { ux: number; uy: number; iod: number } {
  const { lx, ly, rx, ry } = eyeCentres(lm);
  const iod = Math.hypot(rx - lx, ry - ly);
  return iod > 1e-6 ? { ux: (rx - lx) / iod, uy: (ry - ly) / iod, iod } : { ux: 1, uy: 0, iod };
}

/** Yaw in degrees (+ = the nose towards the face's right-hand outline, as the face engine's yaw) from the nose tip between the face outlines. */
export function contourYaw(lm: Pts): number {
  const { ux, uy } = eyeAxis(lm);
  const along = (i: number) => lm[2 * i] * ux + lm[2 * i + 1] * uy;
  const nose = along(30);
  let left = Infinity;
  let right = -Infinity;
  for (const i of [0, 1, 2, 3, 4]) left = Math.min(left, along(i));
  for (const i of [12, 13, 14, 15, 16]) right = Math.max(right, along(i));
  const width = right - left;
  if (!(width > 1e-6)) return 0;
  // Clamp: a nose outside the outline is a full profile.
  const dl = Math.max(0, nose - left);
  const dr = Math.max(0, right - nose);
  return asymmetryToYaw((dl - dr) / Math.max(1e-6, dl + dr));
}

/** Yaw in degrees from the nose tip's place inside the detector box, along the eye line. */
export function boxYaw(lm: Pts, box: Box): number {
  const { ux, uy } = eyeAxis(lm);
  const px = lm[60];
  const py = lm[61];
  // Distance from the nose tip to the box's edge along (dx, dy).
  const reach = (dx: number, dy: number) => {
    let t = Infinity;
    if (dx > 1e-9) t = Math.min(t, (box.x2 - px) / dx);
    if (dx < -1e-9) t = Math.min(t, (box.x1 - px) / dx);
    if (dy > 1e-9) t = Math.min(t, (box.y2 - py) / dy);
    if (dy < -1e-9) t = Math.min(t, (box.y1 - py) / dy);
    return Number.isFinite(t) ? Math.max(0, t) : 0;
  };
  const dr = reach(ux, uy);
  const dl = reach(-ux, -uy);
  if (dl + dr < 1e-6) return 0;
  return asymmetryToYaw((dl - dr) / (dl + dr));
}

export interface YawEstimates {
  /** The face engine's yaw from the nose-to-eyes offset. */
  landmarks: number;
  contour: number;
  box: number;
  /** The one the frontal rule uses: the median of the three by size (two of three must agree that the head is turned). */
  yaw: number;
}

/** The three yaw estimates of one frame and the one the frontal rule reads. */
export function estimateYaw(lm: Pts, box: Box, landmarkYaw: number): YawEstimates {
  const contour = contourYaw(lm);
  const b = boxYaw(lm, box);
  const byMagnitude = [landmarkYaw, contour, b].sort((x, y) => Math.abs(x) - Math.abs(y));
  return { landmarks: landmarkYaw, contour, box: b, yaw: byMagnitude[1] };
}
