/**
 * Face verification and search measured on people: a folder of photos with a
 * labels.csv (`file`, `identity`, optional `group`). Every pair of photos is
 * scored (genuine: same identity; impostor: different), so a set of a few
 * hundred photos gives tens of thousands of impostor pairs. Used by
 * `npm run eval:face -- --labels <dir>` and by the model comparison bench; the
 * embeddings come from any model, the numbers from `summariseIdentities`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { cosineToSimilarity, dot } from '../../src/face/engine/similarity.js';
import type { RecogniserSpec } from '../../src/face/engine/recogniser.js';
import { distribution, fitSimilarityMap, scoreAllPairs, type Distribution, type EmbeddedPhoto, type LabelledPhoto, type MapFit } from '../../src/face/calibration.js';
import { seededRandom } from '../../src/platform/random.js';

export {
  distribution,
  fitSimilarityMap,
  impostorTailThreshold,
  readLabels,
  scoreAllPairs,
  type Distribution,
  type EmbeddedPhoto,
  type LabelledPhoto,
  type MapFit,
} from '../../src/face/calibration.js';

type Knots = ReadonlyArray<readonly [number, number]>;

export interface PairRates {
  genuine: number;
  impostor: number;
  genuineAccepted: number;
  impostorAccepted: number;
}

export interface IdentitySummary {
  photos: number;
  identities: number;
  noFace: string[];
  pairs: { genuine: number; impostor: number };
  /** Cosines of every pair, no face scoring -1 (a false reject, never a false accept). */
  genuine: Float64Array;
  impostor: Float64Array;
  genuineDist: Distribution;
  impostorDist: Distribution;
  match: PairRates & { threshold: number };
  search: PairRates & { threshold: number };
  /** TAR at the cosine threshold just above the (1 - far) quantile of the impostors. */
  tarAtFar1e3: { threshold: number; tar: number };
  /** TAR with every impostor refused: the threshold just above the highest impostor. */
  tarAtZeroImpostors: { threshold: number; tar: number };
  /** Leave-one-out search: every photo whose person has another photo, against all the others (best face per person). */
  searchTop1: { queries: number; rank1: number; rank1AtThreshold: number; wrongAtThreshold: number };
  /** Search with one enrolled photo per person (the first by file name) and every other photo a query. */
  searchEnrolOne: { queries: number; rank1: number; rank1AtThreshold: number; wrongAtThreshold: number };
  groups: {
    group: string;
    photos: number;
    genuine: number;
    genuineMatched: number;
    impostor: number;
    impostorMatched: number;
    searchQueries: number;
    searchTop1AtThreshold: number;
  }[];
}

interface SearchOutcome {
  query: EmbeddedPhoto;
  correct: boolean;
  cosine: number;
}

/** Best cosine per person among `gallery` for each query; queries without a face are misses. */
function searchAll(queries: EmbeddedPhoto[], gallery: (q: EmbeddedPhoto) => EmbeddedPhoto[]): SearchOutcome[] {
  return queries.map((q) => {
    if (!q.embedding) return { query: q, correct: false, cosine: -1 };
    const best = new Map<string, number>();
    for (const g of gallery(q)) {
      if (!g.embedding) continue;
      const c = dot(q.embedding, g.embedding);
      if (c > (best.get(g.identity) ?? -2)) best.set(g.identity, c);
    }
    let who = '';
    let cosine = -1;
    for (const [id, c] of best) if (c > cosine) [who, cosine] = [id, c];
    return { query: q, correct: who === q.identity, cosine };
  });
}

function searchCounts(outcomes: SearchOutcome[], toSimilarity: (c: number) => number, threshold: number) {
  return {
    queries: outcomes.length,
    rank1: outcomes.filter((o) => o.correct).length,
    rank1AtThreshold: outcomes.filter((o) => o.correct && toSimilarity(o.cosine) >= threshold).length,
    wrongAtThreshold: outcomes.filter((o) => !o.correct && o.cosine > -1 && toSimilarity(o.cosine) >= threshold).length,
  };
}

