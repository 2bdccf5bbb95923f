/**
 * Covered eyes (dark glasses) measured on the aligned 112x112 face, without
 * the eye-state model: that model answers "closed" for a dark lens only some
 * of the time (it was trained on eyes, not on lenses), so a second rule reads
 * the pixels. Each eye patch is compared with the cheek below it on the same
 * side (so light from one side, or dark skin, shifts both alike):
 *
 * - darkness: the eye patch's mean luma over the cheek's;
 * - dark share: the share of the patch's pixels darker than half the
 *   cheek's mean, a measure of flatness that a lens edge crossing the patch
 *   barely moves. An open eye is the most contrasted part of a face (white
 *   sclera and lid skin around a dark iris and lashes: a third to a half of
 *   its pixels dark), a closed one shows skin with a lash line; a dark lens
 *   is dark nearly everywhere. (The patch's standard deviation was tried as
 *   the texture measure and dropped: where the lens edge crosses the patch
 *   it is as high as an open eye's.)
 *
 * Patches in ArcFace template pixels (eye centres at about (38, 52) and
 * (74, 52), nose tip (56, 72), mouth corners at y 92).
 */

export interface EyeCover {
  /** Eye-patch mean over the same side's cheek mean, left and right eye of the image. */
  darkness: [number, number];
  /** Share of the eye patch's pixels darker than half the cheek's mean. */
  darkShare: [number, number];
}

interface Rect {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

const EYE: [Rect, Rect] = [
  { x0: 30, y0: 46, x1: 47, y1: 58 },
  { x0: 65, y0: 46, x1: 82, y1: 58 },
];
const CHEEK: [Rect, Rect] = [
  { x0: 28, y0: 68, x1: 44, y1: 80 },
  { x0: 68, y0: 68, x1: 84, y1: 80 },
];

function stats(gray: Float32Array, width: number, r: Rect, darkBelow = 0): { mean: number; darkShare: number } {
  let s = 0;
  let n = 0;
  let dark = 0;
  for (let y = r.y0; y < r.y1; y++) {
    for (let x = r.x0; x < r.x1; x++) {
      const v = gray[y * width + x];
      s += v;
      if (v < darkBelow) dark++;
      n++;
    }
  }
  return { mean: s / n, darkShare: dark / n };
}

/** Darkness and dark share of each eye against its cheek, on an aligned 112x112 grayscale face (0-255). */
export function eyeCover(gray: Float32Array, width = 112): EyeCover {
  const side = (k: 0 | 1) => {
    const cheek = Math.max(8, stats(gray, width, CHEEK[k]).mean);
    const eye = stats(gray, width, EYE[k], 0.5 * cheek);
    return { darkness: eye.mean / cheek, darkShare: eye.darkShare };
  };
  const l = side(0);
  const r = side(1);
  return { darkness: [l.darkness, r.darkness], darkShare: [l.darkShare, r.darkShare] };
}

/** Thresholds of the covered-eyes rule (see docs/liveness.md for how they were set). */
export const COVER = {
  /** An eye is covered when its patch's mean is below this share of its cheek's... */
  darkness: 0.4,
  /** ...and at least this share of its pixels are darker than half the cheek. */
  darkShare: 0.75,
  /** The face is covered when both eyes are in more than this share of the frames with a face. */
  frames: 0.5,
} as const;

/** Both eyes covered by something dark and flat. */
export function eyesCovered(c: EyeCover): boolean {
  return [0, 1].every((k) => c.darkness[k] < COVER.darkness && c.darkShare[k] >= COVER.darkShare);
}
