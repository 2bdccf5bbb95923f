/**
 * Finds an ID-card-shaped quadrilateral in a photo with OpenCV (opencv-js, WASM).
 *
 * Used by the reader (to flatten the card before OCR) and by the face service
 * (to refuse a photo of an ID card, code 410). OpenCV takes ~0.5 s to load, so
 * call this from a worker thread that lives long: the module is loaded once per
 * thread, on first use (or ahead of time with `loadOpenCv()`).
 *
 *   const outline = await findCardOutline(jpegBuffer);
 *   if (outline && outline.areaRatio >= 0.25 && !outline.touchesBorder) ...
 *
 * Stable API: `findCardOutline`, `loadOpenCv`, `CardOutline`, `GrayImage`, `Point`.
 */
import sharp from 'sharp';

export interface Point {
  x: number;
  y: number;
}

/** 8-bit grayscale pixels, row-major, one byte per pixel. */
export interface GrayImage {
  data: Uint8Array | Uint8ClampedArray | Buffer;
  width: number;
  height: number;
}

export interface CardOutline {
  /**
   * Corners in pixels of the image as given (for a Buffer: after EXIF
   * rotation), clockwise from the top-left: [topLeft, topRight, bottomRight, bottomLeft].
   */
  corners: [Point, Point, Point, Point];
  /** Quadrilateral area divided by image area, 0-1. */
  areaRatio: number;
  /** Whether a corner lies on (or within 1.5% of) the image border: the card is probably cut off. */
  touchesBorder: boolean;
  /** Long side over short side of the quadrilateral (an ID-1 card is 1.586). */
  aspect: number;
  /** Whether the card's long side runs vertically in the image (card photographed turned by 90 degrees). */
  portrait: boolean;
  /** 0-1: how card-like the shape is (area, right angles, aspect, edge support). */
  score: number;
}

export interface FindCardOptions {
  /** Candidates smaller than this fraction of the image are ignored (default 0.04). */
  minAreaRatio?: number;
}

// Untyped on purpose: the default export is an Emscripten module that is patched while it loads (onRuntimeInitialized, `then`).
type OpenCv = any;

let loading: Promise<OpenCv> | undefined;

/** Loads opencv-js once per thread. Resolves to the `cv` namespace. */
export function loadOpenCv(): Promise<OpenCv> {
  loading ??= (async () => {
    const mod = (await import('@techstark/opencv-js')) as { default: OpenCv };
    const cv = mod.default;
    if (cv.Mat) return cv;
    await new Promise<void>((resolve) => {
      cv.onRuntimeInitialized = () => resolve();
    });
    // The Emscripten module is a thenable; strip `then` so awaiting it cannot loop.
    delete cv.then;
    return cv;
  })();
  return loading;
}

/** Working resolution: edges of a card survive it and contour search stays around 20-60 ms. */
const WORK_SIDE = 480;
const ID1_ASPECT = 85.6 / 53.98;

async function toWorkingGray(image: Buffer | GrayImage): Promise<{ gray: GrayImage; scale: number; width: number; height: number }> {
  if (Buffer.isBuffer(image)) {
    const oriented = sharp(image, { failOn: 'truncated', limitInputPixels: 100_000_000 }).rotate();
    const meta = await sharp(image).metadata();
    const swap = (meta.orientation ?? 1) >= 5;
    const width = (swap ? meta.height : meta.width) ?? 0;
    const height = (swap ? meta.width : meta.height) ?? 0;
    if (!width || !height) throw new Error('image has no size');
    const scale = Math.min(1, WORK_SIDE / Math.max(width, height));
    const { data, info } = await oriented
      .resize(Math.max(1, Math.round(width * scale)), Math.max(1, Math.round(height * scale)), { fit: 'fill' })
      .greyscale()
      .raw()
      .toBuffer({ resolveWithObject: true });
    return { gray: { data, width: info.width, height: info.height }, scale: info.width / width, width, height };
  }
  const { width, height } = image;
  if (image.data.length < width * height) throw new Error('gray image data is shorter than width*height');
  const scale = Math.min(1, WORK_SIDE / Math.max(width, height));
  if (scale === 1) return { gray: image, scale: 1, width, height };
  const { data, info } = await sharp(Buffer.from(image.data.buffer, image.data.byteOffset, width * height), {
    raw: { width, height, channels: 1 },
  })
    .resize(Math.max(1, Math.round(width * scale)), Math.max(1, Math.round(height * scale)), { fit: 'fill' })
    .greyscale()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { gray: { data, width: info.width, height: info.height }, scale: info.width / width, width, height };
}

