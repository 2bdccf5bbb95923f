import { boxArea, EYES_DARK_RATIO, EYES_HIDDEN_PROB, MASK_LOWER_SKIN, MASK_UPPER_SKIN } from '../../face/index.js';
import { countBlinks, decide, type LivenessCues, type LivenessDecision } from './fusion.js';
import { interOcular, nonRigidity } from './motion.js';
import { COVER, eyesCovered } from './occlusion.js';
import type { LivenessAnalysis } from './worker.js';

/** Outcomes of the liveness code table (src/face/errors.ts holds their codes and texts per version). */
export type LivenessOutcome =
  'ok' | 'noFace' | 'severalFaces' | 'faceTooSmall' | 'faceBlurry' | 'stillImage' | 'faceLost' | 'faceLeftFrame' | 'notFrontal' | 'poorQuality';

export interface VerdictRules {
  version: 2 | 3;
  minFaceRatio: number;
  minBlurVariance: number;
  secondFaceRatio: number;
  liveThreshold: number;
  reviewMargin: number;
  /** Selfie images instead of a video: no still-image, lost-face or motion rules. */
  selfies?: boolean;
}

/** Fixed rule constants (not settings: each is a property of the measurement, see docs/face.md). */
export const RULES = {
  /** Share of face frames with a second face (>= secondFaceRatio of the largest's area) that makes "several faces". */
  severalShare: 0.3,
  /** A still image: no thumbnail moves by this much (mean absolute difference, 0-255) and no landmark by more than this many inter-ocular distances (compression makes them jitter by a few hundredths). */
  stillDiff: 1.0,
  stillLandmarks: 0.08,
  /** Share of frames without a face that makes the face "lost"; only runs of at least lostRun sampled frames count (0.4 s at 5 fps), so scattered detector misses never do. */
  lostShare: 0.2,
  lostRun: 2,
  /** A box within this share of the frame's side from an edge touches it. */
  edgeMargin: 0.01,
  /** Frontal: |yaw| at most this many degrees (v3)... */
  frontalDegrees: 25,
  /** ...and |pitch| at most this many: the landmark pitch reads a frontal phone selfie (camera below the eyes) at 26-29 degrees. */
  frontalPitch: 35,
  /** ...in at least this share of the face frames (and at least 2 frames). */
  frontalShare: 0.1,
  /** Poor quality (v3): median face brightness outside this range (0-255). */
  darkBelow: 45,
  brightAbove: 220,
} as const;

export interface Verdict {
  outcome: LivenessOutcome;
  /** Why, in words, for logs and the eval. */
  reason: string;
  cues?: LivenessCues;
  decision?: LivenessDecision;
}