/** The numbers of one embedded set at the API thresholds of `knots` (match: similarity x 100 >= matchThreshold; search: >= searchThreshold). */
export function summariseIdentities(photos: EmbeddedPhoto[], opts: { knots?: Knots; matchThreshold?: number; searchThreshold?: number } = {}): IdentitySummary {
  const toSimilarity = (c: number) => (c <= -1 ? 0 : cosineToSimilarity(c, opts.knots));
  const matchThreshold = opts.matchThreshold ?? 80;
  const searchThreshold = opts.searchThreshold ?? 0.85;
  const scored = scoreAllPairs(photos);
  const genuine = Float64Array.from(scored.genuine);
  const impostor = Float64Array.from(scored.impostor);
  const rates = (accept: (c: number) => boolean, threshold: number) => ({
    threshold,
    genuine: genuine.length,
    impostor: impostor.length,
    genuineAccepted: genuine.filter(accept).length,
    impostorAccepted: impostor.filter(accept).length,
  });
  const impDesc = Float64Array.from(impostor).sort().reverse();
  const atFar = (far: number) => {
    const allowed = Math.floor(far * impDesc.length);
    const threshold = impDesc.length > allowed ? impDesc[allowed] + 1e-6 : -1;
    return { threshold, tar: genuine.filter((c) => c >= threshold).length / Math.max(1, genuine.length) };
  };
  const counts = new Map<string, number>();
  for (const p of photos) counts.set(p.identity, (counts.get(p.identity) ?? 0) + 1);
  const queries = photos.filter((p) => (counts.get(p.identity) ?? 0) > 1);
  const loo = searchAll(queries, (q) => photos.filter((g) => g !== q));
  const sorted = [...photos].sort((a, b) => a.file.localeCompare(b.file));
  const enrolled = new Map<string, EmbeddedPhoto>();
  for (const p of sorted) if (!enrolled.has(p.identity)) enrolled.set(p.identity, p);
  const enrolGallery = [...enrolled.values()];
  const enrolOne = searchAll(
    sorted.filter((p) => enrolled.get(p.identity) !== p),
    () => enrolGallery,
  );
  const groups = [...new Set(photos.map((p) => p.group).filter((g): g is string => g !== undefined))].sort().map((group) => {
    const gen = scored.genuine.filter((_, i) => scored.genuineGroup[i] === group);
    const imp = scored.impostor.filter((_, i) => scored.impostorGroup[i] === group);
    const s = loo.filter((o) => o.query.group === group);
    return {
      group,
      photos: photos.filter((p) => p.group === group).length,
      genuine: gen.length,
      genuineMatched: gen.filter((c) => toSimilarity(c) * 100 >= matchThreshold).length,
      impostor: imp.length,
      impostorMatched: imp.filter((c) => toSimilarity(c) * 100 >= matchThreshold).length,
      searchQueries: s.length,
      searchTop1AtThreshold: s.filter((o) => o.correct && toSimilarity(o.cosine) >= searchThreshold).length,
    };
  });
  return {
    photos: photos.length,
    identities: counts.size,
    noFace: photos.filter((p) => !p.embedding).map((p) => p.file),
    pairs: { genuine: genuine.length, impostor: impostor.length },
    genuine,
    impostor,
    genuineDist: distribution(genuine),
    impostorDist: distribution(impostor),
    match: rates((c) => toSimilarity(c) * 100 >= matchThreshold, matchThreshold),
    search: rates((c) => toSimilarity(c) >= searchThreshold, searchThreshold),
    tarAtFar1e3: atFar(1e-3),
    tarAtZeroImpostors: atFar(0),
    searchTop1: searchCounts(loo, toSimilarity, searchThreshold),
    searchEnrolOne: searchCounts(enrolOne, toSimilarity, searchThreshold),
    groups,
  };
}

const pct = (a: number, b: number) => `${a}/${b} (${((100 * a) / Math.max(1, b)).toFixed(1)}%)`;
const fmtDist = (d: Distribution) =>
  `n ${d.n}: min ${d.min.toFixed(3)} p1 ${d.p01.toFixed(3)} p5 ${d.p05.toFixed(3)} median ${d.p50.toFixed(3)} p95 ${d.p95.toFixed(3)} p99 ${d.p99.toFixed(3)} max ${d.max.toFixed(3)}`;

