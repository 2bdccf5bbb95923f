/**
 * The guide's ID photo quality check: each score measured on generated
 * versions of a committed synthetic card photo (sharp, blurred, dark,
 * overexposed, with a lamp's reflection, too small), the score maps and
 * thresholds, and the HTTP shapes of /vision/idr-qual/vnm and ?quality_check=1.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { startTestApp, type TestApp } from '../../../fixtures/servers/app.js';
import {
  blurScore,
  brightSpotsScore,
  glareSpots,
  luminanceScore,
  measureQualityTask,
  quadMask,
  qualityPassed,
  qualityResult,
  type QualityMeasures,
} from '../../../src/reader/quality-check.js';
import { fixture, postForm, truth } from '../../support/reader/helpers.js';

const card = fixture('chip-front.jpg');
const measure = async (image: Buffer) => {
  const out = await measureQualityTask({ image, maxPixels: 40_000_000, minCardArea: 0.12 });
  assert.ok(out.ok);
  return { measures: out.measures, result: qualityResult(out.measures) };
};
const failed = (r: ReturnType<typeof qualityResult>) =>
  Object.entries(r.final_result)
    .filter(([, v]) => v === 'likely')
    .map(([k]) => k);

/** A lamp's reflection: a blown-out disc with a soft rim, in the middle of the card. */
async function withGlare(image: Buffer): Promise<Buffer> {
  const { width, height } = await sharp(image).metadata();
  const r = Math.round(Math.min(width!, height!) * 0.12);
  const svg = `<svg width="${width}" height="${height}"><defs><radialGradient id="g"><stop offset="0.6" stop-color="#fff" stop-opacity="1"/><stop offset="1" stop-color="#fff" stop-opacity="0"/></radialGradient></defs><circle cx="${width! * 0.55}" cy="${height! * 0.5}" r="${r}" fill="url(#g)"/></svg>`;
  return sharp(image)
    .composite([{ input: Buffer.from(svg) }])
    .jpeg({ quality: 92 })
    .toBuffer();
}

describe('quality check measurements', () => {
  it('passes the sharp, well-lit card photo, finding the card', async () => {
    const { measures, result } = await measure(card);
    assert.equal(measures.cardFound, true);
    assert.deepEqual(failed(result), []);
    assert.ok(qualityPassed(result));
    const meta = await sharp(card).metadata();
    assert.equal(result.resolution, `${meta.width}x${meta.height}`);
    for (const k of ['bright_spots_score', 'blur_score', 'luminance_score'] as const) assert.match(result[k], /^\d{1,3}\.\d{2}$/);
  });

  it('a blurred copy: blur_score at or over 82, blurred likely, nothing else', async () => {
    const sharpScore = Number((await measure(card)).result.blur_score);
    const { result } = await measure(await sharp(card).blur(6).jpeg().toBuffer());
    assert.ok(Number(result.blur_score) >= 82 && Number(result.blur_score) > sharpScore, result.blur_score);
    assert.deepEqual(failed(result), ['blurredLikelihood']);
  });

  it('a dark copy and an overexposed copy: bad luminance likely, on the right side of the band', async () => {
    const dark = (await measure(await sharp(card).linear(0.3, 0).jpeg().toBuffer())).result;
    assert.ok(Number(dark.luminance_score) <= 42, dark.luminance_score);
    assert.ok(failed(dark).includes('badLumimanceLikelihood'));
    const bright = (await measure(await sharp(card).linear(1.6, 90).jpeg().toBuffer())).result;
    assert.ok(Number(bright.luminance_score) >= 93, bright.luminance_score);
    assert.ok(failed(bright).includes('badLumimanceLikelihood'));
  });

  it("a lamp's reflection on the card: bright spots likely; a white background around the card is not glare", async () => {
    const glare = (await measure(await withGlare(card))).result;
    assert.ok(Number(glare.bright_spots_score) >= 85, glare.bright_spots_score);
    assert.deepEqual(failed(glare), ['havingBrightSpotsLikelihood']);
    // The same card on a wide white margin: blown out, but touching the frame's edge.
    const meta = await sharp(card).metadata();
    const margin = Math.round(meta.width! * 0.15);
    const onWhite = await sharp(card).extend({ top: margin, bottom: margin, left: margin, right: margin, background: '#ffffff' }).jpeg().toBuffer();
    const white = (await measure(onWhite)).result;
    assert.equal(white.final_result.havingBrightSpotsLikelihood, 'unlikely', white.bright_spots_score);
  });

  it('below 640x480 (either way round): low resolution likely', async () => {
    const small = (await measure(await sharp(card).resize(560).jpeg().toBuffer())).result;
    assert.equal(small.final_result.lowResolutionLikelihood, 'likely');
    assert.match(small.resolution, /^560x\d+$/);
    const tall = (await measure(await sharp(card).rotate(90).jpeg().toBuffer())).result;
    assert.equal(tall.final_result.lowResolutionLikelihood, 'unlikely');
  });

  it('refuses what is not an image (7) or is corrupt (8), as the reader does', async () => {
    assert.deepEqual(
      await measureQualityTask({ image: Buffer.from('hello, not an image at all'), maxPixels: 1e7, minCardArea: 0.12 }).then((o) => (o.ok ? 0 : o.code)),
      7,
    );
    assert.deepEqual(await measureQualityTask({ image: card.subarray(0, 2000), maxPixels: 1e7, minCardArea: 0.12 }).then((o) => (o.ok ? 0 : o.code)), 8);
  });
});

