/**
 * Motion cues. A still image: nothing changes between frames. A photo or a
 * screen moved in front of the camera: the face moves as one plane, so one
 * homography maps its landmarks from frame to frame almost exactly; a live
 * head turns and changes expression in 3-D, which no homography explains.
 */

/** Mean absolute difference (0-255) of two equally sized grayscale thumbnails. */
export function meanAbsDifference(a: Uint8Array, b: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i] - b[i]);
  return a.length ? sum / a.length : 0;
}

/** A small grayscale thumbnail (box-averaged) of an RGB frame, for frame differences. */
export function thumbnail(rgb: Uint8Array, width: number, height: number, side = 96): { data: Uint8Array; width: number; height: number } {
  const scale = Math.max(width, height) / side;
  const tw = Math.max(1, Math.round(width / scale));
  const th = Math.max(1, Math.round(height / scale));
  const out = new Uint8Array(tw * th);
  for (let ty = 0; ty < th; ty++) {
    const y0 = Math.floor((ty * height) / th);
    const y1 = Math.max(y0 + 1, Math.floor(((ty + 1) * height) / th));
    for (let tx = 0; tx < tw; tx++) {
      const x0 = Math.floor((tx * width) / tw);
      const x1 = Math.max(x0 + 1, Math.floor(((tx + 1) * width) / tw));
      let s = 0;
      let n = 0;
      // Every other pixel each way: plenty for a mean, a quarter of the work.
      for (let y = y0; y < y1; y += 2) {
        for (let x = x0; x < x1; x += 2) {
          const i = (y * width + x) * 3;
          s += 0.299 * rgb[i] + 0.587 * rgb[i + 1] + 0.114 * rgb[i + 2];
          n++;
        }
      }
      out[ty * tw + tx] = Math.round(s / Math.max(1, n));
    }
  }
  return { data: out, width: tw, height: th };
}

/** Solves A x = b (n x n, row-major) by Gaussian elimination with partial pivoting; undefined when singular. */
function solve(A: number[][], b: number[]): number[] | undefined {
  const n = b.length;
  const M = A.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r][c]) > Math.abs(M[p][c])) p = r;
    if (Math.abs(M[p][c]) < 1e-12) return undefined;
    [M[c], M[p]] = [M[p], M[c]];
    for (let r = c + 1; r < n; r++) {
      const f = M[r][c] / M[c][c];
      for (let k = c; k <= n; k++) M[r][k] -= f * M[c][k];
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let s = M[r][n];
    for (let k = r + 1; k < n; k++) s -= M[r][k] * x[k];
    x[r] = s / M[r][r];
  }
  return x;
}

type Pts = ArrayLike<number>;

/** Hartley normalisation: centroid to 0, mean distance sqrt(2). Returns the normalised points and (scale, cx, cy). */
function normalise(p: Pts): { q: number[]; s: number; cx: number; cy: number } {
  const n = p.length / 2;
  let cx = 0;
  let cy = 0;
  for (let i = 0; i < n; i++) {
    cx += p[2 * i];
    cy += p[2 * i + 1];
  }
  cx /= n;
  cy /= n;
  let d = 0;
  for (let i = 0; i < n; i++) d += Math.hypot(p[2 * i] - cx, p[2 * i + 1] - cy);
  const s = Math.SQRT2 / Math.max(1e-9, d / n);
  const q = new Array<number>(2 * n);
  for (let i = 0; i < n; i++) {
    q[2 * i] = (p[2 * i] - cx) * s;
    q[2 * i + 1] = (p[2 * i + 1] - cy) * s;
  }
  return { q, s, cx, cy };
}

/**
 * Least-squares homography taking `src` onto `dst` (x,y interleaved, at
 * least 4 points), h33 = 1, on Hartley-normalised points. Returns the 3x3
 * matrix row-major in the original pixel coordinates, or undefined.
 */
