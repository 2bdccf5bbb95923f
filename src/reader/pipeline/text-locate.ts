/**
 * Stage 3, second way: find the card by its printed text, for photos whose outline the outline finder misses or
 * mistakes (a card on patterned cloth or wood, turned by any angle, a sixth of the photo, a tight crop with a finger
 * over an edge). The text detector (detect.ts) runs over the whole photo, downscaled; its regions are measured as
 * turned rectangles (second moments), the dominant line angle is found, and the largest block of lines at that angle,
 * stacked as a card stacks them, is the card's text. The direction classifier says which way up it reads; the card's
 * rectangle follows from the block by an ID card's proportions (the text spans most of its height; a portrait on the
 * left of a front leaves the block to the right), and each side is then drawn to a straight edge near it when the
 * photo shows one (refine.ts): the outline is one cue, not a gate.
 *
 * It costs a detector run over the photo (a second one with the photo turned by 90 degrees when the first finds no
 * block or a steep one: the detector reads vertical text poorly), so the pipeline runs it only when the outline's
 * reading fails or is doubtful (run.ts).
 */
import { connectedComponents } from '../../platform/vision/components.js';
import { loadOpenCv, type Point } from '../../platform/vision/card-outline.js';
import { DB_PARAMETERS, textProbability, turnedProbability } from './detect.js';
import { refineCorners } from './refine.js';

/** A text line as a turned rectangle: centre, angle of its long side (radians, 0..pi), length and thickness. */
export interface TurnedLine {
  cx: number;
  cy: number;
  angle: number;
  length: number;
  thickness: number;
  score: number;
}

/** The card's text block: its lines, the reading direction (unit vector along the lines), its extent along and across. */
export interface TextBlock {
  lines: TurnedLine[];
  angle: number;
  /** Extent along the lines (u) and across them (v), in the frame turned by `angle`. */
  u0: number;
  u1: number;
  v0: number;
  v1: number;
  /** Median line thickness. */
  thickness: number;
}

/** The detector's input: the photo's long side scaled to this (a multiple of 32): a card a sixth of the photo keeps letters 6-9 px tall. */
const PHOTO_SIDE = 1280;
/** A region is a line when it is at least this many times longer than thick. */
const ELONGATED = 2.5;
/** Lines within this angle of the dominant one belong to the card (radians). */
const ANGLE_TOLERANCE = (7 * Math.PI) / 180;
/** A block needs this many lines (a card prints ten or more). */
const MIN_LINES = 5;

/**
 * Text regions of a detector probability map (`w` x `h`) as turned rectangles, grown back by DBNet's unclip margin,
 * in map pixels. Exported for the unit tests (drawn maps with known lines).
 */
export function turnedLines(map: Float32Array, w: number, h: number): TurnedLine[] {
  type Moments = { n: number; sx: number; sy: number; sxx: number; syy: number; sxy: number; sp: number };
  const m: Moments[] = [];
  const { components } = connectedComponents(
    (i) => map[i] > DB_PARAMETERS.pixel,
    w,
    h,
    8,
    (i, id) => {
      const x = i % w;
      const y = (i - x) / w;
      const a = (m[id] ??= { n: 0, sx: 0, sy: 0, sxx: 0, syy: 0, sxy: 0, sp: 0 });
      a.n++;
      a.sx += x;
      a.sy += y;
      a.sxx += x * x;
      a.syy += y * y;
      a.sxy += x * y;
      a.sp += map[i];
    },
  );
  const out: TurnedLine[] = [];
  for (const { id } of components) {
    const a = m[id];
    if (a.n < 12 || a.sp / a.n < DB_PARAMETERS.box) continue;
    const cx = a.sx / a.n;
    const cy = a.sy / a.n;
    const vxx = a.sxx / a.n - cx * cx + 1 / 12;
    const vyy = a.syy / a.n - cy * cy + 1 / 12;
    const vxy = a.sxy / a.n - cx * cy;
    const angle = 0.5 * Math.atan2(2 * vxy, vxx - vyy);
    const mid = (vxx + vyy) / 2;
    const spread = Math.sqrt(((vxx - vyy) / 2) ** 2 + vxy * vxy);
    // A filled rectangle of side L has variance L^2 / 12 along it.
    const kernelLength = Math.sqrt(12 * (mid + spread));
    const kernelThickness = Math.sqrt(12 * Math.max(mid - spread, 1 / 12));
    const grow = (a.n * DB_PARAMETERS.unclip) / (2 * (kernelLength + kernelThickness));
    out.push({
      cx,
      cy,
      angle: (angle + Math.PI) % Math.PI,
      length: kernelLength + 2 * grow,
      thickness: kernelThickness + 2 * grow,
      score: a.sp / a.n,
    });
  }
  return out;
}

