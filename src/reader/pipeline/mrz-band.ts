/**
 * Stage: finding a machine-readable zone in the photo itself, before (and without) any page outline. An MRZ
 * is two or three lines of OCR-B of the same length, dark on a light ground, set close one above the other:
 * in a morphological "black-hat" image (dark marks smaller than the kernel) closed along the text, each MRZ
 * line becomes one long thin blob. Blobs are found in the image as it is and turned by 90 degrees (a page
 * photographed sideways), paired with a parallel twin of about the same length just under or above them,
 * and each group is cut out of the full-resolution photo straightened (its own skew), enlarged to a fixed
 * letter height and binarised for Tesseract. Which way up the lines read is left to the reading (the caller
 * tries the crop turned by 180 degrees when it does not parse).
 */
import sharp from 'sharp';
import { loadOpenCv } from '../../platform/vision/card-outline.js';
import { fillerCells } from './mrz-glyphs.js';

/** One text line's rotated rectangle in the photo's pixels (angle in degrees, its long side along the text). */
export interface LineBox {
  cx: number;
  cy: number;
  /** Along the text. */
  length: number;
  /** Across the text (about a letter's height). */
  thickness: number;
  /** Direction of the text, degrees, in (-90, 90]. */
  angle: number;
  /** The blob is this many lines merged into one (set close, they were not told apart). */
  merged?: number;
}

export interface MrzBand {
  /** The lines of the group, in reading order when the crop is the right way up. */
  lines: LineBox[];
  /** The band cut out of the photo, straightened, letters about LETTER_HEIGHT pixels tall, binarised (PNG). */
  png: Buffer;
  /** The same crop turned by 180 degrees (the group may have been found upside down). */
  pngTurned: Buffer;
  /** Per line of each crop (top to bottom): which cells hold the filler chevron (mrz-glyphs.ts). */
  fillers: (boolean[] | undefined)[];
  fillersTurned: (boolean[] | undefined)[];
  /** How well the group looks like an MRZ (longer, straighter, more equal lines first). */
  score: number;
}

/** Working resolution of the search: the photo's long side. */
const WORK_SIDE = 1100;
/** Letter height of the crop handed to Tesseract (its LSTM reads best at 30-40 px capitals). */
const LETTER_HEIGHT = 34;
/** Gaps joined into a line, in units of the working width / 120: letters' gaps, then the filler's. */
const JOINS = [1.6, 3.5];

// Untyped: the opencv-js namespace (see card-outline.ts).
type OpenCv = any;

/**
 * Long thin blobs of dark marks in one working image: candidate text lines, in the working image's pixels.
 * `join`: how far apart (in units of the image's width / 120) marks are joined into one line; the filler
 * '<' of an MRZ leaves wider gaps than letters do.
 */
function lineBlobs(cv: OpenCv, src: OpenCv, join: number): LineBox[] {
  const w = src.cols;
  const blackhat = new cv.Mat();
  const mask = new cv.Mat();
  const out: LineBox[] = [];
  const unit = Math.max(3, Math.round(w / 120));
  const kBlack = cv.getStructuringElement(cv.MORPH_RECT, new cv.Size(unit * 3, unit * 2));
  const kJoin = cv.getStructuringElement(cv.MORPH_RECT, new cv.Size(Math.round(unit * join), 1));
  const kClean = cv.getStructuringElement(cv.MORPH_RECT, new cv.Size(Math.max(3, Math.round(unit * 0.6)), 2));
  const contours = new cv.MatVector();
  const hierarchy = new cv.Mat();
  try {
    cv.morphologyEx(src, blackhat, cv.MORPH_BLACKHAT, kBlack);
    cv.threshold(blackhat, mask, 0, 255, cv.THRESH_BINARY | cv.THRESH_OTSU);
    cv.morphologyEx(mask, mask, cv.MORPH_CLOSE, kJoin);
    cv.morphologyEx(mask, mask, cv.MORPH_OPEN, kClean);
    cv.findContours(mask, contours, hierarchy, cv.RETR_EXTERNAL, cv.CHAIN_APPROX_SIMPLE);
    for (let i = 0; i < contours.size(); i++) {
      const c = contours.get(i);
      const r = cv.minAreaRect(c);
      c.delete();
      let { width: a, height: b } = r.size;
      let angle = r.angle;
      if (a < b) {
        [a, b] = [b, a];
        angle += 90;
      }
      while (angle > 90) angle -= 180;
      while (angle <= -90) angle += 180;
      // A text line across the page: long, thin, nearly horizontal in this image.
      if (a < 0.2 * w || a < 10 * b || b < 3 || Math.abs(angle) > 25) continue;
      out.push({ cx: r.center.x, cy: r.center.y, length: a, thickness: b, angle });
    }
  } finally {
    for (const m of [blackhat, mask, kBlack, kJoin, kClean, contours, hierarchy]) m.delete();
  }
  return out;
}