describe('quality check maps and rules', () => {
  it('score maps cross the guide thresholds where documented', () => {
    assert.equal(brightSpotsScore(0), 0);
    assert.ok(Math.abs(brightSpotsScore(0.02) - 85) < 1e-9);
    assert.ok(brightSpotsScore(0.05) > 85 && brightSpotsScore(0.01) < 85);
    assert.ok(Math.abs(blurScore(12) - 82) < 1e-9, String(blurScore(12)));
    assert.ok(blurScore(0) === 100 && blurScore(500) < 20 && blurScore(11) > 82 && blurScore(13) < 82);
    assert.equal(luminanceScore(255), 100);
    assert.equal(luminanceScore(0), 0);
  });

  it('final_result: each criterion on its own threshold; the band of luminance is open', () => {
    const base: QualityMeasures = { width: 1000, height: 630, cardFound: true, glare: 0, sharpness: 1000, luminance: 150 };
    assert.ok(qualityPassed(qualityResult(base)));
    assert.deepEqual(failed(qualityResult({ ...base, width: 639 })), ['lowResolutionLikelihood']);
    assert.deepEqual(failed(qualityResult({ ...base, height: 479 })), ['lowResolutionLikelihood']);
    assert.deepEqual(failed(qualityResult({ ...base, glare: 0.03 })), ['havingBrightSpotsLikelihood']);
    assert.deepEqual(failed(qualityResult({ ...base, sharpness: 5 })), ['blurredLikelihood']);
    assert.deepEqual(failed(qualityResult({ ...base, luminance: 0.42 * 255 })), ['badLumimanceLikelihood']);
    assert.deepEqual(failed(qualityResult({ ...base, luminance: 0.93 * 255 })), ['badLumimanceLikelihood']);
    assert.deepEqual(failed(qualityResult({ ...base, luminance: 0.5 * 255 })), []);
  });

  it('glare blobs: an enclosed blob counts, one touching the frame or the card edge does not, a lone pixel does not', () => {
    const w = 20;
    const h = 12;
    const clipped = new Uint8Array(w * h);
    const fill = (x0: number, y0: number, x1: number, y1: number) => {
      for (let y = y0; y <= y1; y++) for (let x = x0; x <= x1; x++) clipped[y * w + x] = 1;
    };
    fill(4, 4, 8, 8); // enclosed
    fill(14, 0, 19, 5); // reaches the frame
    fill(11, 10, 11, 10); // a lone pixel
    const spots = glareSpots(clipped, w, h);
    assert.equal(
      spots.reduce((a, b) => a + b, 0),
      9,
      'the 3x3 core of the enclosed 5x5 blob',
    );
    assert.equal(spots[6 * w + 6], 1);
    assert.equal(spots[2 * w + 16], 0);
    // With a card mask ending at x = 7, the first blob reaches the card's edge.
    const mask = quadMask(
      [
        { x: 0, y: 0 },
        { x: 7, y: 0 },
        { x: 7, y: h - 1 },
        { x: 0, y: h - 1 },
      ],
      w,
      h,
    );
    assert.equal(
      glareSpots(clipped, w, h, mask).reduce((a, b) => a + b, 0),
      0,
    );
  });
});

describe('POST /vision/idr-qual/vnm and ?quality_check=1', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());

  it("replays the guide's sample: -F image=@card answers one quality item", async () => {
    const { status, body } = await postForm(`${t.url}/vision/idr-qual/vnm`, t.apiKey, { image: card });
    assert.equal(status, 200);
    assert.equal(body.errorCode, 0, body.errorMessage);
    assert.equal(body.errorMessage, '');
    assert.equal(body.data.length, 1);
    assert.deepEqual(Object.keys(body.data[0]).sort(), ['blur_score', 'bright_spots_score', 'final_result', 'luminance_score', 'resolution']);
    assert.deepEqual(body.data[0].final_result, {
      lowResolutionLikelihood: 'unlikely',
      havingBrightSpotsLikelihood: 'unlikely',
      blurredLikelihood: 'unlikely',
      badLumimanceLikelihood: 'unlikely',
    });
    const bad = await postForm(`${t.url}/vision/idr-qual/vnm`, t.apiKey, { image: Buffer.from('plain text, not an image') });
    assert.deepEqual(bad.body, { errorCode: 7, errorMessage: 'The uploaded file is not an image', data: [] });
    const none = await postForm(`${t.url}/vision/idr-qual/vnm`, t.apiKey, {});
    assert.equal(none.body.errorCode, 1);
  });

  it('quality_check=1 on /vision/idr/vnm: a failed check answers only the quality result, a passed one both', async () => {
    const blurred = await sharp(card).blur(6).jpeg().toBuffer();
    const fail = await postForm(`${t.url}/vision/idr/vnm?quality_check=1`, t.apiKey, { image: blurred });
    assert.equal(fail.body.errorCode, 0);
    assert.equal(fail.body.data.length, 1);
    assert.equal((fail.body.data[0].final_result as Record<string, string>).blurredLikelihood, 'likely');
    assert.equal(fail.body.data[0].id, undefined, 'no OCR after a failed check');
    const pass = await postForm(`${t.url}/vision/idr/vnm?quality_check=1`, t.apiKey, { image: card });
    assert.equal(pass.body.errorCode, 0, pass.body.errorMessage);
    assert.equal(pass.body.data.length, 1);
    assert.equal(pass.body.data[0].id, truth['chip-front'].fields.id);
    assert.equal((pass.body.data[0].final_result as Record<string, string>).blurredLikelihood, 'unlikely');
    // Without the switch (or quality_check=0) the answer is the reading alone.
    const plain = await postForm(`${t.url}/vision/idr/vnm?quality_check=0`, t.apiKey, { image: card });
    assert.equal(plain.body.data[0].final_result, undefined);
    const wrong = await postForm(`${t.url}/vision/idr/vnm?quality_check=maybe`, t.apiKey, { image: card });
    assert.equal(wrong.body.errorCode, 1);
  });
});
