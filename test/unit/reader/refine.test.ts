/**
 * Outline refinement (src/reader/pipeline/refine.ts) on drawn scenes with
 * known corners, and the card-edge clearing that goes with it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import type { Point } from '../../../src/platform/vision/card-outline.js';
import { CARD_HEIGHT, CARD_WIDTH } from '../../../src/reader/layouts.js';
import { refineCorners } from '../../../src/reader/pipeline/refine.js';
import { clearCardEdge } from '../../../src/reader/pipeline/warp.js';

const W = 1200;
const H = 900;

/** A light card (rounded corners, a few dark bars inside) on a darker background, striped unless told otherwise; gray pixels. */
async function scene(corners: Point[], card = '#e8e8e0', backdrop = '#3a4a5a', striped = true): Promise<Buffer> {
  const [a, b, , d] = corners;
  const angle = (Math.atan2(b.y - a.y, b.x - a.x) * 180) / Math.PI;
  const w = Math.hypot(b.x - a.x, b.y - a.y);
  const h = Math.hypot(d.x - a.x, d.y - a.y);
  let stripes = '';
  for (let i = 0; i < (striped ? 30 : 0); i++) stripes += `<rect x="0" y="${i * 30}" width="${W}" height="8" fill="#556070"/>`;
  let text = '';
  for (let i = 0; i < 6; i++) text += `<rect x="${w * 0.3}" y="${h * (0.2 + i * 0.12)}" width="${w * 0.6}" height="${h * 0.04}" fill="#222"/>`;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}"><rect width="${W}" height="${H}" fill="${backdrop}"/>${stripes}
    <g transform="translate(${a.x} ${a.y}) rotate(${angle})"><rect width="${w}" height="${h}" rx="${w * 0.037}" fill="${card}"/>${text}</g></svg>`;
  return sharp(Buffer.from(svg)).greyscale().raw().toBuffer();
}

/** Corners of a w x h card turned by `deg` around (cx, cy), clockwise from the top-left. */
function rectangle(cx: number, cy: number, w: number, h: number, deg: number): [Point, Point, Point, Point] {
  const t = (deg * Math.PI) / 180;
  const at = (x: number, y: number) => ({ x: cx + x * Math.cos(t) - y * Math.sin(t), y: cy + x * Math.sin(t) + y * Math.cos(t) });
  return [at(-w / 2, -h / 2), at(w / 2, -h / 2), at(w / 2, h / 2), at(-w / 2, h / 2)];
}

const worst = (a: Point[], b: Point[]) => Math.max(...a.map((p, i) => Math.hypot(p.x - b[i].x, p.y - b[i].y)));

describe('card outline refinement', () => {
  it('moves corners found 20-40 px off onto the card (within 1.5 px), at several angles', async () => {
    for (const deg of [-12, 0, 7]) {
      const truth = rectangle(600, 450, 800, 504, deg);
      const gray = await scene(truth);
      // A coarse outline as the finder gives it: corners cut inside and shifted.
      const offsets = [
        { x: 30, y: 22 },
        { x: -25, y: 28 },
        { x: -35, y: -20 },
        { x: 20, y: -30 },
      ];
      const coarse = truth.map((p, i) => ({ x: p.x + offsets[i].x, y: p.y + offsets[i].y })) as [Point, Point, Point, Point];
      assert.ok(worst(coarse, truth) > 30);
      const refined = refineCorners(gray, W, H, coarse);
      assert.ok(worst(refined, truth) < 1.5, `at ${deg} degrees the worst corner is ${worst(refined, truth).toFixed(2)} px off`);
    }
  });

  it('also finds a card darker than its background', async () => {
    const truth = rectangle(600, 450, 700, 441, 4);
    // (Plain background: straight background stripes nearly parallel to a side and as strong as the card's
    // edge can win over it; the striped scenes above have the usual light card.)
    const gray = await scene(truth, '#404040', '#d0d0d0', false);
    const coarse = truth.map((p) => ({ x: p.x + (p.x < 600 ? 15 : -15), y: p.y + (p.y < 450 ? 15 : -15) })) as [Point, Point, Point, Point];
    const off = worst(refineCorners(gray, W, H, coarse), truth);
    assert.ok(off < 1.5, `the worst corner is ${off.toFixed(2)} px off`);
  });

  it('keeps the given corners when there is no edge to find', async () => {
    const gray = Buffer.alloc(W * H, 128);
    const given = rectangle(600, 450, 800, 504, 3);
    assert.deepEqual(refineCorners(gray, W, H, given), given);
  });
});

describe('card edge clearing', () => {
  it('paints the border band and the rounded corners white and leaves the inside alone', () => {
    const gray = Buffer.alloc(CARD_WIDTH * CARD_HEIGHT, 40);
    clearCardEdge(gray);
    const at = (x: number, y: number) => gray[y * CARD_WIDTH + x];
    assert.equal(at(0, 300), 255);
    assert.equal(at(500, CARD_HEIGHT - 1), 255);
    assert.equal(at(10, 10), 255, 'outside the rounded corner');
    assert.equal(at(CARD_WIDTH - 11, CARD_HEIGHT - 11), 255);
    assert.equal(at(40, 40), 40, 'inside the corner arc');
    assert.equal(at(500, 300), 40);
    assert.equal(at(8, 300), 40);
  });
});
