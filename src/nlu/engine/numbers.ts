import { foldText, type Token } from './text.js';

/**
 * Vietnamese numbers in words or digits: "ba mươi", "hai trăm lẻ năm",
 * "một triệu rưỡi", "1.000.000", "1,5 triệu", "500k", "2tr". Read from the
 * folded tokens (text typed without diacritics too); a lone word that is only
 * a number once its marks are gone ("ba", "nam") is not taken for one.
 */

type Word =
  | { kind: 'digit'; value: number }
  | { kind: 'tens' } // mươi: the digit before times ten
  | { kind: 'ten' } // mười
  | { kind: 'zero-tens' } // lẻ, linh: "hai trăm lẻ năm"
  | { kind: 'hundred' }
  | { kind: 'dozen' } // chục
  | { kind: 'scale'; value: number }
  | { kind: 'half' }; // rưỡi

/** Accented spellings; the folded lookup is built from them. */
const WORDS: Record<string, Word> = {
  không: { kind: 'digit', value: 0 },
  một: { kind: 'digit', value: 1 },
  mốt: { kind: 'digit', value: 1 },
  hai: { kind: 'digit', value: 2 },
  ba: { kind: 'digit', value: 3 },
  bốn: { kind: 'digit', value: 4 },
  tư: { kind: 'digit', value: 4 },
  năm: { kind: 'digit', value: 5 },
  lăm: { kind: 'digit', value: 5 },
  nhăm: { kind: 'digit', value: 5 },
  sáu: { kind: 'digit', value: 6 },
  bảy: { kind: 'digit', value: 7 },
  bẩy: { kind: 'digit', value: 7 },
  tám: { kind: 'digit', value: 8 },
  chín: { kind: 'digit', value: 9 },
  mươi: { kind: 'tens' },
  mười: { kind: 'ten' },
  lẻ: { kind: 'zero-tens' },
  linh: { kind: 'zero-tens' },
  trăm: { kind: 'hundred' },
  chục: { kind: 'dozen' },
  nghìn: { kind: 'scale', value: 1_000 },
  ngàn: { kind: 'scale', value: 1_000 },
  triệu: { kind: 'scale', value: 1_000_000 },
  tỷ: { kind: 'scale', value: 1_000_000_000 },
  tỉ: { kind: 'scale', value: 1_000_000_000 },
  rưỡi: { kind: 'half' },
};

const FOLDED = new Map<string, Word>();
for (const [word, meaning] of Object.entries(WORDS)) {
  const key = foldText(word);
  // "muoi" is both mươi and mười: the reader decides by position.
  if (!FOLDED.has(key)) FOLDED.set(key, meaning);
}

const SLANG_SCALE: Record<string, number> = { k: 1_000, n: 1_000, ng: 1_000, tr: 1_000_000, ty: 1_000_000_000, t: 1_000_000_000 };

/** Numerals read so far (the readers of times, dates and numbers read the same token in turn): short ones only, bounded, cleared when full. */
const numerals = new Map<string, number | undefined>();

/** A written number: "500", "1.000.000", "1,5", "2.5", "500k", "2tr", "1tr5". */
export function parseNumeral(raw: string): number | undefined {
  const hit = numerals.get(raw);
  if (hit !== undefined || numerals.has(raw)) return hit;
  const value = readNumeral(raw);
  if (raw.length > 32) return value;
  if (numerals.size >= 10_000) numerals.clear();
  numerals.set(raw, value);
  return value;
}

/** A currency sign written onto a price: "1.200.000đ", "50.000₫", "200.000vnđ". */
const CURRENCY_SUFFIX = /(?:vnđ|vnd|đ|₫)$/;

function readNumeral(raw: string): number | undefined {
  const m = /^(\d+(?:[.,]\d+)*)([a-z]*)(\d*)$/.exec(raw.replace(CURRENCY_SUFFIX, ''));
  if (!m) return undefined;
  let digits = m[1]!;
  let value: number;
  if (/^\d{1,3}([.,]\d{3})+$/.test(digits) && !/^\d+[.,]\d{3}$/.test(digits)) value = Number(digits.replace(/[.,]/g, ''));
  else if (/^\d+[.,]\d{3}$/.test(digits))
    value = Number(digits.replace(/[.,]/g, '')); // 1.000 is a thousand in Vietnamese writing
  else if (/^\d+[.,]\d+$/.test(digits)) value = Number(digits.replace(',', '.'));
  else if (/^\d+$/.test(digits)) value = Number(digits);
  else return undefined;
  const unit = m[2]!;
  if (!unit) return m[3] ? undefined : value;
  const scale = SLANG_SCALE[unit];
  if (scale === undefined) return undefined;
  digits = m[3]!;
  // "1tr5": one million five hundred thousand.
  const tail = digits ? Number(digits) * (scale / 10 ** digits.length) : 0;
  return value * scale + tail;
}

