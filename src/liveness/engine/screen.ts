import type { Box, RgbImage } from '../../face/index.js';
import { powerSpectrum2d } from '../../platform/vision/fft.js';

/**
 * Reproduction cues that need no model: the moiré of a screen filmed by a
 * camera (a strong periodic pattern: isolated peaks in the spectrum of the
 * face's skin), the specular glare of glass or glossy paper (a patch of
 * saturated pixels on the face), and the straight border of a phone or a
 * sheet of paper around the face (scored in the worker with the platform's
 * quadrilateral finder).
 */

export const MOIRE_PATCH = 64;

/**
 * Moiré score of the face: the strongest spectral peak of a 64x64 patch of
 * the face centre (native frame pixels, Hann window) at mid-to-high
 * frequencies, over the median power of that band, as log10. Natural skin
 * and compression noise spread their energy; a screen's interference pattern
 * concentrates it in a few bins. Returns 0 when the face is too small for a patch.
 */
export function moireScore(img: RgbImage, box: Box): number {
  const N = MOIRE_PATCH;
  const cx = Math.round((box.x1 + box.x2) / 2);
  const cy = Math.round(box.y1 + 0.55 * (box.y2 - box.y1));
  const x0 = cx - N / 2;
  const y0 = cy - N / 2;
  if (box.x2 - box.x1 < N * 0.8 || x0 < 0 || y0 < 0 || x0 + N > img.width || y0 + N > img.height) return 0;
  const patch = new Float64Array(N * N);
  let mean = 0;
  for (let y = 0; y < N; y++) {
    for (let x = 0; x < N; x++) {
      const i = ((y0 + y) * img.width + x0 + x) * 3;
      const v = 0.299 * img.data[i] + 0.587 * img.data[i + 1] + 0.114 * img.data[i + 2];
      patch[y * N + x] = v;
      mean += v;
    }
  }
  mean /= N * N;
  for (let y = 0; y < N; y++) {
    const wy = 0.5 - 0.5 * Math.cos((2 * Math.PI * y) / (N - 1));
    for (let x = 0; x < N; x++) patch[y * N + x] = (patch[y * N + x] - mean) * wy * (0.5 - 0.5 * Math.cos((2 * Math.PI * x) / (N - 1)));
  }
  const power = powerSpectrum2d(patch, N);
  const band: number[] = [];
  let peak = 0;
  for (let v = 0; v < N; v++) {
    const fy = v <= N / 2 ? v : v - N;
    // Half plane: the spectrum of a real patch is symmetric.
    if (fy < 0) continue;
    for (let u = 0; u < N; u++) {
      const fx = u <= N / 2 ? u : u - N;
      if (fy === 0 && fx < 0) continue;
      const r = Math.hypot(fx, fy);
      if (r < 6 || r > 28) continue;
      const p = power[v * N + u];
      band.push(p);
      if (p > peak) peak = p;
    }
  }
  band.sort((a, b) => a - b);
  const median = band[Math.floor(band.length / 2)] || 1e-9;
  return Math.log10(Math.max(1, peak / median));
}

/**
 * Glare: the share of the face box's pixels that are saturated (every
 * channel >= 250). Skin under ordinary light has at most a few such pixels
 * on the nose; glass or glossy paper in front of a lamp has a patch.
 */
export function glareShare(img: RgbImage, box: Box): number {
  const x0 = Math.max(0, Math.floor(box.x1));
  const y0 = Math.max(0, Math.floor(box.y1));
  const x1 = Math.min(img.width, Math.ceil(box.x2));
  const y1 = Math.min(img.height, Math.ceil(box.y2));
  let hot = 0;
  let n = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const i = (y * img.width + x) * 3;
      if (img.data[i] >= 250 && img.data[i + 1] >= 250 && img.data[i + 2] >= 250) hot++;
      n++;
    }
  }
  return n ? hot / n : 0;
}