/** The angle (0..pi) most of the lines' length runs at: a length-weighted histogram of 1-degree bins, smoothed. */
export function dominantAngle(lines: readonly TurnedLine[]): number | undefined {
  const bins = new Float64Array(180);
  for (const l of lines) if (l.length >= ELONGATED * l.thickness) bins[Math.round((l.angle * 180) / Math.PI) % 180] += l.length;
  let best = -1;
  let bestSum = 0;
  for (let b = 0; b < 180; b++) {
    let sum = 0;
    for (let d = -3; d <= 3; d++) sum += bins[(b + d + 180) % 180] * (4 - Math.abs(d));
    if (sum > bestSum) [best, bestSum] = [b, sum];
  }
  return best < 0 ? undefined : (best * Math.PI) / 180;
}

const angleGap = (a: number, b: number) => {
  const d = Math.abs(a - b) % Math.PI;
  return Math.min(d, Math.PI - d);
};

/**
 * The card's text block among the lines: those at the dominant angle, joined when they sit as a card's lines do
 * (a row or two apart, overlapping or a few letter heights apart along the row, of alike heights); the group with
 * the most text area wins. Undefined when no group has MIN_LINES lines.
 */
export function textBlock(lines: readonly TurnedLine[]): TextBlock | undefined {
  const angle = dominantAngle(lines);
  if (angle === undefined) return undefined;
  const c = Math.cos(angle);
  const s = Math.sin(angle);
  const kept = lines.filter((l) => angleGap(l.angle, angle) <= ANGLE_TOLERANCE || l.length < ELONGATED * l.thickness);
  const placed = kept.map((l) => {
    const u = l.cx * c + l.cy * s;
    const v = -l.cx * s + l.cy * c;
    // A short region (a digit, a mark) has no angle of its own: its extent along the row is its size.
    return { l, u0: u - l.length / 2, u1: u + l.length / 2, v, t: l.length < ELONGATED * l.thickness ? Math.min(l.length, l.thickness) : l.thickness };
  });
  const parent = placed.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i])));
  for (let i = 0; i < placed.length; i++) {
    for (let j = i + 1; j < placed.length; j++) {
      const a = placed[i];
      const b = placed[j];
      const t = Math.max(a.t, b.t);
      if (Math.min(a.t, b.t) * 2.5 < t) continue;
      const gapU = Math.max(a.u0, b.u0) - Math.min(a.u1, b.u1);
      if (Math.abs(a.v - b.v) <= 4.5 * t && gapU <= 6 * t) parent[find(i)] = find(j);
    }
  }
  const groups = new Map<number, typeof placed>();
  placed.forEach((p, i) => groups.set(find(i), [...(groups.get(find(i)) ?? []), p]));
  let best: typeof placed | undefined;
  let bestArea = 0;
  for (const g of groups.values()) {
    const elongated = g.filter((p) => p.l.length >= ELONGATED * p.l.thickness);
    if (elongated.length < MIN_LINES) continue;
    const area = elongated.reduce((sum, p) => sum + p.l.length * p.l.thickness, 0);
    if (area > bestArea) [best, bestArea] = [g, area];
  }
  if (!best) return undefined;
  const thick = best.map((p) => p.t).sort((a, b) => a - b);
  return {
    lines: best.map((p) => p.l),
    angle,
    u0: Math.min(...best.map((p) => p.u0)),
    u1: Math.max(...best.map((p) => p.u1)),
    v0: Math.min(...best.map((p) => p.v - p.t / 2)),
    v1: Math.max(...best.map((p) => p.v + p.t / 2)),
    thickness: thick[Math.floor(thick.length / 2)],
  };
}