/** Groups of `count` parallel lines of about the same length, set one under the other at a letter's spacing. */
function groupLines(lines: LineBox[], count: number): { lines: LineBox[]; score: number }[] {
  const sorted = [...lines].sort((a, b) => a.cy - b.cy);
  const groups: { lines: LineBox[]; score: number }[] = [];
  const follows = (a: LineBox, b: LineBox) => {
    const pitch = b.cy - a.cy;
    const h = Math.max(a.thickness, b.thickness);
    const dx = Math.abs(a.cx - b.cx);
    return (
      pitch > 0.9 * h &&
      pitch < 3.2 * h &&
      Math.abs(a.angle - b.angle) < 4 &&
      Math.min(a.thickness, b.thickness) / h > 0.5 &&
      Math.min(a.length, b.length) / Math.max(a.length, b.length) > 0.75 &&
      dx < 0.2 * Math.max(a.length, b.length)
    );
  };
  const extend = (chain: LineBox[]) => {
    if (chain.length === count) {
      const lengths = chain.map((l) => l.length);
      const evenness = Math.min(...lengths) / Math.max(...lengths);
      groups.push({ lines: chain, score: Math.min(...lengths) * evenness });
      return;
    }
    const last = chain[chain.length - 1];
    for (const next of sorted) if (next.cy > last.cy && follows(last, next)) extend([...chain, next]);
  };
  for (const first of sorted) extend([first]);
  // Lines set very close merge into one blob as thick as `count` lines: a blob that is long but not
  // thin enough to be one line of 30-44 letters stands for the whole group (ranked after real groups).
  for (const l of lines) {
    const aspect = l.length / l.thickness;
    if (aspect >= 8 && aspect <= 24) groups.push({ lines: [{ ...l, merged: count }], score: 0.6 * l.length });
  }
  return groups.sort((a, b) => b.score - a.score);
}

/**
 * The MRZ-like groups of `count` lines in a gray photo (width x height, one byte a pixel), best first, at
 * most `max`. Each comes with its straightened, enlarged, binarised crop, both ways up.
 */
export async function findMrzBands(gray: Buffer, width: number, height: number, count: 2 | 3, max = 3): Promise<MrzBand[]> {
  const cv = await loadOpenCv();
  const scale = Math.min(1, WORK_SIDE / Math.max(width, height));
  const ww = Math.max(1, Math.round(width * scale));
  const wh = Math.max(1, Math.round(height * scale));
  const small = await sharp(gray, { raw: { width, height, channels: 1 } })
    .resize(ww, wh, { fit: 'fill' })
    .greyscale()
    .raw()
    .toBuffer();
  const found: { lines: LineBox[]; score: number }[] = [];
  const src = cv.matFromArray(wh, ww, cv.CV_8UC1, small);
  const turned = new cv.Mat();
  try {
    for (const side of [false, true]) {
      // Turned clockwise by 90 degrees: a point (x, y) of the turned image is (y, wh - 1 - x) of the upright one.
      if (side) cv.rotate(src, turned, cv.ROTATE_90_CLOCKWISE);
      for (const g of JOINS.flatMap((join) => groupLines(lineBlobs(cv, side ? turned : src, join), count))) {
        const lines = g.lines.map((l) =>
          side
            ? { ...l, cx: l.cy / scale, cy: (wh - 1 - l.cx) / scale, length: l.length / scale, thickness: l.thickness / scale, angle: l.angle - 90 }
            : { ...l, cx: l.cx / scale, cy: l.cy / scale, length: l.length / scale, thickness: l.thickness / scale },
        );
        found.push({ lines, score: g.score / scale });
      }
    }
  } finally {
    src.delete();
    turned.delete();
  }
  found.sort((a, b) => b.score - a.score);
  const out: MrzBand[] = [];
  for (const g of found.slice(0, max)) out.push({ ...g, ...(await cutBand(cv, gray, width, height, g.lines, count === 2 ? 44 : 30)) });
  return out;
}

