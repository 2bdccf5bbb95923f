import { boxArea, type Box, EYES_DARK_RATIO, EYES_HIDDEN_PROB, MASK_LOWER_SKIN, MASK_UPPER_SKIN } from '../../face/index.js';
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

/**
 * The input checks' criteria (not settings: each is a property of the measurement; docs/liveness.md, "Input
 * checks", states each with its reason). Frames are the sampled ones (SAOLA_LIVENESS_SAMPLE_FPS, 5 a second).
 */
export const RULES = {
  /** 408: a second face (>= secondFaceRatio of the largest's area) in this share of the face frames. */
  severalShare: 0.3,
  /**
   * 413, a still image: the 90th percentile of the frames' thumbnail differences (against the previous and the
   * first frame, mean absolute, 0-255) below stillDiff, and the 90th percentile of the landmarks' distance from
   * their median position below stillLandmarks inter-ocular distances. Percentiles, not maxima: one frame of
   * encoder noise or one jittery landmark fit does not make a still photo move.
   */
  stillDiff: 1.0,
  stillLandmarks: 0.08,
  /** 410 (face lost): no face in runs of at least lostRun sampled frames (0.6 s at 5 fps) adding up to more than lostShare of the frames; a hand passing in front of the face for a moment is not a lost face. */
  lostShare: 0.2,
  lostRun: 3,
  /**
   * 423: the face box is cut by the frame's edge (within edgeMargin of the frame's long side) and the part cut off
   * is at least outShare of the face (its width or height against the face's own uncut proportions), in runs of at
   * least outRun frames adding up to more than outFrames of the frames. A close-up selfie whose chin or forehead
   * touches the edge loses a few percent of the box, not a quarter.
   */
  edgeMargin: 0.01,
  outShare: 0.25,
  outRun: 2,
  outFrames: 0.2,
  /** The detector box's width over its height on an uncut face, when every frame's box touches an edge (measured on the test photos: 0.74-0.82). */
  boxAspect: 0.78,
  /** 422: |yaw| at most this many degrees... */
  frontalDegrees: 25,
  /** ...and |pitch| at most this many: the landmark pitch reads a frontal phone selfie (camera below the eyes) at 26-29 degrees. */
  frontalPitch: 35,
  /** ...in at least this share of the face frames (and at least 2 frames). */
  frontalShare: 0.1,
  /** 406 (v3): median brightness of the aligned face (0-255) below darkBelow or above brightAbove. */
  darkBelow: 30,
  brightAbove: 225,
  /** A check is "near its limit" (v3 `warning`) within this share of the limit on the passing side. */
  nearShare: 0.25,
} as const;

export interface Verdict {
  outcome: LivenessOutcome;
  /** Why, in words, for logs and the eval. */
  reason: string;
  cues?: LivenessCues;
  decision?: LivenessDecision;
  /** Checks that passed near their limit, in words (v3 `warning`). */
  near: string[];
}

