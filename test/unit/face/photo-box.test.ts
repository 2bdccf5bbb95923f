import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { toPhotoBox } from '../../../src/face/service.js';

/**
 * The console draws the engine's boxes on the photo as a viewer shows it: a
 * box of the engine's turned, downscaled working image must land back on the
 * same pixels of the upload. Checked by turning a known box forward by hand.
 */
describe('toPhotoBox', () => {
  // An upright working image 400x300 (the upload was 800x600: scale 0.5) with a face at x 100-180, y 50-150.
  const face = { x1: 100, y1: 50, x2: 180, y2: 150 };
  const W = 400;
  const H = 300;
  const expected = { x1: 200, y1: 100, x2: 360, y2: 300, score: 0.9 };
  // Where that box is after turning the working image clockwise (sharp's rotate), and the turned size.
  const turned = {
    0: { box: face, width: W, height: H },
    90: { box: { x1: H - face.y2, y1: face.x1, x2: H - face.y1, y2: face.x2 }, width: H, height: W },
    180: { box: { x1: W - face.x2, y1: H - face.y2, x2: W - face.x1, y2: H - face.y1 }, width: W, height: H },
    270: { box: { x1: face.y1, y1: W - face.x2, x2: face.y2, y2: W - face.x1 }, width: H, height: W },
  } as const;
  for (const rotation of [0, 90, 180, 270] as const) {
    test(`turned ${rotation} degrees and downscaled: back on the upload's pixels`, () => {
      const t = turned[rotation];
      assert.deepEqual(toPhotoBox({ ...t.box, score: 0.9 }, { width: t.width, height: t.height, rotation, scale: 0.5 }), expected);
    });
  }
});
