import fs from 'node:fs';
import path from 'node:path';
import { assessFace, looksLikeIdCard } from './engine/index.js';
import { iou } from './engine/detect.js';
import { cosineToSimilarity, dot, SIMILARITY_MAP } from './engine/similarity.js';
import { analyze, type AnalyzeResult } from './engine/worker.js';

export interface PairScore {
  x: string;
  y: string;
  same: boolean;
  cosine: number;
}

export interface FaceEvaluation {
  images: number;
  missedDetections: string[];
  genuine: number;
  impostor: number;
  /** TAR at the threshold that keeps FAR at or below the target (over the impostor pairs given). */
  tarAtFar: { far: number; threshold: number; tar: number }[];
  eer: number;
  eerThreshold: number;
  maxImpostorCosine: number;
  minGenuineCosine: number;
  /** At the API thresholds (search 0.85, match 0.80 on the mapped similarity). */
  atSearchThreshold: { tar: number; far: number };
  atMatchThreshold: { tar: number; far: number };
  occlusionFalseAlarms: number;
  idCardFalseAlarms: number;
  /** Proposed [cosine, similarity] knots: the current map with its 0.80 knot moved above the measured impostors. */
  refitKnots: [number, number][];
  meanMs: number;
  /** Per photo: faces reported (after the face rules), detections dropped and why, the compared (subject) face in upload pixels. */
  perImage: { name: string; faces: number; rejected: string[]; compared?: { x1: number; y1: number; x2: number; y2: number } }[];
}

/**
 * A box of an analysis (pixels of the working image, turned by `rotation`)
 * in pixels of the uploaded photo as shown upright (EXIF applied).
 */
export function boxInUpload(
  r: Extract<AnalyzeResult, { ok: true }>,
  b: { x1: number; y1: number; x2: number; y2: number },
): { x1: number; y1: number; x2: number; y2: number } {
  const W = r.width;
  const H = r.height;
  // Undo the clockwise turn: the working image before it was (W x H) for 180, (H x W) for 90 and 270.
  let box = b;
  if (r.rotation === 90) box = { x1: b.y1, y1: W - b.x2, x2: b.y2, y2: W - b.x1 };
  else if (r.rotation === 180) box = { x1: W - b.x2, y1: H - b.y2, x2: W - b.x1, y2: H - b.y1 };
  else if (r.rotation === 270) box = { x1: H - b.y2, y1: b.x1, x2: H - b.y1, y2: b.x2 };
  return { x1: box.x1 / r.scale, y1: box.y1 / r.scale, x2: box.x2 / r.scale, y2: box.y2 / r.scale };
}

/** Whether `chosen` is the face at `expected`: its centre inside the expected box and their overlap (IoU) at least 0.3. */
export function sameFace(chosen: { x1: number; y1: number; x2: number; y2: number }, expected: { x1: number; y1: number; x2: number; y2: number }): boolean {
  const cx = (chosen.x1 + chosen.x2) / 2;
  const cy = (chosen.y1 + chosen.y2) / 2;
  if (cx < expected.x1 || cx > expected.x2 || cy < expected.y1 || cy > expected.y2) return false;
  return iou({ ...chosen, score: 0 }, { ...expected, score: 0 }) >= 0.3;
}

export function readPairs(dir: string): { x: string; y: string; same: boolean }[] {
  const text = fs.readFileSync(path.join(dir, 'pairs.csv'), 'utf8');
  const [header, ...lines] = text.split(/\r?\n/).filter((l) => l.trim());
  const cols = header.split(',').map((c) => c.trim());
  const ix = cols.indexOf('file_x');
  const iy = cols.indexOf('file_y');
  const is = cols.indexOf('same_person');
  if (ix < 0 || iy < 0 || is < 0) throw new Error('pairs.csv needs the columns file_x, file_y, same_person');
  return lines.map((l) => {
    const c = l.split(',').map((v) => v.trim());
    return { x: c[ix], y: c[iy], same: /^(yes|true|1)$/i.test(c[is]) };
  });
}

function rates(scores: PairScore[], accept: (p: PairScore) => boolean): { tar: number; far: number } {
  const g = scores.filter((s) => s.same);
  const i = scores.filter((s) => !s.same);
  return { tar: g.filter(accept).length / Math.max(1, g.length), far: i.filter(accept).length / Math.max(1, i.length) };
}