const median = (v: number[]) => {
  if (v.length === 0) return 0;
  const s = [...v].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

/** Turns the per-frame analysis into one outcome of the code table, then (when every check passes) the live decision. */
export function judge(a: LivenessAnalysis, rules: VerdictRules): Verdict {
  const n = a.frames.length;
  const faced = a.frames.filter((f) => f.face);
  if (faced.length === 0) return { outcome: 'noFace', reason: 'no face in any sampled frame' };
  const several = faced.filter((f) => f.faces.slice(1).some((b) => boxArea(b) >= rules.secondFaceRatio * boxArea(f.faces[0]))).length;
  if (several >= Math.max(1, RULES.severalShare * faced.length)) return { outcome: 'severalFaces', reason: `a second face in ${several} of ${faced.length} frames` };
  const shortSide = Math.min(a.width, a.height);
  // The box's height: a turned head keeps it while its width shrinks.
  const faceRatio = median(faced.map((f) => (f.face!.box.y2 - f.face!.box.y1) / shortSide));
  if (faceRatio < rules.minFaceRatio) return { outcome: 'faceTooSmall', reason: `face ${faceRatio.toFixed(3)} of the frame, below ${rules.minFaceRatio}` };
  const blur = median(faced.map((f) => f.face!.blur));
  if (rules.minBlurVariance > 0 && blur < rules.minBlurVariance) return { outcome: 'faceBlurry', reason: `sharpness ${blur.toFixed(1)}, below ${rules.minBlurVariance}` };
  const brightness = median(faced.map((f) => f.face!.brightness));
  if (rules.version === 3 && (brightness < RULES.darkBelow || brightness > RULES.brightAbove)) {
    return { outcome: 'poorQuality', reason: `face brightness ${brightness.toFixed(0)} outside ${RULES.darkBelow}-${RULES.brightAbove}` };
  }
  if (rules.version === 3) {
    const covered = coveredFrames(a);
    if (covered.count > a.cueFrames.length / 2)
      return { outcome: 'poorQuality', reason: `face covered (${covered.what}) in ${covered.count} of the ${a.cueFrames.length} best frames` };
    // The eye model misses some lenses: the pixels themselves (occlusion.ts), over every frame with a face.
    const shaded = faced.filter((f) => eyesCovered(f.face!.cover)).length;
    if (shaded > COVER.frames * faced.length)
      return { outcome: 'poorQuality', reason: `both eyes dark and flat against the cheeks (dark glasses) in ${shaded} of ${faced.length} frames` };
  }
  const maxDiff = Math.max(...a.frames.map((f) => Math.max(f.diff, f.diffFirst)));
  const lms = faced.map((f) => f.face!.landmarks);
  const spread = landmarkSpread(lms);
  if (!rules.selfies && maxDiff < RULES.stillDiff && spread < RULES.stillLandmarks)
    return { outcome: 'stillImage', reason: `largest frame difference ${maxDiff.toFixed(2)}, landmark spread ${spread.toFixed(4)}` };
  const margin = RULES.edgeMargin * Math.max(a.width, a.height);
  const atEdge = a.frames.map((f) => {
    const b = f.face?.box;
    return !!b && (b.x1 <= margin || b.y1 <= margin || b.x2 >= a.width - margin || b.y2 >= a.height - margin);
  });
  const missing = inRuns(
    a.frames.map((f) => !f.face),
    RULES.lostRun,
  );
  const touching = inRuns(atEdge, RULES.lostRun);
  if (!rules.selfies && (missing > RULES.lostShare * n || touching > RULES.lostShare * n)) {
    // v3 tells "left the frame" (the face reached an edge) from "lost"; v2 has one code for both.
    const left = atEdge.some(Boolean);
    const outcome = rules.version === 3 && left ? 'faceLeftFrame' : 'faceLost';
    return { outcome, reason: `no face in ${missing} of ${n} frames, face at the frame's edge in ${touching}` };
  }
  if (rules.version === 3) {
    // The pose is noisy: one frontal-looking frame among turned ones is an outlier, not a frontal face.
    // Yaw: the median of the landmarks', the outline's and the detector box's estimates (pose.ts).
    const frontal = faced.filter((f) => Math.abs(f.face!.yaw.yaw) <= RULES.frontalDegrees && Math.abs(f.face!.pose.pitch) <= RULES.frontalPitch).length;
    if (frontal < Math.max(rules.selfies ? 1 : 2, RULES.frontalShare * faced.length)) {
      return { outcome: 'notFrontal', reason: `${frontal} of ${faced.length} frames with |yaw| <= ${RULES.frontalDegrees} and |pitch| <= ${RULES.frontalPitch} degrees` };
    }
  }
  const bestInFaced = a.best === undefined ? 0 : Math.max(0, faced.indexOf(a.frames[a.best]));
  const cues: LivenessCues = {
    antispoof: a.antispoofAll.length ? median(a.antispoofAll) : a.antispoof.length ? median(a.antispoof) : 0.5,
    nonRigidity: nonRigidity(lms, bestInFaced),
    blinks: countBlinks(a.frames.map((f) => (f.face ? (f.face.eyeClosed[0] + f.face.eyeClosed[1]) / 2 : Number.NaN))),
    moire: a.moire,
    glare: a.glare,
    border: a.border,
    scene: a.scene?.score ?? 0,
  };
  const decision = decide(cues, rules.liveThreshold, rules.reviewMargin, { selfies: rules.selfies });
  return { outcome: 'ok', reason: `live probability ${decision.prob.toFixed(4)}`, cues, decision };
}

/** How many flags are true in runs of at least `run` consecutive frames. */
export function inRuns(flags: boolean[], run: number): number {
  let total = 0;
  let length = 0;
  for (const f of [...flags, false]) {
    if (f) length++;
    else {
      if (length >= run) total += length;
      length = 0;
    }
  }
  return total;
}

/** Largest distance any landmark moves from its position in the first face frame, in inter-ocular distances. */
function landmarkSpread(lms: number[][]): number {
  if (lms.length < 2) return 0;
  const ref = lms[0];
  const unit = Math.max(1, interOcular(ref));
  let max = 0;
  for (const lm of lms) for (let i = 0; i < lm.length; i += 2) max = Math.max(max, Math.hypot(lm[i] - ref[i], lm[i + 1] - ref[i + 1]));
  return max / unit;
}

/**
 * The face engine's occlusion rules (face search's 406) on the best frames:
 * both eyes "closed" and darker than 0.6 of the face (dark glasses), or skin
 * on the forehead but not on mouth and chin (a mask).
 */
function coveredFrames(a: LivenessAnalysis): { count: number; what: string } {
  let count = 0;
  const what = new Set<string>();
  a.cueFrames.forEach((i, k) => {
    const f = a.frames[i].face;
    const skin = a.skin[k];
    if (!f) return;
    if (f.eyeClosed[0] >= EYES_HIDDEN_PROB && f.eyeClosed[1] >= EYES_HIDDEN_PROB && f.eyeBrightness < EYES_DARK_RATIO * Math.max(1, f.brightness)) {
      count++;
      what.add('dark glasses');
    } else if (skin && skin.upper >= MASK_UPPER_SKIN && skin.lower < MASK_LOWER_SKIN) {
      count++;
      what.add('mask');
    }
  });
  return { count, what: [...what].join(', ') };
}