/** The group's band cut out of the photo along its own direction, letters LETTER_HEIGHT tall, binarised, both ways up. */
async function cutBand(
  cv: OpenCv,
  gray: Buffer,
  width: number,
  height: number,
  lines: LineBox[],
  cells: number,
): Promise<Pick<MrzBand, 'png' | 'pngTurned' | 'fillers' | 'fillersTurned'>> {
  const cx = lines.reduce((s, l) => s + l.cx, 0) / lines.length;
  const cy = lines.reduce((s, l) => s + l.cy, 0) / lines.length;
  const angle = lines.reduce((s, l) => s + l.angle, 0) / lines.length;
  // A merged blob's letter height: its thickness shared among its lines and their gaps (~1.2 letters apart).
  const thickness = lines.reduce((s, l) => s + (l.merged ? l.thickness / (1.2 * l.merged) : l.thickness), 0) / lines.length;
  const length = Math.max(...lines.map((l) => l.length));
  // The lines' spread across the text, measured along the band's normal.
  const rad = (angle * Math.PI) / 180;
  const across = lines.map((l) => -(l.cx - cx) * Math.sin(rad) + (l.cy - cy) * Math.cos(rad));
  const spread = Math.max(...across) - Math.min(...across) + Math.max(0, ...lines.map((l) => (l.merged ? l.thickness - thickness : 0)));
  const k = LETTER_HEIGHT / thickness;
  const outW = Math.round((length + 3 * thickness) * k);
  // A merged blob may be one MRZ line joined to a rule or a frame beside it: its crop reaches a line further each way.
  const reach = lines.some((l) => l.merged) ? 2.4 * thickness : 0;
  const outH = Math.round((spread + 2.6 * thickness + 2 * reach) * k);
  // Affine map from the photo to the crop: rotate by -angle about the band's centre, scale by k, centre in the crop.
  const cos = Math.cos(rad) * k;
  const sin = Math.sin(rad) * k;
  const m = cv.matFromArray(2, 3, cv.CV_64FC1, [cos, sin, outW / 2 - cos * cx - sin * cy, -sin, cos, outH / 2 + sin * cx - cos * cy]);
  const src = cv.matFromArray(height, width, cv.CV_8UC1, gray);
  const dst = new cv.Mat();
  try {
    cv.warpAffine(src, dst, m, new cv.Size(outW, outH), cv.INTER_CUBIC, cv.BORDER_REPLICATE);
    cv.threshold(dst, dst, 0, 255, cv.THRESH_BINARY | cv.THRESH_OTSU);
    const raw = Buffer.from(dst.data);
    const png = await sharp(raw, { raw: { width: outW, height: outH, channels: 1 } })
      .png()
      .toBuffer();
    const turned = Buffer.from(raw).reverse();
    const pngTurned = await sharp(turned, { raw: { width: outW, height: outH, channels: 1 } })
      .png()
      .toBuffer();
    return {
      png,
      pngTurned,
      fillers: fillerCells(raw, outW, outH, cells, LETTER_HEIGHT),
      fillersTurned: fillerCells(turned, outW, outH, cells, LETTER_HEIGHT),
    };
  } finally {
    for (const x of [m, src, dst]) x.delete();
  }
}
