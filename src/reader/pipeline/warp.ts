/** Stage 3b: flatten the located card to CARD_WIDTH x CARD_HEIGHT (opencv-js perspective warp). */
import { loadOpenCv, type Point } from '../../platform/vision/card-outline.js';
import { CARD_HEIGHT, CARD_WIDTH } from '../layouts.js';

export interface FlatCard {
  /** Gray, CARD_WIDTH x CARD_HEIGHT. */
  gray: Buffer;
  /** RGB, present when asked for (face crop). */
  rgb?: Buffer;
}

async function warpChannels(data: Buffer, channels: 1 | 3, width: number, height: number, corners: Point[]): Promise<Buffer> {
  const cv = await loadOpenCv();
  const src = cv.matFromArray(height, width, channels === 1 ? cv.CV_8UC1 : cv.CV_8UC3, data);
  const from = cv.matFromArray(
    4,
    1,
    cv.CV_32FC2,
    corners.flatMap((p) => [p.x, p.y]),
  );
  const to = cv.matFromArray(4, 1, cv.CV_32FC2, [0, 0, CARD_WIDTH, 0, CARD_WIDTH, CARD_HEIGHT, 0, CARD_HEIGHT]);
  const m = cv.getPerspectiveTransform(from, to);
  const dst = new cv.Mat();
  try {
    cv.warpPerspective(src, dst, m, new cv.Size(CARD_WIDTH, CARD_HEIGHT), cv.INTER_AREA, cv.BORDER_REPLICATE);
    return Buffer.from(dst.data);
  } finally {
    for (const mat of [src, from, to, m, dst]) mat.delete();
  }
}

export async function warpCard(
  image: { gray: Buffer; rgb: Buffer; width: number; height: number },
  corners: [Point, Point, Point, Point],
  withColour: boolean,
): Promise<FlatCard> {
  const gray = await warpChannels(image.gray, 1, image.width, image.height, corners);
  const rgb = withColour ? await warpChannels(image.rgb, 3, image.width, image.height, corners) : undefined;
  return { gray, rgb };
}

/** An ID-1 card's corner radius (3.18 mm of 85.6 mm) in flat-card pixels, and the edge band cleared with it. */
const CORNER_RADIUS = Math.round((3.18 / 85.6) * CARD_WIDTH);
const EDGE = 6;

/**
 * Paints what lies outside the card (the background at the rounded corners) and
 * a thin band along its edge white, in place. With an exact outline the card's
 * edge runs along the border of every band that touches it, and Tesseract then
 * takes a whole band for one line of "text" (a fingerprint-box header read as
 * nothing).
 */
export function clearCardEdge(gray: Buffer): void {
  const r = CORNER_RADIUS;
  for (let y = 0; y < CARD_HEIGHT; y++) {
    const dy = y < r ? r - y : y >= CARD_HEIGHT - r ? y - (CARD_HEIGHT - 1 - r) : 0;
    for (let x = 0; x < CARD_WIDTH; x++) {
      const dx = x < r ? r - x : x >= CARD_WIDTH - r ? x - (CARD_WIDTH - 1 - r) : 0;
      const outside = x < EDGE || y < EDGE || x >= CARD_WIDTH - EDGE || y >= CARD_HEIGHT - EDGE || (dx > 0 && dy > 0 && Math.hypot(dx, dy) > r - EDGE);
      if (outside) gray[y * CARD_WIDTH + x] = 255;
    }
  }
}

/** Turns a flat card by 180 degrees (in place copy). */
export function rotate180(data: Buffer, channels: number): Buffer {
  const out = Buffer.alloc(data.length);
  const n = data.length / channels;
  for (let i = 0; i < n; i++) {
    const from = i * channels;
    const to = (n - 1 - i) * channels;
    for (let c = 0; c < channels; c++) out[to + c] = data[from + c];
  }
  return out;
}