function orderCorners(points: Point[]): [Point, Point, Point, Point] {
  // Sort by angle around the centroid, then rotate so the first is the top-left.
  const cx = points.reduce((s, p) => s + p.x, 0) / points.length;
  const cy = points.reduce((s, p) => s + p.y, 0) / points.length;
  const sorted = [...points].sort((a, b) => Math.atan2(a.y - cy, a.x - cx) - Math.atan2(b.y - cy, b.x - cx));
  let start = 0;
  for (let i = 1; i < 4; i++) if (sorted[i].x + sorted[i].y < sorted[start].x + sorted[start].y) start = i;
  return [0, 1, 2, 3].map((i) => sorted[(start + i) % 4]) as [Point, Point, Point, Point];
}

function polygonArea(p: Point[]): number {
  let a = 0;
  for (let i = 0; i < p.length; i++) {
    const q = p[(i + 1) % p.length];
    a += p[i].x * q.y - q.x * p[i].y;
  }
  return Math.abs(a) / 2;
}

const dist = (a: Point, b: Point) => Math.hypot(a.x - b.x, a.y - b.y);

function cornerAngleScore(c: Point[]): number {
  // 1 for right angles, falling to 0 at 45 degrees off.
  let worst = 1;
  for (let i = 0; i < 4; i++) {
    const a = c[(i + 3) % 4];
    const b = c[i];
    const d = c[(i + 1) % 4];
    const v1 = { x: a.x - b.x, y: a.y - b.y };
    const v2 = { x: d.x - b.x, y: d.y - b.y };
    const cos = Math.abs((v1.x * v2.x + v1.y * v2.y) / (Math.hypot(v1.x, v1.y) * Math.hypot(v2.x, v2.y) || 1));
    worst = Math.min(worst, 1 - Math.min(1, cos / 0.7071));
  }
  return worst;
}

interface Candidate {
  corners: [Point, Point, Point, Point];
  score: number;
}

function scoreQuad(corners: [Point, Point, Point, Point], w: number, h: number, minArea: number, fill: number): Candidate | undefined {
  const area = polygonArea(corners);
  const ratio = area / (w * h);
  if (ratio < minArea) return undefined;
  const top = dist(corners[0], corners[1]);
  const right = dist(corners[1], corners[2]);
  const bottom = dist(corners[2], corners[3]);
  const left = dist(corners[3], corners[0]);
  const long = Math.max((top + bottom) / 2, (left + right) / 2);
  const short = Math.min((top + bottom) / 2, (left + right) / 2) || 1;
  const aspect = long / short;
  const aspectScore = Math.max(0, 1 - Math.abs(Math.log(aspect / ID1_ASPECT)) / 0.6);
  const angles = cornerAngleScore(corners);
  if (angles <= 0 || aspectScore <= 0) return undefined;
  const score = Math.sqrt(Math.min(1, ratio / 0.5)) * 0.35 + angles * 0.25 + aspectScore * 0.25 + fill * 0.15;
  return { corners, score };
}

function pointsOf(mat: OpenCv): Point[] {
  const out: Point[] = [];
  for (let i = 0; i < mat.rows; i++) out.push({ x: mat.data32S[i * 2], y: mat.data32S[i * 2 + 1] });
  return out;
}

