/**
 * The text every part of the engine reads: NFC, lower case and an
 * accent-folded copy, one code point for one code point, with a map back to
 * the code-point offsets of the text as the client sent it (NFC or NFD).
 */

export interface Token {
  /** Lower-case NFC form. */
  text: string;
  /** Accent-folded form (no diacritics, đ -> d). */
  folded: string;
  /** Code-point offsets into the normalised text, end exclusive. */
  start: number;
  end: number;
}

export interface PreparedText {
  /** NFC, one string element per code point (astral characters included). */
  chars: string[];
  lower: string[];
  folded: string[];
  tokens: Token[];
  /** For each normalised code point, the code-point offset of its cluster in the original text. */
  originalStart: number[];
  /** For each normalised code point, the code-point offset just after its cluster in the original text. */
  originalEnd: number[];
}

const MARKS = /\p{M}/u;
const foldCache = new Map<string, string>();

/** Folds one code point: its base letter without marks; đ/Đ -> d. Always one code point. */
export function foldChar(ch: string): string {
  const hit = foldCache.get(ch);
  if (hit !== undefined) return hit;
  let out: string;
  if (ch === 'đ' || ch === 'Đ') out = 'd';
  else {
    const stripped = ch.normalize('NFD').replace(/\p{M}/gu, '');
    out = Array.from(stripped).length === 1 ? stripped : ch;
  }
  if (foldCache.size < 10_000) foldCache.set(ch, out);
  return out;
}

const lowerCache = new Map<string, string>();

function lowerChar(ch: string): string {
  const hit = lowerCache.get(ch);
  if (hit !== undefined) return hit;
  const lower = ch.toLowerCase();
  // A few characters lower-case to two code points (İ); keep the 1:1 map.
  const out = Array.from(lower).length === 1 ? lower : ch;
  if (lowerCache.size < 10_000) lowerCache.set(ch, out);
  return out;
}

/** Lower-case, accent-folded form of a whole string (for dictionary keys and comparisons). */
export function foldText(text: string): string {
  return Array.from(text.normalize('NFC'), (ch) => foldChar(lowerChar(ch))).join('');
}

/** Lower-case NFC form of a string. */
export function lowerText(text: string): string {
  return Array.from(text.normalize('NFC'), lowerChar).join('');
}

// Numbers keep their separators and unit letters (15/8, 1.000.000, 9h30, 500k); words are runs of letters and digits.
const TOKEN = /\d+(?:[.,/:-]\d+)*(?:\p{L}+\d*)?|[\p{L}\p{N}]+|[^\s]/gu;

/** Code points of `text` between two UTF-16 offsets (a low surrogate after a high one is the same code point). */
function codePoints(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff && i > from) {
      const p = text.charCodeAt(i - 1);
      if (p >= 0xd800 && p <= 0xdbff) continue;
    }
    n++;
  }
  return n;
}

export function tokenize(lower: string[], folded: string[]): Token[] {
  const text = lower.join('');
  const tokens: Token[] = [];
  // No astral character (the usual case): code points are UTF-16 units, so offsets and the folded form are plain slices.
  if (text.length === lower.length) {
    const foldedText = folded.join('');
    if (foldedText.length === folded.length) {
      for (const match of text.matchAll(TOKEN)) {
        const start = match.index ?? 0;
        const end = start + match[0].length;
        tokens.push({ text: match[0], folded: foldedText.slice(start, end), start, end });
      }
      return tokens;
    }
  }
  // Regex indices are UTF-16 units; count code points as we go.
  let unit = 0;
  let point = 0;
  for (const match of text.matchAll(TOKEN)) {
    const index = match.index ?? 0;
    point += codePoints(text, unit, index);
    const length = codePoints(match[0], 0, match[0].length);
    tokens.push({ text: match[0], folded: folded.slice(point, point + length).join(''), start: point, end: point + length });
    point += length;
    unit = index + match[0].length;
  }
  return tokens;
}

/**
 * Splits the original into clusters (a code point and its combining marks),
 * normalises each to NFC and records where each NFC code point came from.
 */
export function prepare(original: string): PreparedText {
  const chars: string[] = [];
  const originalStart: number[] = [];
  const originalEnd: number[] = [];
  const points = Array.from(original);
  let i = 0;
  while (i < points.length) {
    let j = i + 1;
    // Combining marks start at U+0300: below it no test is needed.
    while (j < points.length && points[j]!.charCodeAt(0) >= 0x300 && MARKS.test(points[j]!)) j++;
    const cluster = j === i + 1 ? points[i]! : points.slice(i, j).join('');
    const nfc = cluster.length === 1 ? cluster : cluster.normalize('NFC');
    for (const ch of nfc) {
      chars.push(ch);
      originalStart.push(i);
      originalEnd.push(j);
    }
    i = j;
  }
  const lower = chars.map(lowerChar);
  const folded = lower.map(foldChar);
  return { chars, lower, folded, tokens: tokenize(lower, folded), originalStart, originalEnd };
}

/** Maps a span of the normalised text back to code-point offsets of the original. */
export function originalSpan(text: PreparedText, start: number, end: number): { start: number; end: number } {
  return { start: text.originalStart[start] ?? 0, end: text.originalEnd[end - 1] ?? 0 };
}

/** The inverse: a span given in the original's code points, in the normalised text's code points. */
export function normalisedSpan(text: PreparedText, start: number, end: number): { start: number; end: number } | undefined {
  const s = text.originalStart.indexOf(start);
  let e = -1;
  for (let k = text.originalEnd.length - 1; k >= 0; k--) {
    if (text.originalEnd[k] === end) {
      e = k + 1;
      break;
    }
  }
  if (s < 0 || e <= s) return undefined;
  return { start: s, end: e };
}

/** The original text between two code-point offsets. */
export function slicePoints(original: string, start: number, end: number): string {
  return Array.from(original).slice(start, end).join('');
}
