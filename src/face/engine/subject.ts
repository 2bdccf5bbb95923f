/**
 * Which detections are faces, and which face is the subject of a photo.
 * Pure functions over detector boxes and their 68 landmarks, so the rules are
 * unit-tested without the models; docs/face.md says why each rule is there.
 */
import { landmarkMean } from './align.js';
import { boxArea, type Box } from './detect.js';

/** A detector box that got landmarks (pixels of the working image) and a sharpness measure. */
export interface FaceCandidate extends Box {
  /** 68 points, x,y interleaved (iBUG order). */
  landmarks: number[];
  /** Laplacian variance of the box's 64x64 grey crop (the landmark net's input, x255): low means blurry. */
  sharpness: number;
}

/**
 * Landmark geometry a face has. The landmark net always answers 68 points,
 * even on a shirt pattern; on a non-face they come out folded, squeezed or
 * outside the box, which these bounds catch. Measured on the 19 shared real
 * photos (every real face well inside) and on textures that fool the detector.
 */
export const FACE_GEOMETRY = {
  /** Eye-line tilt beyond this is not a face the landmark net read (the rotation passes handle photos turned by 90/180 degrees). */
  maxRollDeg: 70,
  /** Distance between the eye centres as a share of the box width. */
  minEyeDistance: 0.2,
  maxEyeDistance: 0.75,
  /** Nose tip to the eye midpoint, across the face, as a share of half the eye distance (1 = nose under an eye: a profile). */
  maxNoseOffset: 1.2,
  /** Eye line to mouth, down the face, as a multiple of the eye distance (frontal faces about 1.0-1.3; turned faces more). */
  minMouthDrop: 0.6,
  maxMouthDrop: 2.6,
  /** The landmarks' centre, from the box centre, as a share of the box size. */
  maxCentreShift: 0.3,
} as const;

const mean = landmarkMean;
const LEFT_EYE = [36, 37, 38, 39, 40, 41];
const RIGHT_EYE = [42, 43, 44, 45, 46, 47];
const MOUTH = [48, 51, 54, 57];

/** Why these landmarks do not describe a face in this box, or undefined when they do. */
export function implausibleGeometry(box: Box, lm: number[], rules = FACE_GEOMETRY): string | undefined {
  const w = box.x2 - box.x1;
  const h = box.y2 - box.y1;
  const [lx, ly] = mean(lm, LEFT_EYE);
  const [rx, ry] = mean(lm, RIGHT_EYE);
  const [mx, my] = mean(lm, MOUTH);
  const nx = lm[60];
  const ny = lm[61];
  const eyeDist = Math.hypot(rx - lx, ry - ly);
  if (!(eyeDist > 0)) return 'eyes on one point';
  // The face's own axes: x along the eye line (left to right in the image), y down the face.
  const ux = (rx - lx) / eyeDist;
  const uy = (ry - ly) / eyeDist;
  const roll = (Math.atan2(uy, ux) * 180) / Math.PI;
  if (Math.abs(roll) > rules.maxRollDeg) return `eye line tilted ${roll.toFixed(0)} degrees`;
  const emx = (lx + rx) / 2;
  const emy = (ly + ry) / 2;
  const across = (x: number, y: number) => (x - emx) * ux + (y - emy) * uy;
  const down = (x: number, y: number) => -(x - emx) * uy + (y - emy) * ux;
  const noseDown = down(nx, ny);
  const mouthDown = down(mx, my);
  if (!(noseDown > 0 && mouthDown > noseDown)) return 'eyes, nose and mouth not in order down the face';
  if (eyeDist < rules.minEyeDistance * w || eyeDist > rules.maxEyeDistance * w) return `eye distance ${(eyeDist / w).toFixed(2)} of the box width`;
  if (Math.abs(across(nx, ny)) > rules.maxNoseOffset * (eyeDist / 2)) return 'nose outside the eyes (not a face, or a full profile)';
  const drop = mouthDown / eyeDist;
  if (drop < rules.minMouthDrop || drop > rules.maxMouthDrop) return `mouth ${drop.toFixed(2)} eye distances below the eyes`;
  let cx = 0;
  let cy = 0;
  for (let i = 0; i < lm.length; i += 2) {
    cx += lm[i];
    cy += lm[i + 1];
  }
  cx /= lm.length / 2;
  cy /= lm.length / 2;
  if (Math.abs(cx - (box.x1 + box.x2) / 2) > rules.maxCentreShift * w || Math.abs(cy - (box.y1 + box.y2) / 2) > rules.maxCentreShift * h) return 'landmarks off the box';
  return undefined;
}

/** How the subject of a photo is chosen and when other faces compete with it (settings, see FaceConfig). */
export interface SubjectRules {
  /** 0-1: how much a face away from the centre loses (1 = a face in a corner scores nothing). */
  centreWeight: number;
  /** Another face at least this fraction of the subject's area... */
  secondFaceRatio: number;
  /** ...and at least this fraction of its sharpness makes the photo "several faces" (search). */
  secondFaceSharpness: number;
}

export const DEFAULT_SUBJECT_RULES: SubjectRules = { centreWeight: 0.5, secondFaceRatio: 0.25, secondFaceSharpness: 0.3 };

/**
 * The subject's score: linear size, times the detector's confidence, times a
 * centrality factor (1 at the centre of the photo, 1 - centreWeight in a corner).
 */
export function subjectScore(face: Box, width: number, height: number, rules: Pick<SubjectRules, 'centreWeight'>): number {
  const dx = ((face.x1 + face.x2) / 2 / width - 0.5) * 2;
  const dy = ((face.y1 + face.y2) / 2 / height - 0.5) * 2;
  const offCentre = Math.min(1, Math.hypot(dx, dy) / Math.SQRT2);
  return Math.sqrt(boxArea(face)) * face.score * (1 - rules.centreWeight * offCentre);
}

/**
 * Faces ordered subject first: the faces in focus (sharpness at least
 * `secondFaceSharpness` of the sharpest one's) by subjectScore, then the
 * out-of-focus ones (a blurred crowd behind the person is never the subject
 * while someone is in focus).
 */
export function orderBySubject<T extends FaceCandidate>(
  faces: T[],
  width: number,
  height: number,
  rules: Pick<SubjectRules, 'centreWeight' | 'secondFaceSharpness'>,
): T[] {
  const sharpest = Math.max(0, ...faces.map((f) => f.sharpness));
  return faces
    .map((f) => ({ f, focused: f.sharpness >= rules.secondFaceSharpness * sharpest, s: subjectScore(f, width, height, rules) }))
    .sort((a, b) => Number(b.focused) - Number(a.focused) || b.s - a.s)
    .map((x) => x.f);
}

/**
 * The other faces that make it unclear whose photo this is: comparable in size
 * and not much blurrier than the subject. A small or out-of-focus face behind
 * the subject (a crowd, a passer-by) is not one.
 */
export function competingFaces<T extends FaceCandidate>(subject: T, others: T[], rules: Pick<SubjectRules, 'secondFaceRatio' | 'secondFaceSharpness'>): T[] {
  const area = boxArea(subject);
  return others.filter((o) => o !== subject && boxArea(o) >= rules.secondFaceRatio * area && o.sharpness >= rules.secondFaceSharpness * subject.sharpness);
}
