/** Pixel helpers on raw interleaved RGB (3 bytes per pixel), written for the face engine. */
export interface RgbImage {
  data: Uint8Array;
  width: number;
  height: number;
}

/** Affine map from output pixel (u, v) to source pixel: x = a*u + b*v + c, y = d*u + e*v + f. */
export type Affine = [number, number, number, number, number, number];

function sample(img: RgbImage, x: number, y: number, out: Float64Array): void {
  const { data, width, height } = img;
  const xc = Math.min(Math.max(x, 0), width - 1);
  const yc = Math.min(Math.max(y, 0), height - 1);
  const x0 = Math.floor(xc);
  const y0 = Math.floor(yc);
  const x1 = Math.min(x0 + 1, width - 1);
  const y1 = Math.min(y0 + 1, height - 1);
  const fx = xc - x0;
  const fy = yc - y0;
  const i00 = (y0 * width + x0) * 3;
  const i01 = (y0 * width + x1) * 3;
  const i10 = (y1 * width + x0) * 3;
  const i11 = (y1 * width + x1) * 3;
  for (let c = 0; c < 3; c++) {
    const top = data[i00 + c] + (data[i01 + c] - data[i00 + c]) * fx;
    const bottom = data[i10 + c] + (data[i11 + c] - data[i10 + c]) * fx;
    out[c] += top + (bottom - top) * fy;
  }
}

/**
 * Warps `img` into an outW x outH RGB image (bilinear; supersampled when the map
 * shrinks by more than 1.5x, so small crops of big photos do not alias).
 * Pixels outside the source repeat the border.
 */
export function warpAffine(img: RgbImage, m: Affine, outW: number, outH: number): RgbImage {
  const [a, b, c, d, e, f] = m;
  const scale = Math.max(Math.hypot(a, d), Math.hypot(b, e));
  const ss = Math.min(4, Math.max(1, Math.round(scale / 1.5) + (scale > 1.5 ? 1 : 0)));
  const out = new Uint8Array(outW * outH * 3);
  const acc = new Float64Array(3);
  const n = ss * ss;
  for (let v = 0; v < outH; v++) {
    for (let u = 0; u < outW; u++) {
      acc.fill(0);
      for (let sy = 0; sy < ss; sy++) {
        const vv = v + (sy + 0.5) / ss - 0.5;
        for (let sx = 0; sx < ss; sx++) {
          const uu = u + (sx + 0.5) / ss - 0.5;
          sample(img, a * uu + b * vv + c, d * uu + e * vv + f, acc);
        }
      }
      const o = (v * outW + u) * 3;
      out[o] = Math.round(acc[0] / n);
      out[o + 1] = Math.round(acc[1] / n);
      out[o + 2] = Math.round(acc[2] / n);
    }
  }
  return { data: out, width: outW, height: outH };
}

/** Axis-aligned crop of (x, y, w, h) resized to outW x outH. */
export function cropResize(img: RgbImage, x: number, y: number, w: number, h: number, outW: number, outH: number): RgbImage {
  return warpAffine(img, [w / outW, 0, x + (w / outW - 1) / 2, 0, h / outH, y + (h / outH - 1) / 2], outW, outH);
}

/** Luma (BT.601), 0-255 per pixel. */
export function toGray(img: RgbImage): Float32Array {
  const out = new Float32Array(img.width * img.height);
  for (let i = 0, j = 0; i < out.length; i++, j += 3) out[i] = 0.299 * img.data[j] + 0.587 * img.data[j + 1] + 0.114 * img.data[j + 2];
  return out;
}

/** Planar CHW float tensor data, (p - mean) / std per channel, RGB order. */
export function toChw(img: RgbImage, mean: number, std: number): Float32Array {
  const plane = img.width * img.height;
  const out = new Float32Array(plane * 3);
  for (let i = 0, j = 0; i < plane; i++, j += 3) {
    out[i] = (img.data[j] - mean) / std;
    out[plane + i] = (img.data[j + 1] - mean) / std;
    out[2 * plane + i] = (img.data[j + 2] - mean) / std;
  }
  return out;
}

/** Variance of the 4-neighbour Laplacian of a grayscale image: low means blurry. */
export function laplacianVariance(gray: Float32Array, width: number, height: number): number {
  let sum = 0;
  let sq = 0;
  let n = 0;
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const i = y * width + x;
      const l = gray[i - 1] + gray[i + 1] + gray[i - width] + gray[i + width] - 4 * gray[i];
      sum += l;
      sq += l * l;
      n++;
    }
  }
  if (n === 0) return 0;
  const mean = sum / n;
  return sq / n - mean * mean;
}