export function fitHomography(src: Pts, dst: Pts): number[] | undefined {
  const n = src.length / 2;
  if (n < 4 || dst.length !== src.length) return undefined;
  const a = normalise(src);
  const b = normalise(dst);
  // Normal equations of the 2n x 8 linear system.
  const AtA = Array.from({ length: 8 }, () => new Array<number>(8).fill(0));
  const Atb = new Array<number>(8).fill(0);
  const add = (row: number[], rhs: number) => {
    for (let i = 0; i < 8; i++) {
      Atb[i] += row[i] * rhs;
      for (let j = 0; j < 8; j++) AtA[i][j] += row[i] * row[j];
    }
  };
  for (let i = 0; i < n; i++) {
    const x = a.q[2 * i];
    const y = a.q[2 * i + 1];
    const u = b.q[2 * i];
    const v = b.q[2 * i + 1];
    add([x, y, 1, 0, 0, 0, -u * x, -u * y], u);
    add([0, 0, 0, x, y, 1, -v * x, -v * y], v);
  }
  const h = solve(AtA, Atb);
  if (!h) return undefined;
  // H = Tb^-1 * Hn * Ta
  const Hn = [h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], 1];
  const Ta = [a.s, 0, -a.s * a.cx, 0, a.s, -a.s * a.cy, 0, 0, 1];
  const TbInv = [1 / b.s, 0, b.cx, 0, 1 / b.s, b.cy, 0, 0, 1];
  return mul3(TbInv, mul3(Hn, Ta));
}

function mul3(A: number[], B: number[]): number[] {
  const C = new Array<number>(9).fill(0);
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) for (let k = 0; k < 3; k++) C[3 * r + c] += A[3 * r + k] * B[3 * k + c];
  return C;
}

/** Root-mean-square distance between H(src) and dst, pixels. */
export function homographyResidual(H: number[], src: Pts, dst: Pts): number {
  const n = src.length / 2;
  let sq = 0;
  for (let i = 0; i < n; i++) {
    const x = src[2 * i];
    const y = src[2 * i + 1];
    const w = H[6] * x + H[7] * y + H[8];
    const u = (H[0] * x + H[1] * y + H[2]) / w;
    const v = (H[3] * x + H[4] * y + H[5]) / w;
    sq += (u - dst[2 * i]) ** 2 + (v - dst[2 * i + 1]) ** 2;
  }
  return Math.sqrt(sq / n);
}

/** The centres of the left (points 36-41) and right (42-47) eye of 68-point landmarks. */
export function eyeCentres(lm: Pts): { lx: number; ly: number; rx: number; ry: number } {
  let lx = 0,
    ly = 0,
    rx = 0,
    ry = 0;
  for (let i = 36; i < 42; i++) {
    lx += lm[2 * i] / 6;
    ly += lm[2 * i + 1] / 6;
    rx += lm[2 * (i + 6)] / 6;
    ry += lm[2 * (i + 6) + 1] / 6;
  }
  return { lx, ly, rx, ry };
}

/** Distance between the two eye centres of 68-point landmarks: the face's own length unit. */
export function interOcular(lm: Pts): number {
  const { lx, ly, rx, ry } = eyeCentres(lm);
  return Math.hypot(rx - lx, ry - ly);
}

/** Landmark noise floor, in inter-ocular distances: frames that repeat exactly would otherwise divide by 0. */
export const LANDMARK_NOISE_FLOOR = 0.004;

const median = (v: number[]) => {
  if (v.length === 0) return 0;
  const s = [...v].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

/** Homography residual of `a` fitted onto `b`, in inter-ocular distances of `b`. */
function planarResidual(a: Pts, b: Pts): number | undefined {
  const H = fitHomography(a, b);
  return H ? homographyResidual(H, a, b) / Math.max(1, interOcular(b)) : undefined;
}

/**
 * Non-rigidity of the face over the video, as a ratio. Numerator: the median
 * over frames of the homography residual of each frame's landmarks against
 * the reference frame's. Denominator: the median residual between
 * consecutive frames (the landmark noise, with a floor). A plane moved in
 * front of the camera leaves only noise in both, so the ratio stays near 1-3
 * whatever the noise level (a blurred or moiré-covered face has noisier
 * landmarks, not a larger ratio); a face whose shape changes over the video
 * accumulates residual against the reference that frame-to-frame noise does
 * not explain.
 */
export function nonRigidity(landmarks: Pts[], reference: number): number {
  const ref = landmarks[reference];
  if (!ref || landmarks.length < 3) return 0;
  const toRef: number[] = [];
  const steps: number[] = [];
  for (let i = 0; i < landmarks.length; i++) {
    if (i !== reference) {
      const r = planarResidual(landmarks[i], ref);
      if (r !== undefined) toRef.push(r);
    }
    if (i > 0) {
      const r = planarResidual(landmarks[i], landmarks[i - 1]);
      if (r !== undefined) steps.push(r);
    }
  }
  return median(toRef) / Math.max(LANDMARK_NOISE_FLOOR, median(steps));
}
