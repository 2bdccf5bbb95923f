import { featureStrings, groupWeight } from './features.js';
import { prepare } from './text.js';

/**
 * Grouping of texts that say the same thing, so one label covers many: each text is the classifier's own feature
 * set (syllables, bigrams, their accent-folded forms, character n-grams; no entity masks, which need a model),
 * each feature at its group's weight, and two texts belong together when the cosine of those vectors reaches
 * `SIMILAR_AT`.
 */

/**
 * Measured on 900 generated paraphrases of 30 intents (as written, without diacritics, with typos): at 0.5 they
 * form 189 groups and 99.0% of the texts sit in a group whose commonest intent is theirs; at 0.4, 126 groups at
 * 94.1%; at 0.6, 266 groups at 99.9%. A wrong label on a whole group costs more than a second click.
 */
export const SIMILAR_AT = 0.5;

export interface TextVector {
  features: Map<string, number>;
  norm: number;
}

export function textVector(text: string): TextVector {
  const features = new Map<string, number>();
  let sum = 0;
  for (const f of featureStrings(prepare(text))) {
    const w = groupWeight(f);
    features.set(f, w);
    sum += w * w;
  }
  return { features, norm: Math.sqrt(sum) };
}

export function cosine(a: TextVector, b: TextVector): number {
  if (a.norm === 0 || b.norm === 0) return 0;
  const [small, large] = a.features.size <= b.features.size ? [a, b] : [b, a];
  let dot = 0;
  for (const [f, w] of small.features) {
    const v = large.features.get(f);
    if (v !== undefined) dot += w * v;
  }
  return dot / (a.norm * b.norm);
}

/**
 * Groups of indexes into `texts`, in the order of their first member. A text joins the group whose first member
 * (the group's face) it resembles most, at `threshold` or more, else starts a group: one pass, each text scored
 * against the faces through an index from feature to the faces holding it, so only faces sharing a feature cost.
 */
export function groupSimilar(texts: string[], threshold = SIMILAR_AT): number[][] {
  const postings = new Map<string, { face: number; weight: number }[]>();
  const faceNorms: number[] = [];
  const groups: number[][] = [];
  let dots = new Float64Array(16);
  texts.forEach((text, i) => {
    const v = textVector(text);
    if (dots.length < faceNorms.length) dots = new Float64Array(faceNorms.length * 2);
    dots.fill(0, 0, faceNorms.length);
    for (const [f, w] of v.features) for (const p of postings.get(f) ?? []) dots[p.face]! += w * p.weight;
    let best = -1;
    let bestScore = threshold;
    if (v.norm > 0) {
      for (let g = 0; g < faceNorms.length; g++) {
        if (dots[g] === 0) continue;
        const score = dots[g]! / (v.norm * faceNorms[g]!);
        if (score >= bestScore) {
          best = g;
          bestScore = score;
        }
      }
    }
    if (best >= 0) {
      groups[best]!.push(i);
      return;
    }
    const face = faceNorms.length;
    faceNorms.push(v.norm);
    groups.push([i]);
    for (const [f, w] of v.features) {
      const list = postings.get(f);
      if (list) list.push({ face, weight: w });
      else postings.set(f, [{ face, weight: w }]);
    }
  });
  return groups;
}
