/**
 * Stage 3: find the card (opencv-js, through the shared card-outline finder).
 * A quadrilateral touching the border -> 2 (corners cut off; `checkCornersInside`, after refinement); nothing plausible
 * -> 3. A photo that is all card (a scan cropped to the card) is taken whole. With `readWithoutOutline` (ID cards)
 * neither refuses: the image, or the part of it a cut-off outline covers, is read as the card instead.
 */
import { findCardOutline, type Point } from '../../platform/vision/card-outline.js';
import { ReaderFailure } from './failure.js';
import { CARD_HEIGHT, CARD_WIDTH } from '../layouts.js';

export interface Located {
  /** The card's corners in the image, clockwise from the top-left of the card as found (up to 180 degrees). */
  corners: [Point, Point, Point, Point];
  /** The whole image was taken as the card. */
  whole: boolean;
  /**
   * The card was not found whole: the image itself (or the part of it the cut-off outline covers) is read as
   * the card, and the reading decides (code 2 when printed words touch the frame, 3 when none name a card).
   */
  withoutOutline?: boolean;
}

export interface LocateOptions {
  /** Read the image as the card when no whole outline is found, instead of refusing (the ID card pipeline). */
  readWithoutOutline?: boolean;
}

const ID1 = 85.6 / 53.98;

/**
 * Code 2 when a corner is on or past the image's border. Judged on the refined outline (refine.ts): the
 * finder's own corners can be tens of pixels off (a whole card 20 px from the bottom edge was refused on them).
 * The finder flags corners within 1.5% of the border; a card photographed edge to edge can be that close and
 * still whole. Only corners on the border itself (within 0.4%) or beyond it mean the card is cut off.
 */
export function checkCornersInside(corners: readonly Point[], width: number, height: number): void {
  if (cornersCutOff(corners, width, height)) throw cutOffFailure();
}

/** Whether a corner is on the image's border (within 0.4%) or beyond it. */
export function cornersCutOff(corners: readonly Point[], width: number, height: number): boolean {
  return cutOff(corners, width, height);
}

/** A flat card's word this close to its side (flat-card pixels) touches the frame when the side is the image's. */
const FRAME_TOUCH = 10;

/**
 * Whether printed text is cut off by the frame: on a card read without its outline, a word read with some
 * confidence (two letters or digits or more) touches a side of the flat card. A card's own printing keeps a
 * margin from its edge, so a word there runs on beyond the photo.
 */
export function textCutOff(
  words: readonly { text: string; conf: number; left: number; top: number; width: number; height: number }[],
  cardWidth: number,
  cardHeight: number,
): boolean {
  return words.some(
    (w) =>
      w.conf >= 60 &&
      (w.text.match(/[\p{L}\p{N}]/gu) ?? []).length >= 2 &&
      (w.left <= FRAME_TOUCH || w.top <= FRAME_TOUCH || w.left + w.width >= cardWidth - FRAME_TOUCH || w.top + w.height >= cardHeight - FRAME_TOUCH),
  );
}

/**
 * Where a point of the flat card (read upright, or turned by 180 degrees when `turned`) lies in the image, for a
 * card placed at `corners` (clockwise from its top-left): bilinear between the corners, which for a card seen
 * nearly square on is within a pixel or two of the perspective map.
 */
export function flatToImage(corners: readonly Point[], turned: boolean): (x: number, y: number) => Point {
  const [a, b, c, d] = corners;
  return (x, y) => {
    const s = (turned ? CARD_WIDTH - x : x) / CARD_WIDTH;
    const t = (turned ? CARD_HEIGHT - y : y) / CARD_HEIGHT;
    return {
      x: a.x * (1 - s) * (1 - t) + b.x * s * (1 - t) + c.x * s * t + d.x * (1 - s) * t,
      y: a.y * (1 - s) * (1 - t) + b.y * s * (1 - t) + c.y * s * t + d.y * (1 - s) * t,
    };
  };
}

/**
 * Whether a word read with some confidence (two letters or digits or more) on a card placed in the image reaches the
 * image's frame (FRAME_TOUCH flat-card pixels, in image pixels): printed text runs on beyond the photo. `toImage`
 * maps flat-card points into the image (flatToImage).
 */
export function wordsOnFrame(
  words: readonly { text: string; conf: number; left: number; top: number; width: number; height: number }[],
  toImage: (x: number, y: number) => Point,
  width: number,
  height: number,
): boolean {
  const o = toImage(0, 0);
  const e = toImage(CARD_WIDTH, 0);
  const margin = (FRAME_TOUCH * Math.hypot(e.x - o.x, e.y - o.y)) / CARD_WIDTH;
  const off = (p: Point) => p.x <= margin || p.y <= margin || p.x >= width - 1 - margin || p.y >= height - 1 - margin;
  return words.some(
    (w) =>
      w.conf >= 60 &&
      (w.text.match(/[\p{L}\p{N}]/gu) ?? []).length >= 2 &&
      [toImage(w.left, w.top), toImage(w.left + w.width, w.top), toImage(w.left + w.width, w.top + w.height), toImage(w.left, w.top + w.height)].some(off),
  );
}