/** Counts per 0.05 of cosine, genuine and impostor side by side (a text histogram). */
export function histogram(genuine: Float64Array, impostor: Float64Array, step = 0.05): string[] {
  const lo = Math.floor(Math.min(...impostor.filter((c) => c > -1), ...genuine.filter((c) => c > -1)) / step) * step;
  const rows = ['cosine bin | genuine | impostor'];
  for (let x = lo; x < 1; x += step) {
    const inBin = (c: number) => c >= x && c < x + step;
    const g = genuine.filter(inBin).length;
    const i = impostor.filter(inBin).length;
    if (g || i) rows.push(`${x.toFixed(2)}-${(x + step).toFixed(2)} | ${g} | ${i}`);
  }
  return rows;
}

export function formatIdentitySummary(s: IdentitySummary, label: string): string {
  const lines = [
    `${label}: ${s.photos} photos of ${s.identities} people; no face found in ${s.noFace.length}${s.noFace.length ? ` (${s.noFace.slice(0, 8).join(', ')}${s.noFace.length > 8 ? ', ...' : ''})` : ''}`,
    `pairs: ${s.pairs.genuine} genuine, ${s.pairs.impostor} impostor (every pair; a photo without a face scores -1)`,
    `face match (similarity >= ${s.match.threshold}): genuine matched ${pct(s.match.genuineAccepted, s.match.genuine)}, impostors matched ${pct(s.match.impostorAccepted, s.match.impostor)}`,
    `search threshold ${s.search.threshold} on pairs: genuine ${pct(s.search.genuineAccepted, s.search.genuine)}, impostors ${pct(s.search.impostorAccepted, s.search.impostor)}`,
    `TAR at FAR 1e-3: ${(100 * s.tarAtFar1e3.tar).toFixed(2)}% (cosine >= ${s.tarAtFar1e3.threshold.toFixed(3)}); at zero impostors: ${(100 * s.tarAtZeroImpostors.tar).toFixed(2)}% (cosine >= ${s.tarAtZeroImpostors.threshold.toFixed(3)})`,
    `genuine cosine  ${fmtDist(s.genuineDist)}`,
    `impostor cosine ${fmtDist(s.impostorDist)}`,
    `search top-1, leave one out (${s.searchTop1.queries} queries): right person first ${pct(s.searchTop1.rank1, s.searchTop1.queries)}, and at >= ${s.search.threshold} ${pct(s.searchTop1.rank1AtThreshold, s.searchTop1.queries)}; wrong person at >= ${s.search.threshold}: ${s.searchTop1.wrongAtThreshold}`,
    `search top-1, one enrolled photo per person (${s.searchEnrolOne.queries} queries): right person first ${pct(s.searchEnrolOne.rank1, s.searchEnrolOne.queries)}, and at >= ${s.search.threshold} ${pct(s.searchEnrolOne.rank1AtThreshold, s.searchEnrolOne.queries)}; wrong person at >= ${s.search.threshold}: ${s.searchEnrolOne.wrongAtThreshold}`,
  ];
  if (s.groups.length) {
    lines.push('group | photos | genuine matched | impostors matched (pairs within the group) | search top-1 at threshold');
    for (const g of s.groups)
      lines.push(
        `${g.group} | ${g.photos} | ${pct(g.genuineMatched, g.genuine)} | ${pct(g.impostorMatched, g.impostor)} | ${pct(g.searchTop1AtThreshold, g.searchQueries)}`,
      );
  }
  return lines.join('\n');
}

/**
 * Embeds every labelled photo with the shipped engine in this thread (as face
 * match does, ID-card check off), timing each photo's process CPU. A photo that
 * is not a JPEG is first re-encoded as one (quality 95), as a client of the
 * JPEG-only API would.
 */
