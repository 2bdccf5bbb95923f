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
  const from = cv.matFromArray(4, 1, cv.CV_32FC2, corners.flatMap((p) => [p.x, p.y]));
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

/** Turns a flat card by 180 degrees (in place copy). */
export function rotate180(data: Buffer, channels: number): Buffer {
  const out = Buffer.alloc(data.length);
  const n = data.length / channels;
  for (let i = 0; i < n; i++) data.copy(out, (n - 1 - i) * channels, i * channels, (i + 1) * channels);
  return out;
}