/** An ID-1 card's long side over its short side. */
const ID1 = 85.6 / 53.98;
/**
 * Where a card's text block sits on it, in shares of the card's height and width (measured with this detector on
 * the flat cards of the development set's fronts found by their outline: the first line's top 3-7% below the card's
 * top, the last line's bottom 3-5% above its bottom, the block's right 4-6% from its right edge on the 9-digit
 * fronts, 13-15% on the two 2024 fronts, where refine.ts's edges must make up the difference): the margins above
 * and below, the right margin; a block narrower than `narrow` of the card's width has a portrait or fingerprints on
 * its left.
 */
export const CARD_GEOMETRY = { top: 0.05, bottom: 0.04, right: 0.04, narrow: 0.82 };

/**
 * The card's corners (clockwise from its top-left) from its text block read upright along `angle` (radians, the
 * direction the lines read in): the block's height is the card's height less its margins, the width an ID card's.
 */
export function cardFromBlock(block: Pick<TextBlock, 'u0' | 'u1' | 'v0' | 'v1'>, angle: number, geometry = CARD_GEOMETRY): [Point, Point, Point, Point] {
  const c = Math.cos(angle);
  const s = Math.sin(angle);
  const height = (block.v1 - block.v0) / (1 - geometry.top - geometry.bottom);
  const width = height * ID1;
  const top = block.v0 - geometry.top * height;
  const bottom = top + height;
  const blockWidth = block.u1 - block.u0;
  let left: number;
  if (blockWidth >= geometry.narrow * width) left = (block.u0 + block.u1) / 2 - width / 2;
  else left = block.u1 + geometry.right * width - width;
  const right = left + width;
  const toImage = (u: number, v: number): Point => ({ x: u * c - v * s, y: u * s + v * c });
  return [toImage(left, top), toImage(right, top), toImage(right, bottom), toImage(left, bottom)];
}

/** The block's extent in the frame of `angle` (after the way up is known, the frame may be turned by 180 degrees). */
function extentAt(lines: readonly TurnedLine[], angle: number): Pick<TextBlock, 'u0' | 'u1' | 'v0' | 'v1'> {
  const c = Math.cos(angle);
  const s = Math.sin(angle);
  let [u0, u1, v0, v1] = [Infinity, -Infinity, Infinity, -Infinity];
  for (const l of lines) {
    const u = l.cx * c + l.cy * s;
    const v = -l.cx * s + l.cy * c;
    const along = Math.abs(Math.cos(l.angle - angle)) * l.length + Math.abs(Math.sin(l.angle - angle)) * l.thickness;
    const across = Math.abs(Math.sin(l.angle - angle)) * l.length + Math.abs(Math.cos(l.angle - angle)) * l.thickness;
    u0 = Math.min(u0, u - along / 2);
    u1 = Math.max(u1, u + along / 2);
    v0 = Math.min(v0, v - across / 2);
    v1 = Math.max(v1, v + across / 2);
  }
  return { u0, u1, v0, v1 };
}

/** The photo (gray) turned by a quarter turn clockwise. */
function quarterTurn(gray: Buffer, width: number, height: number): Buffer {
  const out = Buffer.alloc(width * height);
  // Pixel (x, y) goes to (height - 1 - y, x) of a height x width image.
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) out[x * height + (height - 1 - y)] = gray[y * width + x];
  return out;
}

/** The text block of a gray photo at one orientation, in that orientation's pixels. */
async function blockIn(gray: Buffer, width: number, height: number): Promise<{ block: TextBlock; scale: number } | undefined> {
  const scale = Math.min(1, PHOTO_SIDE / Math.max(width, height));
  const tw = Math.max(32, Math.round((width * scale) / 32) * 32);
  const th = Math.max(32, Math.round((height * scale) / 32) * 32);
  const map = await textProbability(gray, width, height, tw, th);
  const lines = turnedLines(map, tw, th).map((l) => ({
    ...l,
    // Back to photo pixels (the map's two scales differ by the rounding to 32 only).
    cx: (l.cx + 0.5) * (width / tw) - 0.5,
    cy: (l.cy + 0.5) * (height / th) - 0.5,
    length: l.length * (width / tw),
    thickness: l.thickness * (height / th),
  }));
  const block = textBlock(lines);
  return block && { block, scale: tw / width };
}