export async function embedWithEngine(
  dir: string,
  photos: LabelledPhoto[],
  log: (line: string) => void = () => {},
  recogniser?: RecogniserSpec,
): Promise<{ photos: EmbeddedPhoto[]; cpuMs: number[]; wallMs: number[] }> {
  const { analyze } = await import('../../src/face/engine/worker.js');
  const { loadFaceConfig } = await import('../../src/face/config.js');
  const sharp = (await import('sharp')).default;
  const cfg = loadFaceConfig({});
  const out: EmbeddedPhoto[] = [];
  const cpuMs: number[] = [];
  const wallMs: number[] = [];
  for (const [i, p] of photos.entries()) {
    let bytes: Buffer = fs.readFileSync(path.join(dir, p.file));
    if (!(bytes[0] === 0xff && bytes[1] === 0xd8)) bytes = await sharp(bytes).jpeg({ quality: 95 }).toBuffer();
    const cpu = process.cpuUsage();
    const t = performance.now();
    const r = await analyze({
      image: bytes,
      detectThreshold: cfg.detectThreshold,
      checkCard: false,
      subject: { centreWeight: cfg.subjectCentreWeight, secondFaceSharpness: cfg.secondFaceSharpness },
      ...(recogniser ? { recogniser } : {}),
    });
    const used = process.cpuUsage(cpu);
    wallMs.push(performance.now() - t);
    cpuMs.push((used.user + used.system) / 1000);
    out.push({ ...p, embedding: r.ok && r.primary ? r.primary.embedding : null });
    if ((i + 1) % 50 === 0) log(`embedded ${i + 1}/${photos.length}`);
  }
  return { photos: out, cpuMs, wallMs };
}

/** Deterministic shuffle so folds are the same on every run. */
function shuffled<T>(xs: T[], seed: number): T[] {
  const out = [...xs];
  const rand = seededRandom(seed);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

export interface HeldOutFit {
  folds: { fit: MapFit; people: number }[];
  /** Pooled over the folds: each fold's people scored with the map fitted on the other folds' people only. */
  match: PairRates;
  search: PairRates;
  searchTop1: { queries: number; rank1AtThreshold: number; wrongAtThreshold: number };
}

/**
 * K-fold cross-validation over people: the map is fitted on the pairs of the
 * other folds' people and applied to the held-out people's pairs (genuine and
 * impostor pairs inside the held-out fold) and to their leave-one-out search
 * among themselves, so no number comes from the pairs it was fitted on.
 */
export function crossValidateMap(photos: EmbeddedPhoto[], k = 5, seed = 27): HeldOutFit {
  const people = shuffled([...new Set(photos.map((p) => p.identity))].sort(), seed);
  const folds: HeldOutFit['folds'] = [];
  const match: PairRates = { genuine: 0, impostor: 0, genuineAccepted: 0, impostorAccepted: 0 };
  const search: PairRates = { genuine: 0, impostor: 0, genuineAccepted: 0, impostorAccepted: 0 };
  const top1 = { queries: 0, rank1AtThreshold: 0, wrongAtThreshold: 0 };
  for (let f = 0; f < k; f++) {
    const held = new Set(people.filter((_, i) => i % k === f));
    const train = scoreAllPairs(photos.filter((p) => !held.has(p.identity)));
    const fit = fitSimilarityMap(train.genuine, train.impostor);
    folds.push({ fit, people: held.size });
    const test = summariseIdentities(
      photos.filter((p) => held.has(p.identity)),
      { knots: fit.knots },
    );
    for (const key of Object.keys(match) as (keyof PairRates)[]) {
      match[key] += test.match[key];
      search[key] += test.search[key];
    }
    top1.queries += test.searchTop1.queries;
    top1.rank1AtThreshold += test.searchTop1.rank1AtThreshold;
    top1.wrongAtThreshold += test.searchTop1.wrongAtThreshold;
  }
  return { folds, match, search, searchTop1: top1 };
}

export function formatHeldOutFit(h: HeldOutFit): string {
  return [
    ...h.folds.map(
      (f, i) => `fold ${i + 1} (${f.people} people held out): fitted on the others, cosine at 80 ${f.fit.match80.toFixed(3)}, at 0.85 ${f.fit.search85.toFixed(3)}`,
    ),
    `held-out people, pooled: face match genuine ${pct(h.match.genuineAccepted, h.match.genuine)}, impostors ${pct(h.match.impostorAccepted, h.match.impostor)}`,
    `held-out people, pooled: search threshold on pairs genuine ${pct(h.search.genuineAccepted, h.search.genuine)}, impostors ${pct(h.search.impostorAccepted, h.search.impostor)}`,
    `held-out people, leave-one-out search within the fold: right person at >= 0.85 ${pct(h.searchTop1.rank1AtThreshold, h.searchTop1.queries)}, wrong person ${h.searchTop1.wrongAtThreshold}`,
  ].join('\n');
}