export interface NumberMatch {
  value: number;
  /** Token indices [first, last). */
  first: number;
  last: number;
}

/** Whether a number may start at this token: a numeral (a leading digit) or a number word, marked or folded. */
export function mayStartNumber(token: Token): boolean {
  const c = token.text.charCodeAt(0);
  return (c >= 48 && c <= 57) || FOLDED.has(token.folded) || Object.hasOwn(WORDS, token.text);
}

function wordOf(token: Token): { word: Word; exact: boolean } | undefined {
  // Own keys only: a plain object's prototype would read "constructor" or "toString" as a number word.
  const exact = Object.hasOwn(WORDS, token.text) ? WORDS[token.text] : undefined;
  if (exact) return { word: exact, exact: true };
  const folded = FOLDED.get(token.folded);
  return folded ? { word: folded, exact: false } : undefined;
}

/**
 * Number words that, alone, are almost never a number in running text: "không" is the negation and the
 * question particle ("được không"), "tư" starts "tư vấn" and is a name ("chú Tư"), "mốt" is fashion and the
 * day after tomorrow, "lăm"/"nhăm" are only the five of "mười lăm", "hai mươi nhăm". With a neighbour that is
 * a number word they still count ("mười lăm", "hai mươi mốt"), and dates read them without this rule ("tháng tư").
 */
const NOT_ALONE = new Set(['không', 'tư', 'mốt', 'lăm', 'nhăm']);

/** Folded words after which "năm" is the year, not five: "năm nay", "năm ngoái", "năm sau", "năm học". */
const YEAR_AFTER = new Set(['nay', 'ngoai', 'sau', 'truoc', 'toi', 'roi', 'hoc', 'moi', 'kia', 'xua', 'do', 'ay', 'nao']);

/**
 * Whether the "năm" at `index` is the word for a year: right after a number it is the unit ("gửi 3 năm",
 * "hai năm"), before a year word or a four-digit year it names one ("năm nay", "năm 2025").
 */
function isYearWord(tokens: Token[], index: number): boolean {
  if (tokens[index]!.text !== 'năm') return false;
  const before = tokens[index - 1];
  if (before && (/^\d/.test(before.text) || wordOf(before) !== undefined)) return true;
  const after = tokens[index + 1];
  return after !== undefined && (YEAR_AFTER.has(after.folded) || /^\d{4}$/.test(after.text));
}

/**
 * Whether the numeral at `index` is (part of) an identifier rather than a quantity: a leading zero and seven
 * digits or more (a phone or account number), ten digits or more typed without separators (a quantity that large
 * is written with them or in words), or a group of digits typed apart ("0912 345 678", "1903 4567 8901"): a
 * first group with a leading zero, or three groups of two digits or more.
 */
function isIdentifier(tokens: Token[], index: number): boolean {
  const text = tokens[index]!.text;
  if (/^0\d{6,}$/.test(text) || /^\d{10,}$/.test(text)) return true;
  const group = (k: number) => tokens[k] !== undefined && /^\d{2,}$/.test(tokens[k]!.text);
  if (!group(index)) return false;
  let first = index;
  while (group(first - 1)) first--;
  let last = index;
  while (group(last + 1)) last++;
  const count = last - first + 1;
  return (count >= 2 && tokens[first]!.text.startsWith('0')) || count >= 3;
}

/** Slang scales written apart after a number: "500 k", "một trăm k", "2 tr". */
const SCALE_AFTER: Record<string, number> = { k: 1_000, tr: 1_000_000 };

/**
 * The longest number starting at token `first`, or undefined. `strict`: a
 * single word must be spelled with its diacritics to count, and must be one
 * that stands alone as a number (not `NOT_ALONE`, not the "năm" of a year), and a numeral that is an
 * identifier (a leading zero and seven digits or more: a phone or account number) is not a quantity.
 */
