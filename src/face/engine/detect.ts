/** Decoding of the RFB-320 style detector (fr_detect.onnx): corner boxes in 0-1, two-class scores, then NMS. */
export interface Box {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  score: number;
}

export const DETECT_W = 320;
export const DETECT_H = 240;

export function iou(a: Box, b: Box): number {
  const w = Math.max(0, Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1));
  const h = Math.max(0, Math.min(a.y2, b.y2) - Math.max(a.y1, b.y1));
  const inter = w * h;
  const union = (a.x2 - a.x1) * (a.y2 - a.y1) + (b.x2 - b.x1) * (b.y2 - b.y1) - inter;
  return union > 0 ? inter / union : 0;
}

/** Greedy non-maximum suppression, highest score first. */
export function nms(boxes: Box[], iouThreshold: number, topK = 200): Box[] {
  const sorted = [...boxes].sort((p, q) => q.score - p.score).slice(0, 5000);
  const kept: Box[] = [];
  for (const b of sorted) {
    if (kept.every((k) => iou(k, b) < iouThreshold)) kept.push(b);
    if (kept.length >= topK) break;
  }
  return kept;
}

/** Detector outputs -> boxes in pixels of a width x height image, after threshold and NMS. */
export function decodeDetections(scores: Float32Array, boxes: Float32Array, width: number, height: number, threshold: number, iouThreshold = 0.4): Box[] {
  const n = scores.length / 2;
  const cand: Box[] = [];
  for (let i = 0; i < n; i++) {
    const s = scores[2 * i + 1];
    if (s < threshold) continue;
    const x1 = Math.max(0, boxes[4 * i] * width);
    const y1 = Math.max(0, boxes[4 * i + 1] * height);
    const x2 = Math.min(width, boxes[4 * i + 2] * width);
    const y2 = Math.min(height, boxes[4 * i + 3] * height);
    if (x2 - x1 < 2 || y2 - y1 < 2) continue;
    cand.push({ x1, y1, x2, y2, score: s });
  }
  return nms(cand, iouThreshold);
}

export function boxArea(b: Box): number {
  return (b.x2 - b.x1) * (b.y2 - b.y1);
}
