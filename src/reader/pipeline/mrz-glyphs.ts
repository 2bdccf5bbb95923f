/**
 * Stage: the filler of an MRZ told by its shape. Tesseract's `eng` model reads OCR-B's chevron `<` as K
 * (or C, E, S) in long runs, and a K is worth 20, nothing modulo 10, so no check digit can catch it. An
 * MRZ has a glyph in every one of its cells (no spaces): in a binarised, straightened crop each line is
 * a row of exactly 30 or 44 ink blobs, and a chevron is the blob whose left quarter has ink only about
 * its middle row and whose right quarter has ink at its top and bottom but not in between (a K has a
 * full stem on its left). The OCR line is then aligned to the cells, and chevron cells are filler.
 */

import { connectedComponents, type Component } from '../../platform/vision/components.js';

type Blob = Component;

/** Ink blobs (8-connected, value 0) of a binarised image, with a label image. */
function inkBlobs(raw: Uint8Array, w: number, h: number): { blobs: Blob[]; labels: Int32Array } {
  const { components, labels } = connectedComponents((i) => raw[i] === 0, w, h, 8);
  return { blobs: components, labels };
}

/** Whether a blob has the chevron's shape: ink on its left only about the middle, on its right at top and bottom only. */
function isChevron(b: Blob, labels: Int32Array, w: number): boolean {
  const bw = b.x1 - b.x0 + 1;
  const bh = b.y1 - b.y0 + 1;
  if (bw < 4 || bh < 6) return false;
  const rowsWithInk = (xa: number, xb: number) => {
    const rows: boolean[] = [];
    for (let y = b.y0; y <= b.y1; y++) {
      let ink = false;
      for (let x = xa; x <= xb && !ink; x++) ink = labels[y * w + x] === b.id;
      rows.push(ink);
    }
    return rows;
  };
  const quarter = Math.max(1, Math.round(bw / 4));
  const left = rowsWithInk(b.x0, b.x0 + quarter - 1);
  const right = rowsWithInk(b.x1 - quarter + 1, b.x1);
  const at = (rows: boolean[], f0: number, f1: number) => rows.slice(Math.floor(f0 * bh), Math.ceil(f1 * bh)).some(Boolean);
  const leftMiddleOnly = !at(left, 0, 0.22) && !at(left, 0.78, 1) && at(left, 0.35, 0.65);
  const rightArms = at(right, 0, 0.2) && at(right, 0.8, 1) && !at(right, 0.4, 0.6);
  return leftMiddleOnly && rightArms;
}

/**
 * For each text line of a binarised MRZ crop (top to bottom) holding exactly `cells` glyphs: whether each
 * cell's glyph is the filler chevron; `undefined` for a line whose glyphs could not be counted to `cells`
 * (touching or broken glyphs: nothing is said of it). `letter`: the crop's letter height in pixels.
 */
export function fillerCells(raw: Uint8Array, w: number, h: number, cells: number, letter: number): (boolean[] | undefined)[] {
  const { blobs, labels } = inkBlobs(raw, w, h);
  const glyphs = blobs.filter((b) => {
    const bh = b.y1 - b.y0 + 1;
    const bw = b.x1 - b.x0 + 1;
    return bh >= 0.45 * letter && bh <= 1.6 * letter && bw <= 1.5 * letter;
  });
  glyphs.sort((a, b) => a.y0 + a.y1 - (b.y0 + b.y1));
  const lines: Blob[][] = [];
  for (const g of glyphs) {
    const cy = (g.y0 + g.y1) / 2;
    const line = lines.find((l) => Math.abs((l[0].y0 + l[0].y1) / 2 - cy) < 0.5 * letter);
    if (line) line.push(g);
    else lines.push([g]);
  }
  return lines
    .filter((l) => l.length >= cells / 2)
    .map((l) => {
      if (l.length !== cells) return undefined;
      return l.sort((a, b) => a.x0 - b.x0).map((b) => isChevron(b, labels, w));
    });
}

/**
 * An OCR line set on the MRZ's cells: aligned (edit distance; a letter read for a chevron costs less than
 * other slips, since OCR reads chevrons as letters), every chevron cell is filler and every other cell
 * keeps the character OCR read there; a character OCR read between cells is dropped, a cell it missed
 * left out (the line then reads short, as before).
 */
export function withFillers(read: string, chevrons: boolean[]): string {
  const m = read.length;
  const n = chevrons.length;
  const sub = (c: string, chevron: boolean) => (chevron ? (c === '<' ? 0 : 0.6) : c === '<' ? 1 : 0);
  const GAP = 0.8;
  // A letter OCR reads for a chevron, added beside a filler ("<K"), is the likeliest to drop: ties between
  // dropping it and dropping a letter elsewhere go its way.
  // So is a character OCR doubled (00 read 000).
  const drop = (i: number) =>
    'KCESRG'.includes(read[i]) && (read[i - 1] === '<' || read[i + 1] === '<') ? 0.6 : read[i] === read[i - 1] || read[i] === read[i + 1] ? 0.7 : GAP;
  const cost: number[][] = Array.from({ length: m + 1 }, () => new Array<number>(n + 1).fill(0));
  for (let i = 1; i <= m; i++) cost[i][0] = cost[i - 1][0] + drop(i - 1);
  for (let j = 1; j <= n; j++) cost[0][j] = j * GAP;
  for (let i = 1; i <= m; i++)
    for (let j = 1; j <= n; j++) cost[i][j] = Math.min(cost[i - 1][j - 1] + sub(read[i - 1], chevrons[j - 1]), cost[i - 1][j] + drop(i - 1), cost[i][j - 1] + GAP);
  const out: string[] = [];
  let i = m;
  let j = n;
  while (j > 0) {
    if (i > 0 && cost[i][j] === cost[i - 1][j - 1] + sub(read[i - 1], chevrons[j - 1])) {
      out.push(chevrons[j - 1] ? '<' : read[i - 1]);
      i--;
      j--;
    } else if (i > 0 && cost[i][j] === cost[i - 1][j] + drop(i - 1)) i--;
    else {
      if (chevrons[j - 1]) out.push('<');
      j--;
    }
  }
  return out.reverse().join('');
}
