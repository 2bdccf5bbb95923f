/**
 * Fusion of the liveness cues into one live probability. Each cue becomes a
 * bounded piece of evidence (positive: live; negative: reproduction) and the
 * weighted sum goes through a logistic function. The weights below are the
 * whole model: docs/liveness.md ("Cues and fusion", "The scene cue") lists them with the reason for each.
 */
export interface LivenessCues {
  /** Mean live probability of the anti-spoof model over the best frames (0-1). */
  antispoof: number;
  /** Landmarks' homography residual against the reference frame over the frame-to-frame noise (motion.ts). */
  nonRigidity: number;
  /** Blinks seen (eyes open, closed, open again). */
  blinks: number;
  /** Strongest moiré score (log10 peak over median spectral power). */
  moire: number;
  /** Largest share of saturated pixels on the face. */
  glare: number;
  /** Score (0-1) of a phone or paper border around the face, 0 when none. */
  border: number;
  /** Whether the face's surroundings move with it (scene.ts): negative when they follow the face as one picture, 0 when nothing tells. */
  scene: number;
}

export const FUSION = {
  version: 'liveness-fusion-2026-11-v5',
  bias: 0,
  // From the per-cue measurements in docs/liveness.md ("Cues measured"): the anti-spoof pair separates real live from
  // real replays and from generated prints and screens; the others only add where they were seen to separate.
  weights: { antispoof: 1.5, nonRigidity: 0.5, blink: 0.8, moire: 0.5, glare: 0.8, border: 0, scene: 2.5 },
  /** Non-rigidity ratio at which its evidence is 0, and its scale. Real live heads measured 1.8-7.2, so below the centre it only counts down to -1. */
  nonRigidityCentre: 4,
  nonRigidityScale: 1,
  /** Below this ratio the face moved as one rigid plane even by real videos' standards (live 1.8 and up): never live without review. */
  planeBelow: 1.5,
  /** Moiré score from which it counts as evidence, and its scale (real live webcams reached 3.17). */
  moireCentre: 3.3,
  moireScale: 0.4,
  /** Glare share that counts as one unit of evidence. */
  glareUnit: 0.01,
  /** Border score from which a frame-in-frame counts (weight 0: it fired on live webcams, 0.63-0.78). */
  borderFrom: 0.75,
  /** Scene score (scene.ts) below which the surroundings following the face count against it (never for), and the scale. */
  sceneFrom: -0.15,
  sceneScale: 0.25,
} as const;

const clip = (v: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, v));
const logit = (p: number) => Math.log(clip(p, 1e-6, 1 - 1e-6) / (1 - clip(p, 1e-6, 1 - 1e-6)));

/** Each cue's evidence (before its weight), for explanation and tests. */
export function evidence(c: LivenessCues): Record<keyof typeof FUSION.weights, number> {
  return {
    antispoof: clip(logit(c.antispoof), -4, 4),
    nonRigidity: clip((c.nonRigidity - FUSION.nonRigidityCentre) / FUSION.nonRigidityScale, -1, 3),
    blink: c.blinks > 0 ? 1 : 0,
    moire: -clip((c.moire - FUSION.moireCentre) / FUSION.moireScale, 0, 3),
    glare: -clip(c.glare / FUSION.glareUnit, 0, 3),
    border: -(c.border >= FUSION.borderFrom ? clip((c.border - FUSION.borderFrom) * 6, 0, 3) : 0),
    scene: clip((c.scene - FUSION.sceneFrom) / FUSION.sceneScale, -3, 0),
  };
}

/** What the fusion's choice fits (eval/liveness/fit.ts): the bias and the weights; the evidence shapes stay fixed. */
export interface FusionModel {
  bias: number;
  weights: Record<keyof typeof FUSION.weights, number>;
}

export interface LivenessDecision {
  /** Probability that the face is live, 0-1. */
  prob: number;
  isLive: boolean;
  needToReview: boolean;
  evidence: Record<keyof typeof FUSION.weights, number>;
}

/**
 * The live probability and the answer. Inside `threshold +- margin` the answer
 * is "review". A face whose landmarks move as one rigid plane (non-rigidity
 * below FUSION.planeBelow) is never answered live without review, whatever the other cues say:
 * a photo or a screen moved in front of the camera moves exactly like that,
 * and a confident wrong "live" is the worst answer.
 */
export function decide(c: LivenessCues, threshold: number, margin: number, opts: { selfies?: boolean; model?: FusionModel } = {}): LivenessDecision {
  const e = evidence(c);
  // Selfie images have no motion: their motion cues say nothing either way.
  if (opts.selfies) {
    e.nonRigidity = 0;
    e.blink = 0;
    e.scene = 0;
  }
  const model = opts.model ?? FUSION;
  const w = model.weights;
  const z =
    model.bias +
    w.antispoof * e.antispoof +
    w.nonRigidity * e.nonRigidity +
    w.blink * e.blink +
    w.moire * e.moire +
    w.glare * e.glare +
    w.border * e.border +
    w.scene * e.scene;
  let prob = 1 / (1 + Math.exp(-z));
  if (!opts.selfies && c.nonRigidity < FUSION.planeBelow) prob = Math.min(prob, threshold + margin - 1e-4);
  const isLive = prob >= threshold;
  const needToReview = Math.abs(prob - threshold) < margin;
  return { prob, isLive, needToReview, evidence: e };
}

/** Blinks in a series of per-frame eye-closed probabilities (mean of both eyes; NaN = no face). */
export function countBlinks(closed: number[], closedFrom = 0.6, openBelow = 0.4): number {
  let blinks = 0;
  let state: 'unknown' | 'open' | 'closed' = 'unknown';
  for (const p of closed) {
    if (Number.isNaN(p)) continue;
    if (p < openBelow) {
      if (state === 'closed') blinks++;
      state = 'open';
    } else if (p >= closedFrom && state === 'open') {
      state = 'closed';
    }
  }
  return blinks;
}
