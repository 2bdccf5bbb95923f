/**
 * Stage 3a: sharpen the card's outline before it is flattened.
 *
 * The outline finder works on a 480-pixel copy and approximates the (rounded)
 * card by a polygon, so its corners are often 2-5% of the card's width off;
 * measured on the synthetic set, the median corner was 20 flat-card pixels
 * away from the truth, enough to cut field bands through their text lines.
 *
 * Here each side is found again at full resolution: at points along the
 * middle 80% of the side (clear of the rounded corners), the brightness is
 * read across the side and the strongest step is taken as a candidate edge
 * point; a straight line through the most candidates (RANSAC, near the old
 * side's direction), refitted by least squares, is the new side, and the
 * corners are where the new sides meet. A side with too little support keeps
 * its old line, and a result that is not a plausible quadrilateral near the
 * old one is dropped.
 */
import type { Point } from '../../platform/vision/card-outline.js';
import { seededRandom } from '../../platform/random.js';

interface Line {
  /** A point on the line and its unit direction. */
  p: Point;
  d: Point;
}

/** Points sampled along each side. */
const SAMPLES = 48;
/** Share of each side, at each end, left out (rounded corners, corner shadows). */
const END_MARGIN = 0.1;
/** A candidate within this many pixels of a line supports it. */
const INLIER_PX = 1.5;
/** A side needs this share of its samples on one line. */
const MIN_SUPPORT = 0.35;
/** The new side may turn at most this much from the old one (radians). */
const MAX_TURN = (8 * Math.PI) / 180;

function bilinear(gray: Buffer, w: number, h: number, x: number, y: number): number {
  const x0 = Math.max(0, Math.min(w - 2, Math.floor(x)));
  const y0 = Math.max(0, Math.min(h - 2, Math.floor(y)));
  const fx = Math.max(0, Math.min(1, x - x0));
  const fy = Math.max(0, Math.min(1, y - y0));
  const i = y0 * w + x0;
  const top = gray[i] + (gray[i + 1] - gray[i]) * fx;
  const bottom = gray[i + w] + (gray[i + w + 1] - gray[i + w]) * fx;
  return top + (bottom - top) * fy;
}

/** Brightness read across one side at each sample: index `reach + s` is `s` pixels outward (negative: inward). */
function sideProfiles(gray: Buffer, w: number, h: number, a: Point, b: Point, normal: Point, reach: number): { base: Point; profile: Float64Array }[] {
  const len = Math.hypot(b.x - a.x, b.y - a.y) || 1;
  const u = { x: (b.x - a.x) / len, y: (b.y - a.y) / len };
  const out: { base: Point; profile: Float64Array }[] = [];
  for (let k = 0; k < SAMPLES; k++) {
    const t = END_MARGIN + ((1 - 2 * END_MARGIN) * (k + 0.5)) / SAMPLES;
    const base = { x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t };
    const profile = new Float64Array(2 * reach + 1);
    for (let s = -reach; s <= reach; s++) {
      let sum = 0;
      // Averaged over a short stretch along the side: one pixel of noise is not an edge.
      for (const along of [-2, 0, 2]) sum += bilinear(gray, w, h, base.x + normal.x * s + u.x * along, base.y + normal.y * s + u.y * along);
      profile[s + reach] = sum / 3;
    }
    out.push({ base, profile });
  }
  return out;
}

/** Candidates kept per sample. */
const PER_SAMPLE = 4;

interface Candidate extends Point {
  /** Which sample it came from, and how strong its step is. */
  sample: number;
  strength: number;
}

/**
 * Candidate edge points of one side: in each profile, the strongest steps of
 * the card's polarity (`polarity` 1: the card is brighter than what surrounds
 * it), local maxima at least a third as strong as the strongest. Text printed
 * along a side and background edges beside it make steps as strong as the
 * card's edge; the line with the most edge along it (robustLine) tells them apart.
 */
function edgeCandidates(profiles: { base: Point; profile: Float64Array }[], normal: Point, reach: number, polarity: number): Candidate[] {
  const out: Candidate[] = [];
  const steps = new Float64Array(2 * reach + 1);
  profiles.forEach(({ base, profile }, sample) => {
    let strongest = 0;
    for (let i = 3; i < profile.length - 3; i++) {
      // Inside (lower index) minus outside, over three pixels each way.
      steps[i] = (polarity * (profile[i - 1] + profile[i - 2] + profile[i - 3] - profile[i + 1] - profile[i + 2] - profile[i + 3])) / 3;
      strongest = Math.max(strongest, steps[i]);
    }
    // A step of a few grey levels is noise, not the card's edge.
    if (strongest < 12) return;
    const peaks: { i: number; step: number }[] = [];
    for (let i = 4; i < profile.length - 4; i++) {
      if (steps[i] >= strongest / 3 && steps[i] >= steps[i - 1] && steps[i] > steps[i + 1]) peaks.push({ i, step: steps[i] });
    }
    peaks.sort((x, y) => y.step - x.step);
    for (const { i, step } of peaks.slice(0, PER_SAMPLE)) {
      const s = i - reach;
      out.push({ x: base.x + normal.x * s, y: base.y + normal.y * s, sample, strength: step });
    }
  });
  return out;
}

/** Least-squares line (total least squares) through points. */
function fitLine(points: Point[]): Line {
  const cx = points.reduce((s, p) => s + p.x, 0) / points.length;
  const cy = points.reduce((s, p) => s + p.y, 0) / points.length;
  let sxx = 0;
  let syy = 0;
  let sxy = 0;
  for (const p of points) {
    sxx += (p.x - cx) ** 2;
    syy += (p.y - cy) ** 2;
    sxy += (p.x - cx) * (p.y - cy);
  }
  const angle = 0.5 * Math.atan2(2 * sxy, sxx - syy);
  return { p: { x: cx, y: cy }, d: { x: Math.cos(angle), y: Math.sin(angle) } };
}