export function readNumber(tokens: Token[], first: number, strict = true): NumberMatch | undefined {
  let total = 0;
  let group = 0;
  let digit: number | undefined;
  let prev: Word['kind'] | 'numeral' | undefined;
  let lastScale = 0;
  let lastBig = 0;
  let used = 0;
  let exactWords = 0;
  let words = 0;
  let numerals = 0;
  let i = first;
  for (; i < tokens.length; i++) {
    const token = tokens[i]!;
    const numeral = /^\d/.test(token.text) ? parseNumeral(token.text) : undefined;
    if (numeral !== undefined) {
      if (
        digit !== undefined ||
        prev === 'numeral' ||
        (prev !== undefined && prev !== 'hundred' && prev !== 'scale' && prev !== 'tens' && prev !== 'ten' && prev !== 'zero-tens')
      )
        break;
      if (/[a-z]/.test(token.text)) {
        // A numeral carrying its own scale ends the number.
        total += numeral;
        numerals++;
        i++;
        used = i;
        prev = 'numeral';
        break;
      }
      digit = numeral;
      prev = 'numeral';
      numerals++;
      used = i + 1;
      continue;
    }
    const found = wordOf(token);
    if (!found) break;
    let { word } = found;
    // Folded "muoi" after a digit is mươi (x10), otherwise mười (10).
    if (!found.exact && token.folded === 'muoi') word = digit !== undefined ? { kind: 'tens' } : { kind: 'ten' };
    if (word.kind === 'digit') {
      if (digit !== undefined) break;
      // Five after ten is "lăm" ("mười lăm", "hai mươi lăm"): "mười năm", "hai mươi năm" are ten and twenty years.
      if ((prev === 'tens' || prev === 'ten') && token.folded === 'nam') break;
      if (prev === 'tens' || prev === 'ten' || prev === 'zero-tens') {
        group += word.value;
        prev = 'digit';
        lastScale = 0;
      } else {
        digit = word.value;
        prev = 'digit';
      }
    } else if (word.kind === 'tens') {
      if (digit === undefined || prev === 'numeral') break;
      group += digit * 10;
      digit = undefined;
      prev = 'tens';
      lastScale = 0;
    } else if (word.kind === 'ten') {
      if (digit !== undefined) break;
      group += 10;
      prev = 'ten';
      lastScale = 0;
    } else if (word.kind === 'zero-tens') {
      if (prev !== 'hundred' && prev !== 'scale') break;
      prev = 'zero-tens';
    } else if (word.kind === 'hundred') {
      if (prev === 'hundred' || (digit === undefined && prev !== undefined && prev !== 'scale')) break;
      group += (digit ?? 1) * 100;
      digit = undefined;
      prev = 'hundred';
      lastScale = 100;
    } else if (word.kind === 'dozen') {
      if (digit === undefined) break;
      group += digit * 10;
      digit = undefined;
      prev = 'dozen';
      lastScale = 10;
    } else if (word.kind === 'scale') {
      if (lastBig && word.value >= lastBig) {
        // "trăm nghìn" after a bigger scale: multiply the running group instead.
        if (group === 0 && digit === undefined) break;
      }
      const amount = group + (digit ?? 0) || (prev === undefined ? 1 : 0);
      if (amount === 0) break;
      total += amount * word.value;
      group = 0;
      digit = undefined;
      prev = 'scale';
      lastScale = word.value;
      lastBig = word.value;
    } else if (word.kind === 'half') {
      if (!lastScale || digit !== undefined) break;
      if (lastScale >= 1000) total += lastScale / 2;
      else group += lastScale / 2;
      prev = 'half';
      lastScale = 0;
      used = i + 1;
      words++;
      if (found.exact) exactWords++;
      i++;
      break;
    }
    words++;
    if (found.exact) exactWords++;
    used = i + 1;
  }
  if (used === 0 || used <= first) return undefined;
  if (strict && numerals === 1 && words === 0 && used === first + 1 && isIdentifier(tokens, first)) return undefined;
  if (digit !== undefined) {
    // "hai trăm năm" is 250 and "một nghìn hai", "1 triệu 2" are 1200 and 1,200,000 in speech: the lone digit after a scale is its next place.
    const lone = prev === 'digit' || (prev === 'numeral' && /^\d$/.test(tokens[used - 1]!.text));
    if (lone && tokens[used - 2] && isScaleAt(tokens, used - 2) && lastScale >= 100) {
      const place = lastScale / 10;
      if (lastScale >= 1000) total += digit * place;
      else group += digit * place;
    } else group += digit;
  }
  if (numerals === 0) {
    if (words === 0) return undefined;
    if (strict && words === 1 && (exactWords === 0 || NOT_ALONE.has(tokens[first]!.text) || isYearWord(tokens, first))) return undefined;
    const onlyToken = tokens[first]!;
    if (words === 1 && wordOf(onlyToken)?.word.kind !== 'digit' && wordOf(onlyToken)?.word.kind !== 'ten') return undefined;
  }
  const after = tokens[used] && Object.hasOwn(SCALE_AFTER, tokens[used]!.text) ? SCALE_AFTER[tokens[used]!.text] : undefined;
  if (after !== undefined && lastBig === 0 && !/^\d.*[a-z]/.test(tokens[used - 1]!.text)) return { value: (total + group) * after, first, last: used + 1 };
  return { value: total + group, first, last: used };
}

function isScaleAt(tokens: Token[], index: number): boolean {
  const found = wordOf(tokens[index]!);
  return found !== undefined && (found.word.kind === 'hundred' || found.word.kind === 'scale');
}
