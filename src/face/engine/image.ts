/** Pixel helpers on raw interleaved RGB (3 bytes per pixel), written for the face engine. */
export interface RgbImage {
  data: Uint8Array;
  width: number;
  height: number;
}

/** Affine map from output pixel (u, v) to source pixel: x = a*u + b*v + c, y = d*u + e*v + f. */
export type Affine = [number, number, number, number, number, number];

/**
 * Warps `img` into an outW x outH RGB image (bilinear; supersampled when the map
 * shrinks by more than 1.5x, so small crops of big photos do not alias).
 * Pixels outside the source repeat the border.
 */
export function warpAffine(img: RgbImage, m: Affine, outW: number, outH: number): RgbImage {
  const [a, b, c, d, e, f] = m;
  const { data, width, height } = img;
  const scale = Math.max(Math.hypot(a, d), Math.hypot(b, e));
  const ss = Math.min(4, Math.max(1, Math.round(scale / 1.5) + (scale > 1.5 ? 1 : 0)));
  const out = new Uint8Array(outW * outH * 3);
  const n = ss * ss;
  const xMax = width - 1;
  const yMax = height - 1;
  const stride = width * 3;
  const offsets = new Float64Array(ss);
  for (let k = 0; k < ss; k++) offsets[k] = (k + 0.5) / ss - 0.5;
  // One hot loop, no calls or temporary arrays: this runs 112x112x(up to 16) times per face.
  let o = 0;
  for (let v = 0; v < outH; v++) {
    for (let u = 0; u < outW; u++) {
      let r = 0;
      let g = 0;
      let bl = 0;
      for (let sy = 0; sy < ss; sy++) {
        const vv = v + offsets[sy];
        for (let sx = 0; sx < ss; sx++) {
          const uu = u + offsets[sx];
          const x = a * uu + b * vv + c;
          const y = d * uu + e * vv + f;
          const xc = x < 0 ? 0 : x > xMax ? xMax : x;
          const yc = y < 0 ? 0 : y > yMax ? yMax : y;
          const x0 = xc | 0; // xc >= 0: truncation is floor
          const y0 = yc | 0;
          const fx = xc - x0;
          const fy = yc - y0;
          const i00 = y0 * stride + x0 * 3;
          const i01 = x0 < xMax ? i00 + 3 : i00;
          const down = y0 < yMax ? stride : 0;
          const i10 = i00 + down;
          const i11 = i01 + down;
          let top = data[i00] + (data[i01] - data[i00]) * fx;
          let bottom = data[i10] + (data[i11] - data[i10]) * fx;
          r += top + (bottom - top) * fy;
          top = data[i00 + 1] + (data[i01 + 1] - data[i00 + 1]) * fx;
          bottom = data[i10 + 1] + (data[i11 + 1] - data[i10 + 1]) * fx;
          g += top + (bottom - top) * fy;
          top = data[i00 + 2] + (data[i01 + 2] - data[i00 + 2]) * fx;
          bottom = data[i10 + 2] + (data[i11 + 2] - data[i10 + 2]) * fx;
          bl += top + (bottom - top) * fy;
        }
      }
      out[o++] = Math.round(r / n);
      out[o++] = Math.round(g / n);
      out[o++] = Math.round(bl / n);
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
