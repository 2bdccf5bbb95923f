import { prepare, type PreparedText } from './text.js';

/**
 * Which features the intent classifier reads. `syllables`: syllable unigrams
 * and bigrams of the text as written. `folded`: the same over the
 * accent-folded text, so chat typed without diacritics meets the same
 * features. `chars`: accent-folded character n-grams inside and across
 * syllable boundaries, which survive typos and slang spellings.
 */
export interface FeatureSet {
  syllables: boolean;
  folded: boolean;
  /** Character n-gram lengths, e.g. [3, 4]; empty for none. */
  chars: number[];
}

export const FEATURE_SETS = {
  syllablesOnly: { syllables: true, folded: false, chars: [] },
  syllablesFolded: { syllables: true, folded: true, chars: [] },
  syllablesFoldedChars: { syllables: true, folded: true, chars: [2, 3, 4] },
} as const satisfies Record<string, FeatureSet>;

export type FeatureSetName = keyof typeof FEATURE_SETS;

const DIGITS = /\d/;

function shape(token: string): string {
  return DIGITS.test(token) ? '#num' : token;
}

/** A run of tokens known to be an entity (a listed keyword, a number, a date). */
export interface EntityMask {
  entity: string;
  first: number;
  last: number;
}

/**
 * Feature strings of a text (duplicates removed). Words inside `masks` also
 * count as their entity: the bigrams around "<city>" are shared by every city,
 * so "bay tới Huế" and "bay tới Đà Lạt" look alike to the classifier.
 */
export function featureStrings(input: string | PreparedText, set: FeatureSet, masks: EntityMask[] = []): string[] {
  const text = typeof input === 'string' ? prepare(input) : input;
  const out = new Set<string>();
  const maskAt = new Map<number, EntityMask>();
  for (const m of masks) maskAt.set(m.first, m);
  // Word tokens, a masked run standing as one "<entity>" word for the bigrams.
  const sequence: { text: string; folded: string }[] = [];
  for (let i = 0; i < text.tokens.length; i++) {
    const mask = maskAt.get(i);
    if (mask) {
      out.add(`e:${mask.entity}`);
      sequence.push({ text: `<${mask.entity}>`, folded: `<${mask.entity}>` });
      i = mask.last - 1;
      continue;
    }
    const t = text.tokens[i]!;
    if (/[\p{L}\p{N}]/u.test(t.text)) sequence.push(t);
  }
  const words = text.tokens.filter((t) => /[\p{L}\p{N}]/u.test(t.text));
  if (set.syllables) {
    for (const w of words) out.add(`w:${shape(w.text)}`);
    let prev = '<s>';
    for (const w of sequence) {
      const s = shape(w.text);
      out.add(`b:${prev} ${s}`);
      prev = s;
    }
    out.add(`b:${prev} </s>`);
  }
  if (set.folded) {
    for (const w of words) out.add(`f:${shape(w.folded)}`);
    let prev = '<s>';
    for (const w of sequence) {
      const s = shape(w.folded);
      out.add(`fb:${prev} ${s}`);
      prev = s;
    }
    out.add(`fb:${prev} </s>`);
  }
  if (set.chars.length > 0) {
    const joined = ` ${words.map((w) => shape(w.folded)).join(' ')} `;
    for (const n of set.chars) {
      for (let i = 0; i + n <= joined.length; i++) {
        const gram = joined.slice(i, i + n);
        if (gram.trim()) out.add(`c:${gram}`);
      }
    }
  }
  return [...out];
}

/** Feature strings -> indices, fixed after training. */
export class Vocabulary {
  readonly index: Map<string, number>;

  constructor(entries: Iterable<string> = []) {
    this.index = new Map();
    for (const e of entries) if (!this.index.has(e)) this.index.set(e, this.index.size);
  }

  get size(): number {
    return this.index.size;
  }

  add(feature: string): number {
    let i = this.index.get(feature);
    if (i === undefined) {
      i = this.index.size;
      this.index.set(feature, i);
    }
    return i;
  }

  /** Known features' indices; unseen ones are dropped. */
  lookup(features: string[]): number[] {
    const out: number[] = [];
    for (const f of features) {
      const i = this.index.get(f);
      if (i !== undefined) out.push(i);
    }
    return out;
  }

  entries(): string[] {
    return [...this.index.keys()];
  }
}