const distanceTo = (line: Line, q: Point) => Math.abs((q.x - line.p.x) * line.d.y - (q.y - line.p.y) * line.d.x);

/**
 * The line with the most edge along it: RANSAC over pairs (deterministic),
 * scored by the summed step strength of its candidates, one per sample (a
 * card's edge runs the whole side, text and background lines only part of it,
 * or more weakly); near `direction`, refitted by least squares; undefined when
 * too few samples support it.
 */
function robustLine(points: Candidate[], direction: Point): Line | undefined {
  if (points.length < 2) return undefined;
  const random = seededRandom(points.length);
  const support = (line: Line) => {
    const seen = new Set<number>();
    let strength = 0;
    const inliers: Candidate[] = [];
    for (const q of points) {
      if (distanceTo(line, q) > INLIER_PX || seen.has(q.sample)) continue;
      seen.add(q.sample);
      strength += q.strength;
      inliers.push(q);
    }
    return { inliers, score: strength };
  };
  let best: { inliers: Candidate[]; score: number } = { inliers: [], score: 0 };
  for (let trial = 0; trial < 200; trial++) {
    const i = Math.floor(random() * points.length);
    const j = Math.floor(random() * points.length);
    if (points[i].sample === points[j].sample) continue;
    const dx = points[j].x - points[i].x;
    const dy = points[j].y - points[i].y;
    const len = Math.hypot(dx, dy);
    if (len < 1) continue;
    const line = { p: points[i], d: { x: dx / len, y: dy / len } };
    if (Math.abs(line.d.x * direction.y - line.d.y * direction.x) > Math.sin(MAX_TURN)) continue;
    const s = support(line);
    if (s.score > best.score) best = s;
  }
  if (best.inliers.length < SAMPLES * MIN_SUPPORT) return undefined;
  let line = fitLine(best.inliers);
  // One more round on the refitted line's own inliers.
  const again = support(line);
  if (again.inliers.length >= best.inliers.length) line = fitLine(again.inliers);
  if (Math.abs(line.d.x * direction.y - line.d.y * direction.x) > Math.sin(MAX_TURN)) return undefined;
  return line;
}

function intersect(l1: Line, l2: Line): Point | undefined {
  const det = l1.d.x * l2.d.y - l1.d.y * l2.d.x;
  if (Math.abs(det) < 1e-6) return undefined;
  const t = ((l2.p.x - l1.p.x) * l2.d.y - (l2.p.y - l1.p.y) * l2.d.x) / det;
  return { x: l1.p.x + l1.d.x * t, y: l1.p.y + l1.d.y * t };
}

function convex(c: Point[]): boolean {
  let sign = 0;
  for (let i = 0; i < 4; i++) {
    const a = c[i];
    const b = c[(i + 1) % 4];
    const d = c[(i + 2) % 4];
    const cross = (b.x - a.x) * (d.y - b.y) - (b.y - a.y) * (d.x - b.x);
    if (cross === 0) return false;
    if (sign === 0) sign = Math.sign(cross);
    else if (Math.sign(cross) !== sign) return false;
  }
  return true;
}

/**
 * The card's corners found again at full resolution (see the module comment),
 * in the same order as given; the given corners when the sides cannot be found.
 */
export function refineCorners(gray: Buffer, width: number, height: number, corners: [Point, Point, Point, Point]): [Point, Point, Point, Point] {
  const cx = corners.reduce((s, p) => s + p.x, 0) / 4;
  const cy = corners.reduce((s, p) => s + p.y, 0) / 4;
  const sides = [0, 1, 2, 3].map((i) => [corners[i], corners[(i + 1) % 4]] as const);
  const longSide = Math.max(...sides.map(([a, b]) => Math.hypot(b.x - a.x, b.y - a.y)));
  // The finder's error grows with the card's size in the photo: look 8% of the card's width each way.
  const reach = Math.max(8, Math.round(0.08 * longSide));
  const measured = sides.map(([a, b]) => {
    const len = Math.hypot(b.x - a.x, b.y - a.y) || 1;
    const d = { x: (b.x - a.x) / len, y: (b.y - a.y) / len };
    let normal = { x: -d.y, y: d.x };
    const mid = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
    if (normal.x * (mid.x - cx) + normal.y * (mid.y - cy) < 0) normal = { x: -normal.x, y: -normal.y };
    return { a, d, normal, profiles: sideProfiles(gray, width, height, a, b, normal, reach) };
  });
  // Is the card brighter than its surroundings? Far inside against far outside, over every sample.
  let contrast = 0;
  for (const m of measured) for (const { profile } of m.profiles) contrast += profile[0] - profile[profile.length - 1];
  const polarity = contrast >= 0 ? 1 : -1;
  const found = measured.map((m) => robustLine(edgeCandidates(m.profiles, m.normal, reach, polarity), m.d));
  if (found.every((l) => !l)) return corners;
  const lines = found.map((l, i): Line => l ?? { p: measured[i].a, d: measured[i].d });
  const refined = [0, 1, 2, 3].map((i) => intersect(lines[(i + 3) % 4], lines[i]));
  if (refined.some((p) => !p)) return corners;
  const out = refined as [Point, Point, Point, Point];
  // Plausible: convex, each corner near where it was, inside the image (or just outside it: a corner lost to the frame).
  const limit = 1.5 * reach;
  const near = out.every((p, i) => Math.hypot(p.x - corners[i].x, p.y - corners[i].y) <= limit);
  const inside = out.every((p) => p.x >= -reach && p.y >= -reach && p.x <= width + reach && p.y <= height + reach);
  return convex(out) && near && inside ? out : corners;
}
