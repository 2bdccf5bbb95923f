import { prepare, type Token } from './text.js';

/**
 * Keyword entities: every listed value and synonym, accent-folded and split
 * into syllables, in a trie; a text is read left to right taking the longest
 * phrase at each token. A phrase shared by two entries goes to the one whose
 * spelling with diacritics matches the text, then to the first listed.
 */
export interface KeywordEntry {
  entity: string;
  /** The canonical value, answered as `real_value`. */
  value: string;
  synonyms: string[];
}

export interface DictionaryMatch {
  entity: string;
  value: string;
  /** Token indices [first, last). */
  first: number;
  last: number;
}

interface Candidate {
  entity: string;
  value: string;
  /** The phrase with diacritics, lower case, syllables joined by one space. */
  spelled: string;
}

interface TrieNode {
  next: Map<string, TrieNode>;
  candidates: Candidate[];
}

export interface DictionaryData {
  entries: KeywordEntry[];
}

function phraseTokens(phrase: string): Token[] {
  return prepare(phrase).tokens.filter((t) => /[\p{L}\p{N}]/u.test(t.text));
}

export class KeywordDictionary {
  private readonly root: TrieNode = { next: new Map(), candidates: [] };
  /** `entity \u0000 folded phrase` -> canonical value. */
  private readonly canonicalOf = new Map<string, string>();

  constructor(readonly entries: KeywordEntry[]) {
    for (const entry of entries) {
      for (const phrase of [entry.value, ...entry.synonyms]) {
        const tokens = phraseTokens(phrase);
        if (tokens.length === 0) continue;
        const key = `${entry.entity}\u0000${tokens.map((t) => t.folded).join(' ')}`;
        if (!this.canonicalOf.has(key)) this.canonicalOf.set(key, entry.value);
        let node = this.root;
        for (const t of tokens) {
          let child = node.next.get(t.folded);
          if (!child) {
            child = { next: new Map(), candidates: [] };
            node.next.set(t.folded, child);
          }
          node = child;
        }
        const spelled = tokens.map((t) => t.text).join(' ');
        if (!node.candidates.some((c) => c.entity === entry.entity && c.value === entry.value && c.spelled === spelled)) {
          node.candidates.push({ entity: entry.entity, value: entry.value, spelled });
        }
      }
    }
  }

  get size(): number {
    return this.entries.length;
  }

  /** Longest non-overlapping matches over word tokens (punctuation tokens never start or continue a phrase). */
  match(tokens: Token[]): DictionaryMatch[] {
    const out: DictionaryMatch[] = [];
    let i = 0;
    while (i < tokens.length) {
      let node: TrieNode | undefined = this.root;
      let best: { last: number; candidates: Candidate[] } | undefined;
      for (let j = i; j < tokens.length && node; j++) {
        node = node.next.get(tokens[j]!.folded);
        if (node && node.candidates.length > 0) best = { last: j + 1, candidates: node.candidates };
      }
      if (!best) {
        i++;
        continue;
      }
      const spelled = tokens
        .slice(i, best.last)
        .map((t) => t.text)
        .join(' ');
      const chosen = best.candidates.find((c) => c.spelled === spelled) ?? best.candidates[0]!;
      out.push({ entity: chosen.entity, value: chosen.value, first: i, last: best.last });
      i = best.last;
    }
    return out;
  }

  /** The canonical value of a phrase, if the dictionary lists it for this entity. */
  canonical(entity: string, phrase: string): string | undefined {
    return this.canonicalOf.get(
      `${entity}\u0000${phraseTokens(phrase)
        .map((t) => t.folded)
        .join(' ')}`,
    );
  }
}
