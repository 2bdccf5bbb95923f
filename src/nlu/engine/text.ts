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

/** Each ASCII character lower-cased. */
const ASCII_LOWER = Array.from({ length: 128 }, (_, c) => String.fromCharCode(c).toLowerCase());

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

const LETTER = 1;
const NUMBER = 2;
const SPACE = 4;
const MARK = 16;
const KNOWN = 8;
/** Per UTF-16 unit, what `TOKEN` sees in it (`\p{L}`, `\p{N}`, `\s`) and whether it is a mark (`\p{M}`), filled in as units are met. */
const classes = new Uint8Array(0x10000);

function classOf(unit: number): number {
  const known = classes[unit]!;
  if (known !== 0) return known;
  const ch = String.fromCharCode(unit);
  const c = KNOWN | (/\p{L}/u.test(ch) ? LETTER : 0) | (/\p{N}/u.test(ch) ? NUMBER : 0) | (/\s/u.test(ch) ? SPACE : 0) | (MARKS.test(ch) ? MARK : 0);
  classes[unit] = c;
  return c;
}

const isDigit = (unit: number) => unit >= 48 && unit <= 57;

/**
 * The end of the token `TOKEN` matches at `start` (not a space) of a text without surrogate pairs: a number
 * with its separators and unit letters, a run of letters and digits, or one other character.
 */
function scanToken(text: string, start: number): number {
  const n = text.length;
  let p = start;
  if (isDigit(text.charCodeAt(p))) {
    while (p < n && isDigit(text.charCodeAt(p))) p++;
    // (?:[.,/:-]\d+)*
    for (;;) {
      const sep = text.charCodeAt(p);
      if (p + 1 < n && (sep === 46 || sep === 44 || sep === 47 || sep === 58 || sep === 45) && isDigit(text.charCodeAt(p + 1))) {
        p += 2;
        while (p < n && isDigit(text.charCodeAt(p))) p++;
      } else break;
    }
    // (?:\p{L}+\d*)?
    if (p < n && classOf(text.charCodeAt(p)) & LETTER) {
      while (p < n && classOf(text.charCodeAt(p)) & LETTER) p++;
      while (p < n && isDigit(text.charCodeAt(p))) p++;
    }
    return p;
  }
  if (classOf(text.charCodeAt(p)) & (LETTER | NUMBER)) {
    while (p < n && classOf(text.charCodeAt(p)) & (LETTER | NUMBER)) p++;
    return p;
  }
  return p + 1;
}

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
  return tokenizeTexts(lower.join(''), undefined, lower, folded);
}

/** `tokenize` given the lower-case text joined (`text`), and the folded one when known. */
function tokenizeTexts(text: string, foldedJoined: string | undefined, lower: string[], folded: string[]): Token[] {
  const tokens: Token[] = [];
  // No astral character (the usual case): code points are UTF-16 units, so offsets and the folded form are plain slices,
  // and the tokens are read unit by unit as `TOKEN` reads them (`scanToken`), without a match object each.
  if (text.length === lower.length) {
    const foldedText = foldedJoined ?? folded.join('');
    if (foldedText.length === folded.length) {
      let p = 0;
      while (p < text.length) {
        if (classOf(text.charCodeAt(p)) & SPACE) {
          p++;
          continue;
        }
        const end = scanToken(text, p);
        tokens.push({ text: text.slice(p, end), folded: foldedText.slice(p, end), start: p, end });
        p = end;
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
  let chars: string[];
  let originalStart: number[];
  let originalEnd: number[];
  if (simpleText(original)) {
    // Every UTF-16 unit is a code point and a cluster of its own, already NFC: arrays of the text's length, no growing.
    const n = original.length;
    chars = new Array<string>(n);
    originalStart = new Array<number>(n);
    originalEnd = new Array<number>(n);
    for (let k = 0; k < n; k++) {
      chars[k] = original[k]!;
      originalStart[k] = k;
      originalEnd[k] = k + 1;
    }
  } else {
    chars = [];
    originalStart = [];
    originalEnd = [];
    clusters(original, chars, originalStart, originalEnd);
  }
  const n = chars.length;
  const lower: string[] = new Array<string>(n);
  const folded: string[] = new Array<string>(n);
  // Both forms as strings for the tokenizer: from their code units when each character is one (cheaper than joining).
  let units = n <= 4096;
  lowerUnits.length = foldedUnits.length = units ? n : 0;
  for (let k = 0; k < n; k++) {
    const ch = chars[k]!;
    const unit = ch.charCodeAt(0);
    // ASCII lower-cases to ASCII and has nothing to fold.
    if (unit < 128 && ch.length === 1) folded[k] = lower[k] = ASCII_LOWER[unit]!;
    else folded[k] = foldChar((lower[k] = lowerChar(ch)));
    if (units) {
      if (lower[k]!.length !== 1 || folded[k]!.length !== 1) units = false;
      else {
        lowerUnits[k] = lower[k]!.charCodeAt(0);
        foldedUnits[k] = folded[k]!.charCodeAt(0);
      }
    }
  }
  const tokens = units ? tokenizeTexts(String.fromCharCode.apply(null, lowerUnits), String.fromCharCode.apply(null, foldedUnits), lower, folded) : tokenize(lower, folded);
  return { chars, lower, folded, tokens, originalStart, originalEnd };
}

/** Buffers of `prepare`: the code units of a text's lower-case and folded forms. */
const lowerUnits: number[] = [];
const foldedUnits: number[] = [];

/** A text without surrogates or combining marks (the usual case): nothing to cluster or normalise. */
function simpleText(text: string): boolean {
  for (let k = 0; k < text.length; k++) {
    const unit = text.charCodeAt(k);
    // Combining marks start at U+0300: below it no test is needed.
    if (unit >= 0x300 && ((unit >= 0xd800 && unit <= 0xdfff) || classOf(unit) & MARK)) return false;
  }
  return true;
}

/** The clusters of a text (a code point and its combining marks), each NFC, with where each code point came from. */
function clusters(original: string, chars: string[], originalStart: number[], originalEnd: number[]): void {
  const points = Array.from(original);
  let i = 0;
  while (i < points.length) {
    let j = i + 1;
    // Combining marks start at U+0300: below it no test is needed.
    while (j < points.length && points[j]!.charCodeAt(0) >= 0x300 && MARKS.test(points[j]!)) j++;
    const cluster = j === i + 1 ? points[i]! : points.slice(i, j).join('');
    const nfc = cluster.length === 1 ? cluster : cluster.normalize('NFC');
    if (nfc.length === 1) {
      chars.push(nfc);
      originalStart.push(i);
      originalEnd.push(j);
    } else {
      for (const ch of nfc) {
        chars.push(ch);
        originalStart.push(i);
        originalEnd.push(j);
      }
    }
    i = j;
  }
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
