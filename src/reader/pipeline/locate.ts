/**
 * Stage 3: find the card (opencv-js, through the shared card-outline finder).
 * A quadrilateral touching the border -> 2 (corners cut off); nothing plausible
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
  // The finder flags corners within 1.5% of the border; a card photographed edge to edge can be that
  // close and still whole. Only corners on the border itself (within 0.4%) mean the card is cut off.
  const margin = Math.max(2, 0.004 * Math.max(width, height));
  const cutOff = outline.corners.some((p) => p.x <= margin || p.y <= margin || p.x >= width - 1 - margin || p.y >= height - 1 - margin);
  if (outline.touchesBorder && cutOff) {
    if (croppedScan && outline.areaRatio > 0.8) return wholeImage();
    throw new ReaderFailure(2, 'Cropping failed: corners of the card are outside the image');
  }
  if (Math.abs(Math.log(outline.aspect / ID1)) > 0.35) throw new ReaderFailure(3, 'No ID card found in the image');
  const c = outline.corners;
  return { corners: outline.portrait ? [c[3], c[0], c[1], c[2]] : c, whole: false };
}
