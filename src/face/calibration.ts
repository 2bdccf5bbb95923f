/**
 * Fitting a recogniser's similarity map to labelled people, the product side
 * of `saola face calibrate` (and of the evaluations in eval/face): every pair
 * of photos scored (genuine: same person; impostor: different), the
 * distributions, TAR at a FAR, and a map that puts the API's thresholds at
 * chosen false-accept rates of the impostor tail.
 */
import fs from 'node:fs';
import path from 'node:path';
import { cosineToSimilarity, dot, type SimilarityMap } from './engine/similarity.js';
import { readPairs } from './evaluation.js';

export interface LabelledPhoto {
  file: string;
  identity: string;
  group?: string;
}

export interface EmbeddedPhoto extends LabelledPhoto {
  /** L2-normalised embedding of the compared (subject) face; null when no face was found. */
  embedding: Float32Array | null;
}

const IMAGE_FILE = /\.(jpe?g|png)$/i;

/**
 * The labelled photos of `dir`: its labels.csv (file, identity[, group]), or,
 * for a folder that only has pairs.csv (file_x, file_y, same_person),
 * identities joined from its "same" pairs (an impostor pair inside one joined
 * identity is an error), or else one subfolder per person holding that
 * person's JPEG and PNG photos.
 */
export function readLabels(dirOrFile: string): { dir: string; photos: LabelledPhoto[]; from: string } {
  const isFile = fs.existsSync(dirOrFile) && fs.statSync(dirOrFile).isFile();
  const dir = isFile ? path.dirname(dirOrFile) : dirOrFile;
  const labels = isFile ? dirOrFile : path.join(dir, 'labels.csv');
  if (fs.existsSync(labels)) {
    const [header, ...lines] = fs
      .readFileSync(labels, 'utf8')
      .split(/\r?\n/)
      .filter((l) => l.trim());
    const cols = header.split(',').map((c) => c.trim().toLowerCase());
    const [fi, ii, gi] = ['file', 'identity', 'group'].map((c) => cols.indexOf(c));
    if (fi < 0 || ii < 0) throw new Error(`${labels} needs the columns file, identity`);
    const photos = lines.map((l) => {
      const c = l.split(',').map((v) => v.trim());
      return { file: c[fi], identity: c[ii], ...(gi >= 0 && c[gi] ? { group: c[gi] } : {}) };
    });
    return { dir, photos, from: labels };
  }
  if (!fs.existsSync(path.join(dir, 'pairs.csv'))) {
    const people = fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory() && !e.name.startsWith('.')) : [];
    if (people.length === 0) throw new Error(`no labels.csv, pairs.csv or folder per person in ${dir}`);
    const photos = people
      .map((e) => e.name)
      .sort()
      .flatMap((identity) =>
        fs
          .readdirSync(path.join(dir, identity))
          .filter((f) => IMAGE_FILE.test(f))
          .sort()
          .map((f) => ({ file: path.join(identity, f), identity })),
      );
    return { dir, photos, from: `${dir} (a folder per person)` };
  }
  const pairs = readPairs(dir);
  const parent = new Map<string, string>();
  const root = (x: string): string => {
    let r = x;
    while (parent.get(r) !== r) r = parent.get(r)!;
    parent.set(x, r);
    return r;
  };
  for (const p of pairs) for (const f of [p.x, p.y]) if (!parent.has(f)) parent.set(f, f);
  for (const p of pairs.filter((q) => q.same)) parent.set(root(p.x), root(p.y));
  const bad = pairs.filter((p) => !p.same && root(p.x) === root(p.y));
  if (bad.length) throw new Error(`pairs.csv: ${bad.length} impostor pair(s) inside one identity joined from its genuine pairs (e.g. ${bad[0].x}, ${bad[0].y})`);
  const photos = [...parent.keys()].sort().map((file) => ({ file, identity: `person-of-${root(file)}` }));
  return { dir, photos, from: `${path.join(dir, 'pairs.csv')} (identities joined from its genuine pairs)` };
}

export interface Distribution {
  n: number;
  min: number;
  p01: number;
  p05: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

function quantile(sorted: Float64Array, q: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))))];
}

export function distribution(values: Float64Array): Distribution {
  const s = Float64Array.from(values).sort();
  return {
    n: s.length,
    min: s[0] ?? NaN,
    p01: quantile(s, 0.01),
    p05: quantile(s, 0.05),
    p50: quantile(s, 0.5),
    p95: quantile(s, 0.95),
    p99: quantile(s, 0.99),
    max: s[s.length - 1] ?? NaN,
  };
}

