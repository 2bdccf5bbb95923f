/**
 * Scoring speech recognition against a reference transcript: Vietnamese text
 * normalisation and word and character error rates. Used by `npm run eval:asr`
 * and `npm run eval:tts -- --asr`. Written apart from the synthesiser's text
 * normaliser (src/speech/tts/engine/normalise.ts) on purpose: a mistake shared by the
 * two would be invisible in a score that uses both.
 */

const DIGITS = ['không', 'một', 'hai', 'ba', 'bốn', 'năm', 'sáu', 'bảy', 'tám', 'chín'];
/** Each step is a thousand times the one before; past tỷ the names repeat (nghìn tỷ, triệu tỷ). */
const SCALES = ['', 'nghìn', 'triệu', 'tỷ'];

/** 0..999 read out; `full` reads a leading zero hundreds ("không trăm") as inside a larger number. */
function readTriple(n: number, full: boolean): string[] {
  const hundreds = Math.floor(n / 100);
  const tens = Math.floor((n % 100) / 10);
  const units = n % 10;
  const words: string[] = [];
  if (hundreds > 0 || full) words.push(DIGITS[hundreds], 'trăm');
  if (tens === 0) {
    if (units === 0) return words;
    if (words.length > 0) words.push('linh');
    words.push(DIGITS[units]);
    return words;
  }
  if (tens === 1) words.push('mười');
  else words.push(DIGITS[tens], 'mươi');
  if (units === 1) words.push(tens === 1 ? 'một' : 'mốt');
  else if (units === 4) words.push(tens === 1 ? 'bốn' : 'tư');
  else if (units === 5) words.push('lăm');
  else if (units > 0) words.push(DIGITS[units]);
  return words;
}

/**
 * A string of digits read as a Vietnamese number: 2024 → hai nghìn không trăm
 * hai mươi tư, 105 → một trăm linh năm, 1000000 → một triệu. A leading zero
 * (phone numbers, codes: 0912) is read digit by digit.
 */
export function readDigits(digits: string): string {
  if (!/^\d+$/.test(digits)) throw new Error(`not digits: ${digits}`);
  if (digits.length > 1 && digits.startsWith('0')) return [...digits].map((d) => DIGITS[Number(d)]).join(' ');
  if (/^0+$/.test(digits)) return DIGITS[0];
  // Groups of three from the right.
  const groups: number[] = [];
  for (let end = digits.length; end > 0; end -= 3) groups.unshift(Number(digits.slice(Math.max(0, end - 3), end)));
  const words: string[] = [];
  groups.forEach((group, i) => {
    const power = groups.length - 1 - i;
    if (group === 0) return;
    words.push(...readTriple(group, words.length > 0));
    words.push(...scaleName(power));
  });
  return words.join(' ');
}

/** nghìn, triệu, tỷ, nghìn tỷ, triệu tỷ, tỷ tỷ ... for 1000^power. */
function scaleName(power: number): string[] {
  if (power === 0) return [];
  const names: string[] = [];
  let p = power;
  while (p > 3) {
    names.unshift('tỷ');
    p -= 3;
  }
  if (SCALES[p]) names.unshift(SCALES[p]);
  return names;
}

/** Numbers in running text: 1.500.000 and 1,500,000 (thousands), 5,5 and 3.14 (decimals), 50%. */
function readNumbers(text: string): string {
  return text
    .replace(/(\d)\s*%/g, '$1 phần trăm')
    .replace(/\d{1,3}(?:\.\d{3})+(?![\d.,]\d)|\d{1,3}(?:,\d{3})+(?![\d.,]\d)/g, (m) => ` ${readDigits(m.replace(/[.,]/g, ''))} `)
    .replace(/(\d+)[.,](\d+)/g, (_, a: string, b: string) => ` ${readDigits(a)} phẩy ${readDigits(b)} `)
    .replace(/\d+/g, (m) => ` ${readDigits(m)} `);
}

const TONE_MARKS = new Set(['\u0300', '\u0301', '\u0303', '\u0309', '\u0323']);
const VOWELS = new Set([...'aăâeêioôơuưy']);
const MARKED_VOWELS = new Set([...'ăâêôơư']);

/**
 * One placement of the tone mark for every spelling of a syllable: the old
 * and new styles ("hòa"/"hoà", "thủy"/"thuỷ", "khỏe"/"khoẻ", "qúy"/"quý") all
 * become the new style (the mark on a vowel with its own diacritic, else on
 * the last vowel before a final consonant, else on the second vowel of oa,
 * oe, uy and the first of the other pairs, the middle of three).
 */
