/**
 * Does the face move with its surroundings? A live person moves the head in
 * front of a background that stays where it is (or, with a hand-held phone,
 * moves by a different amount: the head is much nearer). A photo moved in
 * front of the camera, filling the frame, and frames injected from a still
 * picture move the face and everything around it as one picture.
 *
 * For each frame with a face, the homography that takes the reference
 * frame's 68 landmarks onto this frame's predicts where every pixel around
 * the face would be if the surroundings moved with the face. The cue compares
 * two predictions of the ring around the face (the box enlarged 2.6 times,
 * minus the box enlarged 1.2 times): the reference frame warped by the face's
 * homography ("moves with the face") against the reference frame as it is
 * ("stays"). Per frame log((warped error + 0.5) / (unwarped error + 0.5)),
 * mean absolute grey-level errors; the cue is the median over the frames
 * where the face moved. Negative: the surroundings follow the face (one
 * picture); positive: they do not; near 0: nothing to tell (a plain wall,
 * or too little motion). docs/liveness.md has the values measured.
 */
import { fitHomography, interOcular } from './motion.js';

export interface SceneFace {
  box: { x1: number; y1: number; x2: number; y2: number };
  landmarks: ArrayLike<number>;
}

export interface SceneFollow {
  /** Median log ratio (warped over unwarped ring error) over the frames that moved; 0 when fewer than SCENE.minFrames moved. */
  score: number;
  /** Frames the median was taken over. */
  frames: number;
}

export const SCENE = {
  /** A frame counts when its landmarks moved on average by this many inter-ocular distances from the reference. */
  minMotion: 0.015,
  /** Fewer moving frames than this: no evidence either way. */
  minFrames: 3,
  /** The ring: pixels farther than this many box widths (heights) from the box's centre... */
  ringInner: 0.6,
  /** ...and nearer than this many (the box enlarged 1.2 and 2.6 times). */
  ringOuter: 1.3,
  /** Grey levels added to both errors (compression noise on a plain background says nothing). */
  floor: 0.5,
  /** Every `step`-th pixel each way. */
  step: 2,
} as const;

/** Luma (0-255) of an RGB frame at integer pixel (x, y). */
const luma = (rgb: Uint8Array, i: number) => 0.299 * rgb[3 * i] + 0.587 * rgb[3 * i + 1] + 0.114 * rgb[3 * i + 2];

/**
 * One frame against the reference: [log ratio, mean landmark motion in inter-ocular distances], or undefined when
 * the homography cannot be fitted or the ring falls outside the frame.
 */
export function ringRatio(ref: Uint8Array, cur: Uint8Array, width: number, height: number, refFace: SceneFace, curFace: SceneFace): [number, number] | undefined {
  const H = fitHomography(curFace.landmarks, refFace.landmarks); // this frame's pixel -> the reference's
  if (!H) return undefined;
  const lm = curFace.landmarks;
  const rl = refFace.landmarks;
  let motion = 0;
  for (let k = 0; k < lm.length / 2; k++) motion += Math.hypot(lm[2 * k] - rl[2 * k], lm[2 * k + 1] - rl[2 * k + 1]);
  motion /= (lm.length / 2) * Math.max(1, interOcular(rl));
  const { x1, y1, x2, y2 } = curFace.box;
  const cx = (x1 + x2) / 2;
  const cy = (y1 + y2) / 2;
  const bw = x2 - x1;
  const bh = y2 - y1;
  let warped = 0;
  let still = 0;
  let n = 0;
  const xa = Math.max(0, Math.round(cx - SCENE.ringOuter * bw));
  const xb = Math.min(width - 1, Math.round(cx + SCENE.ringOuter * bw));
  const ya = Math.max(0, Math.round(cy - SCENE.ringOuter * bh));
  const yb = Math.min(height - 1, Math.round(cy + SCENE.ringOuter * bh));
  for (let y = ya; y < yb; y += SCENE.step) {
    for (let x = xa; x < xb; x += SCENE.step) {
      if (Math.abs(x - cx) < SCENE.ringInner * bw && Math.abs(y - cy) < SCENE.ringInner * bh) continue;
      const w = H[6] * x + H[7] * y + H[8];
      const sx = (H[0] * x + H[1] * y + H[2]) / w;
      const sy = (H[3] * x + H[4] * y + H[5]) / w;
      const x0 = Math.floor(sx);
      const y0 = Math.floor(sy);
      if (!(x0 >= 0 && y0 >= 0 && x0 < width - 1 && y0 < height - 1)) continue;
      const fx = sx - x0;
      const fy = sy - y0;
      const o = y0 * width + x0;
      const s = (luma(ref, o) * (1 - fx) + luma(ref, o + 1) * fx) * (1 - fy) + (luma(ref, o + width) * (1 - fx) + luma(ref, o + width + 1) * fx) * fy;
      const c = luma(cur, y * width + x);
      warped += Math.abs(c - s);
      still += Math.abs(c - luma(ref, y * width + x));
      n++;
    }
  }
  if (n === 0) return undefined;
  return [Math.log((warped / n + SCENE.floor) / (still / n + SCENE.floor)), motion];
}

/** The cue over a video: `frameAt(i)` gives frame i's RGB pixels, `faces[i]` its face (undefined: none), `reference` the reference frame. */
export function sceneFollowsFace(frameAt: (i: number) => Uint8Array, width: number, height: number, faces: (SceneFace | undefined)[], reference: number): SceneFollow {
  const refFace = faces[reference];
  if (!refFace) return { score: 0, frames: 0 };
  const ref = frameAt(reference);
  const ratios: number[] = [];
  for (let i = 0; i < faces.length; i++) {
    const f = faces[i];
    if (i === reference || !f) continue;
    const r = ringRatio(ref, frameAt(i), width, height, refFace, f);
    if (r && r[1] >= SCENE.minMotion) ratios.push(r[0]);
  }
  if (ratios.length < SCENE.minFrames) return { score: 0, frames: ratios.length };
  ratios.sort((a, b) => a - b);
  return { score: ratios[Math.floor(ratios.length / 2)], frames: ratios.length };
}