const median = (v: number[]) => {
  if (v.length === 0) return 0;
  const s = [...v].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

const percentile = (v: number[], p: number) => {
  if (v.length === 0) return 0;
  const s = [...v].sort((a, b) => a - b);
  return s[Math.floor(p * (s.length - 1))];
};

/** Turns the per-frame analysis into one outcome of the code table, then (when every check passes) the live decision. */
export function judge(a: LivenessAnalysis, rules: VerdictRules): Verdict {
  const near: string[] = [];
  const refuse = (outcome: LivenessOutcome, reason: string): Verdict => ({ outcome, reason, near });
  /** Whether `value`, above its lower `limit`, is within RULES.nearShare of it. */
  const close = (value: number, limit: number) => value <= limit * (1 + RULES.nearShare);
  const n = a.frames.length;
  const faced = a.frames.filter((f) => f.face);
  if (faced.length === 0) return refuse('noFace', 'no face in any sampled frame');
  const several = faced.filter((f) => f.faces.slice(1).some((b) => boxArea(b) >= rules.secondFaceRatio * boxArea(f.faces[0]))).length;
  const severalLimit = Math.max(1, RULES.severalShare * faced.length);
  if (several >= severalLimit) return refuse('severalFaces', `a second face in ${several} of ${faced.length} frames`);
  if (several > 0) near.push(`a second face in ${several} of ${faced.length} frames (refused from ${Math.ceil(severalLimit)})`);
  const shortSide = Math.min(a.width, a.height);
  // The box's height: a turned head keeps it while its width shrinks.
  const faceRatio = median(faced.map((f) => (f.face!.box.y2 - f.face!.box.y1) / shortSide));
  if (faceRatio < rules.minFaceRatio) return refuse('faceTooSmall', `face ${faceRatio.toFixed(3)} of the frame, below ${rules.minFaceRatio}`);
  if (close(faceRatio, rules.minFaceRatio)) near.push(`face small: ${faceRatio.toFixed(2)} of the frame's short side (refused below ${rules.minFaceRatio})`);
  const blur = median(faced.map((f) => f.face!.blur));
  if (rules.minBlurVariance > 0 && blur < rules.minBlurVariance) return refuse('faceBlurry', `sharpness ${blur.toFixed(1)}, below ${rules.minBlurVariance}`);
  if (rules.minBlurVariance > 0 && close(blur, rules.minBlurVariance)) near.push(`face blurry: sharpness ${blur.toFixed(0)} (refused below ${rules.minBlurVariance})`);
  const brightness = median(faced.map((f) => f.face!.brightness));
  if (rules.version === 3) {
    if (brightness < RULES.darkBelow || brightness > RULES.brightAbove)
      return refuse('poorQuality', `face brightness ${brightness.toFixed(0)} outside ${RULES.darkBelow}-${RULES.brightAbove}`);
    if (close(brightness, RULES.darkBelow)) near.push(`face dark: brightness ${brightness.toFixed(0)} (refused below ${RULES.darkBelow})`);
    if (brightness > RULES.brightAbove - RULES.nearShare * (255 - RULES.brightAbove))
      near.push(`face bright: brightness ${brightness.toFixed(0)} (refused above ${RULES.brightAbove})`);
    const covered = coveredFrames(a);
    if (covered.count > a.cueFrames.length / 2)
      return refuse('poorQuality', `face covered (${covered.what}) in ${covered.count} of the ${a.cueFrames.length} best frames`);
    // The eye model misses some lenses: the pixels themselves (occlusion.ts), over every frame with a face.
    const shaded = faced.filter((f) => eyesCovered(f.face!.cover)).length;
    if (shaded > COVER.frames * faced.length)
      return refuse('poorQuality', `both eyes dark and flat against the cheeks (dark glasses) in ${shaded} of ${faced.length} frames`);
  }
  const lms = faced.map((f) => f.face!.landmarks);
  const moved = Math.max(
    percentile(
      a.frames.map((f) => f.diff),
      0.9,
    ),
    percentile(
      a.frames.map((f) => f.diffFirst),
      0.9,
    ),
  );
  const spread = landmarkSpread(lms);
  if (!rules.selfies && moved < RULES.stillDiff && spread < RULES.stillLandmarks)
    return refuse('stillImage', `frame difference ${moved.toFixed(2)} (90th percentile), landmark spread ${spread.toFixed(4)}`);
  if (!rules.selfies) {
    const missing = inRuns(
      a.frames.map((f) => !f.face),
      RULES.lostRun,
    );
    const cut = outOfFrame(a);
    const out = inRuns(
      cut.map((c) => c >= RULES.outShare),
      RULES.outRun,
    );
    // The face vanished right after a frame where the edge cut a part of it: it left through the edge.
    const leftThrough = a.frames.some((f, i) => !f.face && i > 0 && cut[i - 1] >= RULES.outShare / 2);
    if (out > RULES.outFrames * n)
      return refuse(rules.version === 3 ? 'faceLeftFrame' : 'faceLost', `a quarter of the face or more out of the frame in ${out} of ${n} frames`);
    if (missing > RULES.lostShare * n)
      return refuse(
        rules.version === 3 && leftThrough ? 'faceLeftFrame' : 'faceLost',
        `no face in ${missing} of ${n} frames${leftThrough ? ', after it reached the edge' : ''}`,
      );
    if (missing > (RULES.lostShare * n) / 2) near.push(`face lost: no face in ${missing} of ${n} frames (refused above ${Math.floor(RULES.lostShare * n)})`);
    const edgy = cut.filter((c) => c >= RULES.outShare * (1 - RULES.nearShare)).length;
    if (edgy > 0) near.push(`face at the frame's edge: part of it out of the frame in ${edgy} of ${n} frames`);
  }
  if (rules.version === 3) {
    // The pose is noisy: one frontal-looking frame among turned ones is an outlier, not a frontal face.
    // Yaw: the median of the landmarks', the outline's and the detector box's estimates (pose.ts).
    const frontal = faced.filter((f) => Math.abs(f.face!.yaw.yaw) <= RULES.frontalDegrees && Math.abs(f.face!.pose.pitch) <= RULES.frontalPitch).length;
    const needed = Math.max(rules.selfies ? 1 : 2, RULES.frontalShare * faced.length);
    if (frontal < needed) {
      return refuse('notFrontal', `${frontal} of ${faced.length} frames with |yaw| <= ${RULES.frontalDegrees} and |pitch| <= ${RULES.frontalPitch} degrees`);
    }
    // Every frame frontal is nowhere near the limit, however few frames there are (one selfie).
    if (frontal < 2 * needed && frontal < faced.length) near.push(`face turned: frontal in ${frontal} of ${faced.length} frames (refused below ${Math.ceil(needed)})`);
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
  return { outcome: 'ok', reason: `live probability ${decision.prob.toFixed(4)}`, cues, decision, near };
}

/**
 * Per frame, the share of the face the frame's edge cut off (0 when the box touches no edge or there is no face):
 * the detector's boxes stop at the frame, so a box touching an edge is shorter along that axis than the face.
 * Its uncut length comes from the other axis and the face's own width/height ratio, the median over frames
 * whose box touches no edge (RULES.boxAspect when there are none).
 */
export function outOfFrame(a: LivenessAnalysis): number[] {
  const margin = RULES.edgeMargin * Math.max(a.width, a.height);
  const touches = (b: Box) => ({
    x: b.x1 <= margin || b.x2 >= a.width - margin,
    y: b.y1 <= margin || b.y2 >= a.height - margin,
  });
  const free = a.frames.flatMap((f) => {
    const b = f.face?.box;
    if (!b) return [];
    const t = touches(b);
    return t.x || t.y ? [] : [(b.x2 - b.x1) / Math.max(1, b.y2 - b.y1)];
  });
  const aspect = free.length ? median(free) : RULES.boxAspect;
  return a.frames.map((f) => {
    const b = f.face?.box;
    if (!b) return 0;
    const t = touches(b);
    const w = b.x2 - b.x1;
    const h = b.y2 - b.y1;
    if (t.x && t.y) return Math.max(0, 1 - (w * h) / (Math.max(w, h * aspect) * Math.max(h, w / aspect)));
    if (t.x) return Math.max(0, 1 - w / (h * aspect));
    if (t.y) return Math.max(0, 1 - h / (w / aspect));
    return 0;
  });
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

/** The 90th percentile over frames of the largest distance of a landmark from its median position, in inter-ocular distances. */
function landmarkSpread(lms: number[][]): number {
  if (lms.length < 2) return 0;
  const centre = lms[0].map((_, i) => median(lms.map((lm) => lm[i])));
  const unit = Math.max(1, interOcular(centre));
  const far = lms.map((lm) => {
    let max = 0;
    for (let i = 0; i < lm.length; i += 2) max = Math.max(max, Math.hypot(lm[i] - centre[i], lm[i + 1] - centre[i + 1]));
    return max / unit;
  });
  return percentile(far, 0.9);
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