/** Every pair's cosine, split genuine / impostor, with the pair's groups (a pair across two groups counts in neither group's row). */
export function scoreAllPairs(photos: EmbeddedPhoto[]): {
  genuine: number[];
  impostor: number[];
  genuineGroup: (string | undefined)[];
  impostorGroup: (string | undefined)[];
} {
  const genuine: number[] = [];
  const impostor: number[] = [];
  const genuineGroup: (string | undefined)[] = [];
  const impostorGroup: (string | undefined)[] = [];
  for (let i = 0; i < photos.length; i++) {
    for (let j = i + 1; j < photos.length; j++) {
      const a = photos[i];
      const b = photos[j];
      const cosine = a.embedding && b.embedding ? dot(a.embedding, b.embedding) : -1;
      const group = a.group !== undefined && a.group === b.group ? a.group : undefined;
      if (a.identity === b.identity) {
        genuine.push(cosine);
        genuineGroup.push(group);
      } else {
        impostor.push(cosine);
        impostorGroup.push(group);
      }
    }
  }
  return { genuine, impostor, genuineGroup, impostorGroup };
}

/**
 * Cosine above which a fraction `far` of impostors is expected: an exponential
 * tail fitted to the impostors above their 99th percentile (peaks over a
 * threshold), so FARs finer than the sample resolves (1e-4, 1e-5 on a few
 * tens of thousands of pairs) are extrapolated rather than read off the one
 * or two highest pairs. Never below the highest impostor seen when the sample
 * resolves `far`.
 */
export function impostorTailThreshold(impostor: ArrayLike<number>, far: number): number {
  const s = Float64Array.from(impostor).sort();
  const n = s.length;
  const k = Math.max(10, Math.floor(n * 0.01));
  const u = s[n - k - 1];
  let excess = 0;
  for (let i = n - k; i < n; i++) excess += s[i] - u;
  const beta = Math.max(1e-6, excess / k);
  const extrapolated = u + beta * Math.log(k / n / far);
  return 1 / far <= n ? Math.max(extrapolated, s[n - Math.max(1, Math.floor(far * n))]) : Math.max(extrapolated, s[n - 1]);
}

export interface MapFit {
  knots: [number, number][];
  /** The cosines of the API thresholds: match 80 and search 0.85. */
  match80: number;
  search85: number;
}

/**
 * A similarity map from genuine/impostor distributions: similarity 0.80 (face
 * match's "same person") at the impostor tail's FAR 1e-4, 0.85 (search's
 * default, a 1:N question) at FAR 1e-5, 0.95 at the genuine pairs' 90th
 * percentile, linear between; cosine 0 and below maps to 0.
 */
export function fitSimilarityMap(genuine: ArrayLike<number>, impostor: ArrayLike<number>): MapFit {
  const r = (x: number) => Math.round(x * 1000) / 1000;
  const match80 = r(impostorTailThreshold(impostor, 1e-4));
  const search85 = r(Math.max(match80 + 0.01, impostorTailThreshold(impostor, 1e-5)));
  const g = Float64Array.from(genuine)
    .filter((c) => c > -1)
    .sort();
  const top = r(Math.min(0.99, Math.max(search85 + 0.05, quantile(g, 0.9))));
  return {
    match80,
    search85,
    knots: [
      [-1, 0],
      [0, 0],
      [match80, 0.8],
      [search85, 0.85],
      [top, 0.95],
      [1, 1],
    ],
  };
}

/** The fewest pairs a map is fitted on: the impostor tail needs a few dozen pairs to say anything. */
export const MIN_CALIBRATION_PAIRS = { genuine: 10, impostor: 50 };

export interface Calibration {
  model: string;
  photos: number;
  identities: number;
  noFace: string[];
  pairs: { genuine: number; impostor: number };
  genuine: Distribution;
  impostor: Distribution;
  /** TAR at the cosine just above the impostors' (1 - far) quantile; `resolved` false when the set has fewer than 1/far impostor pairs (then it is the zero-impostor threshold). */
  tarAtFar: { far: number; cosine: number; tar: number; resolved: boolean }[];
  map: SimilarityMap;
  /** The API thresholds with the fitted map, and what they accept on this set. */
  suggested: {
    matchThreshold: number;
    searchThreshold: number;
    match: { genuineAccepted: number; impostorAccepted: number };
    search: { genuineAccepted: number; impostorAccepted: number };
    /** The thresholds (on the fitted map) above every impostor of this set. */
    zeroImpostors: { matchThreshold: number; searchThreshold: number };
  };
}

export class CalibrationError extends Error {
  override name = 'CalibrationError';
}

/**
 * Fits `model`'s similarity map to embedded labelled photos (fitSimilarityMap:
 * match's 80 at the impostor tail's FAR 1e-4, search's 0.85 at 1e-5) and
 * measures the set with it. A photo without a face scores -1 in every pair.
 */
