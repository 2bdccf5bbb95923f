/**
 * Stage 3: find the card (opencv-js, through the shared card-outline finder).
 * A quadrilateral touching the border -> 2 (corners cut off; `checkCornersInside`, after refinement); nothing plausible
 * -> 3. A photo that is all card (a scan cropped to the card) is taken whole.
 */
import { findCardOutline, type Point } from '../../platform/vision/card-outline.js';
import { ReaderFailure } from './failure.js';

export interface Located {
  /** The card's corners in the image, clockwise from the top-left of the card as found (up to 180 degrees). */
  corners: [Point, Point, Point, Point];
  /** The whole image was taken as the card. */
  whole: boolean;
}

const ID1 = 85.6 / 53.98;

/**
 * Code 2 when a corner is on or past the image's border. Judged on the refined outline (refine.ts): the
 * finder's own corners can be tens of pixels off (a whole card 20 px from the bottom edge was refused on them).
 * The finder flags corners within 1.5% of the border; a card photographed edge to edge can be that close and
 * still whole. Only corners on the border itself (within 0.4%) or beyond it mean the card is cut off.
 */
export function checkCornersInside(corners: readonly Point[], width: number, height: number): void {
  if (cutOff(corners, width, height)) throw cutOffFailure();
}

const cutOffFailure = () => new ReaderFailure(2, 'Cropping failed: corners of the card are outside the image');

function cutOff(corners: readonly Point[], width: number, height: number): boolean {
  const margin = Math.max(2, 0.004 * Math.max(width, height));
  return corners.some((p) => p.x <= margin || p.y <= margin || p.x >= width - 1 - margin || p.y >= height - 1 - margin);
}

export async function locateCard(gray: Buffer, width: number, height: number, minArea: number): Promise<Located> {
  const outline = await findCardOutline({ data: gray, width, height }, { minAreaRatio: Math.min(0.04, minArea) });
  const aspect = Math.max(width, height) / Math.min(width, height);
  const wholeImage = (): Located => {
    const c: [Point, Point, Point, Point] = [
      { x: 0, y: 0 },
      { x: width - 1, y: 0 },
      { x: width - 1, y: height - 1 },
      { x: 0, y: height - 1 },
    ];
    // Long side horizontal: a portrait scan is turned by 90 degrees.
    return { corners: width >= height ? c : [c[3], c[0], c[1], c[2]], whole: true };
  };
  const croppedScan = Math.abs(Math.log(aspect / ID1)) < 0.12;
  if (!outline || outline.areaRatio < minArea) {
    if (croppedScan) return wholeImage();
    throw new ReaderFailure(3, 'No ID card found in the image');
  }
  const onFrame = outline.touchesBorder && cutOff(outline.corners, width, height);
  // A scan cropped to the card, its edges on the frame: taken whole.
  if (onFrame && croppedScan && outline.areaRatio > 0.8) return wholeImage();
  if (Math.abs(Math.log(outline.aspect / ID1)) > 0.35) {
    // A cut-off card's outline is not card-shaped: nothing to refine, its corners are missing.
    if (onFrame) throw cutOffFailure();
    throw new ReaderFailure(3, 'No ID card found in the image');
  }
  const c = outline.corners;
  return { corners: outline.portrait ? [c[3], c[0], c[1], c[2]] : c, whole: false };
}