/**
 * The block's lines cut out upright (the frame turned by `angle`) as one gray image with axis-aligned boxes, for the
 * direction classifier: the probability that the block reads upside down along `angle`.
 */
async function turnedAlong(gray: Buffer, width: number, height: number, block: TextBlock, angle: number): Promise<number | undefined> {
  const cv = await loadOpenCv();
  const { u0, u1, v0, v1 } = extentAt(block.lines, angle);
  const pad = 2 * block.thickness;
  const w = Math.max(8, Math.round(u1 - u0 + 2 * pad));
  const h = Math.max(8, Math.round(v1 - v0 + 2 * pad));
  const c = Math.cos(angle);
  const s = Math.sin(angle);
  // Upright pixel (X, Y) is photo point (u, v) = (u0 - pad + X, v0 - pad + Y) turned back.
  const ou = u0 - pad;
  const ov = v0 - pad;
  const m = cv.matFromArray(2, 3, cv.CV_64FC1, [c, -s, ou * c - ov * s, s, c, ou * s + ov * c]);
  const src = cv.matFromArray(height, width, cv.CV_8UC1, gray);
  const dst = new cv.Mat();
  try {
    cv.warpAffine(src, dst, m, new cv.Size(w, h), cv.INTER_LINEAR | cv.WARP_INVERSE_MAP, cv.BORDER_REPLICATE);
    const upright = Buffer.from(dst.data);
    const boxes = block.lines
      .filter((l) => l.length >= ELONGATED * l.thickness)
      .map((l) => {
        const u = l.cx * c + l.cy * s - ou;
        const v = -l.cx * s + l.cy * c - ov;
        return { x: u - l.length / 2, y: v - l.thickness / 2, w: l.length, h: l.thickness };
      });
    return await turnedProbability(upright, w, h, boxes);
  } finally {
    for (const mat of [m, src, dst]) mat.delete();
  }
}

export interface TextPlacement {
  corners: [Point, Point, Point, Point];
  /** The direction the card's lines read in (radians, image coordinates, y down). */
  angle: number;
  lines: number;
}

/**
 * The card found by its text in a gray photo, or undefined when the photo holds no block of card text. The photo
 * is searched as it is, and turned by a quarter turn when that finds no block or a block of lines the detector saw
 * at a steep angle (it reads vertical text poorly).
 */
export async function findCardByText(gray: Buffer, width: number, height: number): Promise<TextPlacement | undefined> {
  let found = await blockIn(gray, width, height);
  let turned = false;
  const steep = found && Math.abs(Math.sin(found.block.angle)) > Math.sin(Math.PI / 4);
  if (!found || steep) {
    const other = await blockIn(quarterTurn(gray, width, height), height, width);
    if (other && (!found || other.block.lines.length >= found.block.lines.length)) {
      found = other;
      turned = true;
    }
  }
  if (!found) return undefined;
  let { block } = found;
  if (turned) {
    // Back from the turned photo: its point (X, Y) is the photo's (Y, height - 1 - X).
    const lines = block.lines.map((l) => ({ ...l, cx: l.cy, cy: height - 1 - l.cx, angle: (l.angle + Math.PI / 2) % Math.PI }));
    block = { ...block, lines, angle: (block.angle + Math.PI / 2) % Math.PI };
  }
  // The way up: the direction classifier over the block's lines cut out along the angle.
  const p = await turnedAlong(gray, width, height, block, block.angle);
  const angle = p !== undefined && p > 0.5 ? block.angle + Math.PI : block.angle;
  const rough = cardFromBlock(extentAt(block.lines, angle), angle);
  return { corners: refineCorners(gray, width, height, rough), angle, lines: block.lines.length };
}