const cutOffFailure = () => new ReaderFailure(2, 'Cropping failed: corners of the card are outside the image');

function cutOff(corners: readonly Point[], width: number, height: number): boolean {
  const margin = Math.max(2, 0.004 * Math.max(width, height));
  return corners.some((p) => p.x <= margin || p.y <= margin || p.x >= width - 1 - margin || p.y >= height - 1 - margin);
}

/**
 * The axis-aligned rectangle `corners` cover inside the image, as corners clockwise from its top-left, its long
 * side horizontal (a portrait rectangle is turned by 90 degrees; the reading tries it the other way up too).
 */
export function frameRectangle(corners: readonly Point[], width: number, height: number): [Point, Point, Point, Point] {
  const x0 = Math.max(0, Math.min(...corners.map((p) => p.x)));
  const y0 = Math.max(0, Math.min(...corners.map((p) => p.y)));
  const x1 = Math.min(width - 1, Math.max(...corners.map((p) => p.x)));
  const y1 = Math.min(height - 1, Math.max(...corners.map((p) => p.y)));
  const c: [Point, Point, Point, Point] = [
    { x: x0, y: y0 },
    { x: x1, y: y0 },
    { x: x1, y: y1 },
    { x: x0, y: y1 },
  ];
  return x1 - x0 >= y1 - y0 ? c : [c[3], c[0], c[1], c[2]];
}

/** A card's outline keeps its opposite sides within a fifth of each other's length (a photo taken nearly square on). */
const SIDE_RATIO = 0.8;

/** Whether each pair of opposite sides of the quadrilateral `c` are of alike lengths (SIDE_RATIO). */
export function sidesAlike(c: readonly Point[]): boolean {
  const side = (i: number) => Math.hypot(c[(i + 1) % 4].x - c[i].x, c[(i + 1) % 4].y - c[i].y);
  const ratio = (a: number, b: number) => Math.min(a, b) / Math.max(a, b, 1e-9);
  return ratio(side(0), side(2)) >= SIDE_RATIO && ratio(side(1), side(3)) >= SIDE_RATIO;
}

/** Whether the image has an ID-1 card's shape (within 12%): a card cropped to itself, by a scanner or an app. */
export function cardShapedImage(width: number, height: number): boolean {
  return Math.abs(Math.log(Math.max(width, height) / Math.min(width, height) / ID1)) < 0.12;
}

export async function locateCard(gray: Buffer, width: number, height: number, minArea: number, options: LocateOptions = {}): Promise<Located> {
  const outline = await findCardOutline({ data: gray, width, height }, { minAreaRatio: Math.min(0.04, minArea) });
  const frame = [
    { x: 0, y: 0 },
    { x: width - 1, y: height - 1 },
  ];
  const croppedScan = cardShapedImage(width, height);
  // An image of a card's shape is the card cropped to itself (as before); any other is read for want of an outline.
  const wholeImage = (): Located => ({ corners: frameRectangle(frame, width, height), whole: true, withoutOutline: options.readWithoutOutline && !croppedScan });
  if (!outline || outline.areaRatio < minArea) {
    // A card filling the frame has no outline to find: the image is read as the card.
    if (croppedScan || options.readWithoutOutline) return wholeImage();
    throw new ReaderFailure(3, 'No ID card found in the image');
  }
  const onFrame = outline.touchesBorder && cutOff(outline.corners, width, height);
  // A scan cropped to the card, its edges on the frame: taken whole.
  if (onFrame && croppedScan && outline.areaRatio > 0.8) return wholeImage();
  // An image of a card's shape whose outline is no card seen from the front (a side a fifth shorter than its
  // opposite: an edge found on the card's print, the portrait's or the background's): the image is the card.
  if (croppedScan && !sidesAlike(outline.corners)) return wholeImage();
  if (Math.abs(Math.log(outline.aspect / ID1)) > 0.35) {
    if (options.readWithoutOutline) {
      // What the cut-off outline covers (or, an outline that is no card's, the whole image) is read as the card.
      return onFrame ? { corners: frameRectangle(outline.corners, width, height), whole: true, withoutOutline: true } : wholeImage();
    }
    // A cut-off card's outline is not card-shaped: nothing to refine, its corners are missing.
    if (onFrame) throw cutOffFailure();
    throw new ReaderFailure(3, 'No ID card found in the image');
  }
  const c = outline.corners;
  return { corners: outline.portrait ? [c[3], c[0], c[1], c[2]] : c, whole: false };
}