export function calibrate(model: string, photos: EmbeddedPhoto[], version: string): Calibration {
  const scored = scoreAllPairs(photos);
  const identities = new Set(photos.map((p) => p.identity)).size;
  if (identities < 2 || scored.genuine.length < MIN_CALIBRATION_PAIRS.genuine || scored.impostor.length < MIN_CALIBRATION_PAIRS.impostor) {
    throw new CalibrationError(
      `${photos.length} photo(s) of ${identities} people give ${scored.genuine.length} genuine and ${scored.impostor.length} impostor pairs; ` +
        `a fit needs at least ${MIN_CALIBRATION_PAIRS.genuine} and ${MIN_CALIBRATION_PAIRS.impostor} (more people and at least two photos each)`,
    );
  }
  const genuine = Float64Array.from(scored.genuine);
  const impostor = Float64Array.from(scored.impostor);
  const impDesc = Float64Array.from(impostor).sort().reverse();
  const tarAt = (far: number) => {
    const allowed = Math.floor(far * impDesc.length);
    const cosine = impDesc[Math.min(allowed, impDesc.length - 1)] + 1e-6;
    return { far, cosine, tar: genuine.filter((c) => c >= cosine).length / genuine.length, resolved: far === 0 || allowed >= 1 };
  };
  const fit = fitSimilarityMap(genuine, impostor);
  const toSimilarity = (c: number) => (c <= -1 ? 0 : cosineToSimilarity(c, fit.knots));
  const accepted = (values: Float64Array, threshold: number) => values.filter((c) => toSimilarity(c) >= threshold).length;
  const zero = impDesc[0] + 1e-6;
  const roundUp = (x: number, digits: number) => Math.ceil(x * 10 ** digits) / 10 ** digits;
  return {
    model,
    photos: photos.length,
    identities,
    noFace: photos.filter((p) => !p.embedding).map((p) => p.file),
    pairs: { genuine: genuine.length, impostor: impostor.length },
    genuine: distribution(genuine),
    impostor: distribution(impostor),
    tarAtFar: [tarAt(1e-3), tarAt(1e-4), tarAt(0)],
    map: { version, knots: fit.knots },
    suggested: {
      matchThreshold: 80,
      searchThreshold: 0.85,
      match: { genuineAccepted: accepted(genuine, 0.8), impostorAccepted: accepted(impostor, 0.8) },
      search: { genuineAccepted: accepted(genuine, 0.85), impostorAccepted: accepted(impostor, 0.85) },
      zeroImpostors: { matchThreshold: Math.max(80, roundUp(toSimilarity(zero) * 100, 1)), searchThreshold: Math.max(0.85, roundUp(toSimilarity(zero), 3)) },
    },
  };
}

const pct = (a: number, b: number) => `${a}/${b} (${((100 * a) / Math.max(1, b)).toFixed(2)}%)`;
const dist = (d: Distribution) =>
  `min ${d.min.toFixed(3)}  p1 ${d.p01.toFixed(3)}  p5 ${d.p05.toFixed(3)}  median ${d.p50.toFixed(3)}  p95 ${d.p95.toFixed(3)}  p99 ${d.p99.toFixed(3)}  max ${d.max.toFixed(3)}`;

export function formatCalibration(c: Calibration): string {
  const s = c.suggested;
  const far = (f: number) => (f === 0 ? 'zero impostors' : `FAR ${f.toExponential(0)}`);
  return [
    `recogniser ${c.model}: ${c.photos} photo(s) of ${c.identities} people; no face found in ${c.noFace.length}${c.noFace.length ? ` (${c.noFace.slice(0, 8).join(', ')}${c.noFace.length > 8 ? ', ...' : ''})` : ''}`,
    `pairs: ${c.pairs.genuine} genuine, ${c.pairs.impostor} impostor`,
    `genuine cosine   ${dist(c.genuine)}`,
    `impostor cosine  ${dist(c.impostor)}`,
    ...c.tarAtFar.map(
      (t) =>
        `TAR at ${far(t.far)}: ${(100 * t.tar).toFixed(2)}% (cosine >= ${t.cosine.toFixed(3)})${t.resolved ? '' : ` (fewer than ${Math.round(1 / t.far)} impostor pairs: this is the zero-impostor point)`}`,
    ),
    `similarity map ${c.map.version}: ${JSON.stringify(c.map.knots)}`,
    `suggested thresholds with this map: face match ${s.matchThreshold} (SAOLA_FACE_MATCH_THRESHOLD; the impostor tail's FAR 1e-4): genuine ${pct(s.match.genuineAccepted, c.pairs.genuine)}, impostors ${pct(s.match.impostorAccepted, c.pairs.impostor)}`,
    `  face search ${s.searchThreshold} (SAOLA_FACE_SEARCH_THRESHOLD; FAR 1e-5): genuine ${pct(s.search.genuineAccepted, c.pairs.genuine)}, impostors ${pct(s.search.impostorAccepted, c.pairs.impostor)}`,
    `  to refuse every impostor pair of this set: face match ${s.zeroImpostors.matchThreshold}, face search ${s.zeroImpostors.searchThreshold}`,
  ].join('\n');
}