/** Embeds every image of `dir` named in pairs.csv (in this thread) and scores the pairs. */
export async function evaluateFacePairs(dir: string, log: (line: string) => void = () => {}): Promise<FaceEvaluation> {
  const pairs = readPairs(dir);
  const names = [...new Set(pairs.flatMap((p) => [p.x, p.y]))];
  const results = new Map<string, AnalyzeResult>();
  let ms = 0;
  const gates = { minFacePx: 40, secondFaceRatio: 0.25, minBlurVariance: 0, secondFaceSharpness: 0.3 };
  for (const n of names) {
    const r = await analyze({ image: fs.readFileSync(path.join(dir, n)), detectThreshold: 0.7, checkCard: true });
    if (r.ok) ms += r.ms;
    results.set(n, r);
    log(`${n}: ${r.ok ? `${r.faces.length} face(s), ${r.ms.toFixed(0)} ms` : 'undecodable'}`);
  }
  const missed = names.filter((n) => {
    const r = results.get(n)!;
    return !r.ok || !r.primary;
  });
  const scores: PairScore[] = [];
  for (const p of pairs) {
    const a = results.get(p.x)!;
    const b = results.get(p.y)!;
    // A missed detection scores -1: a false reject for genuine pairs.
    const cosine = a.ok && b.ok && a.primary && b.primary ? dot(a.primary.embedding, b.primary.embedding) : -1;
    scores.push({ ...p, cosine });
  }
  const gen = scores
    .filter((s) => s.same)
    .map((s) => s.cosine)
    .sort((x, y) => x - y);
  const imp = scores
    .filter((s) => !s.same)
    .map((s) => s.cosine)
    .sort((x, y) => y - x);
  const tarAtFar = [1e-3, 1e-4].map((far) => {
    // Largest number of impostors we may accept, then the threshold just above the next one.
    const allowed = Math.floor(far * imp.length);
    const threshold = imp.length > allowed ? imp[allowed] + 1e-6 : -1;
    return { far, threshold, tar: gen.filter((c) => c >= threshold).length / Math.max(1, gen.length) };
  });
  let eer = 1;
  let eerThreshold = 0;
  let bestGap = Infinity;
  for (let t = -1; t <= 1; t += 0.001) {
    const frr = gen.filter((c) => c < t).length / Math.max(1, gen.length);
    const far = imp.filter((c) => c >= t).length / Math.max(1, imp.length);
    if (Math.abs(frr - far) < bestGap) {
      bestGap = Math.abs(frr - far);
      eer = (frr + far) / 2;
      eerThreshold = t;
    }
  }
  const maxImp = imp.length ? imp[0] : -1;
  const knots = SIMILARITY_MAP.knots.map(([c, s]) => [c, s] as [number, number]);
  const k80 = knots.findIndex(([, s]) => s === 0.8);
  if (k80 > 0) {
    const proposed = Math.min(0.58, Math.max(knots[k80 - 1][0] + 0.05, Math.round((maxImp + 0.05) * 100) / 100));
    knots[k80] = [proposed, 0.8];
  }
  let occlusion = 0;
  let idCard = 0;
  for (const n of names) {
    const r = results.get(n)!;
    if (assessFace(r, gates, { single: false }).kind === 'occluded') occlusion++;
    if (looksLikeIdCard(r)) idCard++;
  }
  return {
    images: names.length,
    missedDetections: missed,
    genuine: gen.length,
    impostor: imp.length,
    tarAtFar,
    eer,
    eerThreshold,
    maxImpostorCosine: maxImp,
    minGenuineCosine: gen.length ? gen[0] : 1,
    atSearchThreshold: rates(scores, (p) => cosineToSimilarity(p.cosine) >= 0.85),
    atMatchThreshold: rates(scores, (p) => cosineToSimilarity(p.cosine) >= 0.8),
    occlusionFalseAlarms: occlusion,
    idCardFalseAlarms: idCard,
    refitKnots: knots,
    meanMs: ms / Math.max(1, names.length - missed.length),
    perImage: names.map((name) => {
      const r = results.get(name)!;
      if (!r.ok) return { name, faces: 0, rejected: [] };
      return { name, faces: r.faces.length, rejected: r.rejected.map((x) => x.reason), ...(r.faces[0] ? { compared: boxInUpload(r, r.faces[0]) } : {}) };
    }),
  };
}

export function formatEvaluation(e: FaceEvaluation): string {
  const pct = (x: number) => `${(x * 100).toFixed(2)}%`;
  return [
    `images ${e.images}, missed detections ${e.missedDetections.length}${e.missedDetections.length ? ` (${e.missedDetections.join(', ')})` : ''}`,
    `pairs: ${e.genuine} genuine, ${e.impostor} impostor`,
    ...e.tarAtFar.map(
      (t) =>
        `TAR@FAR ${t.far.toExponential(0)}: ${pct(t.tar)} (cosine threshold ${t.threshold.toFixed(3)}; with ${e.impostor} impostor pairs the FAR resolution is ${(1 / Math.max(1, e.impostor)).toExponential(1)})`,
    ),
    `EER: ${pct(e.eer)} at cosine ${e.eerThreshold.toFixed(3)}`,
    `cosine: min genuine ${e.minGenuineCosine.toFixed(3)}, max impostor ${e.maxImpostorCosine.toFixed(3)}`,
    `map ${SIMILARITY_MAP.version}: search (>= 0.85) TAR ${pct(e.atSearchThreshold.tar)} FAR ${pct(e.atSearchThreshold.far)}; match (>= 80) TAR ${pct(e.atMatchThreshold.tar)} FAR ${pct(e.atMatchThreshold.far)}`,
    `406 false alarms on these (unoccluded) photos: ${e.occlusionFalseAlarms}/${e.images}; 410 false alarms: ${e.idCardFalseAlarms}/${e.images}`,
    `refit knots (cosine -> similarity): ${JSON.stringify(e.refitKnots)}`,
    `detect+embed+card check, mean per image: ${e.meanMs.toFixed(0)} ms (one thread)`,
    `faces per photo (expected 1 on these portraits): ${e.perImage.filter((p) => p.faces !== 1).length} photos off${e.perImage
      .filter((p) => p.faces !== 1)
      .map((p) => ` ${p.name}=${p.faces}`)
      .join('')}; detections dropped by the face rules: ${e.perImage.reduce((a, p) => a + p.rejected.length, 0)}`,
  ].join('\n');
}
