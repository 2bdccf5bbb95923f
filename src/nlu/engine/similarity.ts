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
 * Groups of indexes into `texts`, in the order of their first member. A text joins the first group whose first
 * member (the group's face) it resembles at `threshold` or more, else starts a group: one pass, each text
 * compared with the groups' faces only.
 */
export function groupSimilar(texts: string[], threshold = SIMILAR_AT): number[][] {
  const faces: TextVector[] = [];
  const groups: number[][] = [];
  texts.forEach((text, i) => {
    const v = textVector(text);
    let best = -1;
    let bestScore = threshold;
    for (let g = 0; g < faces.length; g++) {
      const score = cosine(v, faces[g]!);
      if (score >= bestScore) {
        best = g;
        bestScore = score;
      }
    }
    if (best >= 0) groups[best]!.push(i);
    else {
      faces.push(v);
      groups.push([i]);
    }
  });
  return groups;
}