export function placeToneMark(word: string): string {
  const decomposed = word.normalize('NFD');
  const tone = [...decomposed].find((c) => TONE_MARKS.has(c));
  const bare = [
    ...[...decomposed]
      .filter((c) => !TONE_MARKS.has(c))
      .join('')
      .normalize('NFC'),
  ];
  if (!tone) return bare.join('');
  let start = bare.findIndex((c) => VOWELS.has(c));
  if (start < 0) return word.normalize('NFC');
  // The u of qu and the i of gi belong to the consonant when a vowel follows.
  if (start === 1 && ((bare[0] === 'q' && bare[1] === 'u') || (bare[0] === 'g' && bare[1] === 'i')) && VOWELS.has(bare[2] ?? '')) start = 2;
  let end = start;
  while (end + 1 < bare.length && VOWELS.has(bare[end + 1])) end++;
  const cluster = bare.slice(start, end + 1).join('');
  let at: number;
  const marked = [...cluster].map((c, i) => (MARKED_VOWELS.has(c) ? i : -1)).filter((i) => i >= 0);
  if (marked.length > 0) at = start + marked[marked.length - 1];
  else if (end + 1 < bare.length) at = end;
  else if (cluster.length === 1) at = start;
  else if (cluster.length === 2) at = ['oa', 'oe', 'uy'].includes(cluster) ? end : start;
  else at = start + 1;
  return [...bare.slice(0, at + 1), tone, ...bare.slice(at + 1)].join('').normalize('NFC');
}

/**
 * The i/y spellings of a syllable whose only vowel is that letter after a
 * consonant ("lý"/"lí", "kỹ"/"kĩ", "tỷ"/"tỉ", "quý"/"quí") become i; y alone
 * (y tế) and y in a vowel pair (tay, uy) stay.
 */
function foldIY(word: string): string {
  const m = /^(b|c|ch|d|đ|g|gh|h|k|kh|l|m|n|ng|ngh|nh|p|ph|qu|r|s|t|th|tr|v|x)(y)([\u0300\u0301\u0303\u0309\u0323]?)$/u.exec(word.normalize('NFD'));
  return m ? `${m[1]}i${m[3]}`.normalize('NFC') : word;
}

/** Spoken number-word variants made one: mươi bốn → mươi tư, trăm lẻ → trăm linh, hai ngàn → hai nghìn. */
const NUMBER_WORDS = new Set([...DIGITS, 'mười', 'mươi', 'mốt', 'tư', 'lăm', 'trăm', 'nghìn', 'ngàn', 'triệu', 'tỉ', 'linh', 'lẻ']);
function foldNumberWords(words: string[]): string[] {
  return words.map((w, i) => {
    const before = words[i - 1];
    if (w === 'bốn' && before === 'mươi') return 'tư';
    if (w === 'lẻ' && (before === 'trăm' || before === 'nghìn' || before === 'ngàn')) return 'linh';
    if (w === 'ngàn' && before !== undefined && NUMBER_WORDS.has(before)) return 'nghìn';
    return w;
  });
}

/**
 * How a reference and a hypothesis are compared: NFC, lower case, numbers read
 * out as words, punctuation removed, one tone-mark placement and i/y spelling
 * per syllable, number-word variants made one, single spaces.
 */
export function normaliseForScoring(text: string): string {
  const lower = text.normalize('NFC').toLowerCase();
  const spaced = readNumbers(lower)
    .replace(/[^\p{L}\p{M}\p{N}\s]/gu, ' ')
    .normalize('NFC');
  const words = spaced
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => foldIY(placeToneMark(w)));
  return foldNumberWords(words).join(' ');
}

/** Levenshtein distance between two sequences. */
export function editDistance<T>(a: readonly T[], b: readonly T[]): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length];
}

/** Errors and reference length, words and characters (spaces not counted), after normalisation. */
export interface ErrorCounts {
  wordErrors: number;
  words: number;
  charErrors: number;
  chars: number;
}

export function countErrors(reference: string, hypothesis: string): ErrorCounts & { reference: string; hypothesis: string } {
  const ref = normaliseForScoring(reference);
  const hyp = normaliseForScoring(hypothesis);
  const refWords = ref ? ref.split(' ') : [];
  const hypWords = hyp ? hyp.split(' ') : [];
  const refChars = [...ref.replace(/ /g, '')];
  const hypChars = [...hyp.replace(/ /g, '')];
  return {
    reference: ref,
    hypothesis: hyp,
    wordErrors: editDistance(refWords, hypWords),
    words: refWords.length,
    charErrors: editDistance(refChars, hypChars),
    chars: refChars.length,
  };
}

/** An error rate; an empty reference with any hypothesis counts as 100% (and 0% with none). */
export function errorRate(errors: number, total: number): number {
  if (total === 0) return errors === 0 ? 0 : 1;
  return errors / total;
}
