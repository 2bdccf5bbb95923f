/** Small text helpers shared by the field stages: accent folding and edit distance. */

/** Lower case, accents removed, đ -> d. */
export function fold(s: string): string {
  return s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[đĐ]/g, 'd')
    .toLowerCase();
}

/** fold() with everything but letters and digits removed. */
export function foldKey(s: string): string {
  return fold(s).replace(/[^a-z0-9]/g, '');
}

export function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
  if (!a.length) return b.length;
  if (!b.length) return a.length;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  let cur = new Array<number>(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    [prev, cur] = [cur, prev];
  }
  return prev[b.length];
}

/** NFC, single spaces, trimmed. */
export function tidy(s: string): string {
  return s.normalize('NFC').replace(/\s+/g, ' ').trim();
}

/** Vietnamese tone marks (combining, after NFD): grave, acute, tilde, hook above, dot below. */
const TONE = '[\u0300\u0301\u0303\u0309\u0323]';
const OLD_STYLE_OA = new RegExp(`([oO])(${TONE})([aAeE])(?!\\p{L})`, 'gu');
const OLD_STYLE_UY = new RegExp(`([uU])(${TONE})([yY])(?!\\p{L})`, 'gu');

/**
 * A spelling with its tone marks placed the new way: an open syllable ending in "oa", "oe" or "uy" carries the
 * mark on its last vowel ("Hòa" -> "Hoà", "Thúy" -> "Thuý"). Both placements are printed (cards, the official
 * list), so two spellings equal after this differ only in where the mark sits.
 */
export function newStyleTones(s: string): string {
  return s.normalize('NFD').replace(OLD_STYLE_OA, '$1$3$2').replace(OLD_STYLE_UY, '$1$3$2').normalize('NFC');
}