/** Candidate quadrilaterals of one binary edge/mask image. */
function quadsFromBinary(cv: OpenCv, binary: OpenCv, w: number, h: number, minArea: number, out: Candidate[]): void {
  const contours = new cv.MatVector();
  const hierarchy = new cv.Mat();
  try {
    cv.findContours(binary, contours, hierarchy, cv.RETR_EXTERNAL, cv.CHAIN_APPROX_SIMPLE);
    const list: { i: number; area: number }[] = [];
    for (let i = 0; i < contours.size(); i++) {
      const c = contours.get(i);
      const area = cv.contourArea(c);
      c.delete();
      if (area >= minArea * w * h) list.push({ i, area });
    }
    list.sort((a, b) => b.area - a.area);
    for (const { i } of list.slice(0, 6)) {
      const contour = contours.get(i);
      const hull = new cv.Mat();
      const approx = new cv.Mat();
      try {
        cv.convexHull(contour, hull, false, true);
        const hullArea = cv.contourArea(hull) || 1;
        const fill = Math.min(1, cv.contourArea(contour) / hullArea);
        const peri = cv.arcLength(hull, true);
        for (const eps of [0.02, 0.035, 0.05]) {
          cv.approxPolyDP(hull, approx, eps * peri, true);
          if (approx.rows === 4) {
            const c = scoreQuad(orderCorners(pointsOf(approx)), w, h, minArea, fill);
            if (c) out.push(c);
            break;
          }
        }
        // Rounded or partly occluded corners: fall back to the rotated bounding box of the hull.
        const rect = cv.minAreaRect(hull);
        const rectArea = rect.size.width * rect.size.height || 1;
        if (hullArea / rectArea > 0.88) {
          const pts = (cv.RotatedRect.points(rect) as Point[]).map((p) => ({ x: p.x, y: p.y }));
          const c = scoreQuad(orderCorners(pts), w, h, minArea, fill * (hullArea / rectArea));
          if (c) out.push({ ...c, score: c.score - 0.03 });
        }
      } finally {
        contour.delete();
        hull.delete();
        approx.delete();
      }
    }
  } finally {
    contours.delete();
    hierarchy.delete();
  }
}

/**
 * Finds the most card-like quadrilateral in the image, or null when nothing
 * plausible is there. A card filling the whole frame (a pre-cropped scan) has
 * no visible outline and also gives null: check the image's own aspect for that.
 * Throws only when the Buffer cannot be decoded.
 */
export async function findCardOutline(image: Buffer | GrayImage, options: FindCardOptions = {}): Promise<CardOutline | null> {
  const minArea = options.minAreaRatio ?? 0.04;
  const cv = await loadOpenCv();
  const { gray, scale, width, height } = await toWorkingGray(image);
  const w = gray.width;
  const h = gray.height;
  const src = cv.matFromArray(h, w, cv.CV_8UC1, gray.data.subarray(0, w * h));
  const blurred = new cv.Mat();
  const work = new cv.Mat();
  const kernel = cv.getStructuringElement(cv.MORPH_RECT, new cv.Size(3, 3));
  const candidates: Candidate[] = [];
  try {
    cv.GaussianBlur(src, blurred, new cv.Size(5, 5), 0);
    // 1. Edges: the card's border against any background.
    for (const [lo, hi] of [
      [30, 90],
      [60, 160],
    ]) {
      cv.Canny(blurred, work, lo, hi);
      cv.dilate(work, work, kernel, new cv.Point(-1, -1), 2);
      quadsFromBinary(cv, work, w, h, minArea, candidates);
    }
    // 2. Brightness: a card lighter (or darker) than its background.
    cv.threshold(blurred, work, 0, 255, cv.THRESH_BINARY + cv.THRESH_OTSU);
    cv.morphologyEx(work, work, cv.MORPH_OPEN, kernel, new cv.Point(-1, -1), 2);
    quadsFromBinary(cv, work, w, h, minArea, candidates);
    cv.bitwise_not(work, work);
    quadsFromBinary(cv, work, w, h, minArea, candidates);
  } finally {
    src.delete();
    blurred.delete();
    work.delete();
    kernel.delete();
  }
  const margin = Math.max(2, 0.015 * Math.max(w, h));
  const onBorder = (p: Point) => p.x <= margin || p.y <= margin || p.x >= w - 1 - margin || p.y >= h - 1 - margin;
  // Three or four corners on the border is the image frame itself (a background region), not a card.
  const plausible = candidates.filter((c) => c.corners.filter(onBorder).length < 3);
  if (plausible.length === 0) return null;
  plausible.sort((a, b) => b.score - a.score);
  const best = plausible[0];
  const touchesBorder = best.corners.some(onBorder);
  const corners = best.corners.map((p) => ({
    x: Math.min(width - 1, Math.max(0, p.x / scale)),
    y: Math.min(height - 1, Math.max(0, p.y / scale)),
  })) as [Point, Point, Point, Point];
  const horizontal = (dist(corners[0], corners[1]) + dist(corners[3], corners[2])) / 2;
  const vertical = (dist(corners[0], corners[3]) + dist(corners[1], corners[2])) / 2;
  return {
    corners,
    areaRatio: Math.min(1, polygonArea(corners) / (width * height)),
    touchesBorder,
    aspect: Math.max(horizontal, vertical) / (Math.min(horizontal, vertical) || 1),
    portrait: vertical > horizontal,
    score: Math.max(0, Math.min(1, best.score)),
  };
}
