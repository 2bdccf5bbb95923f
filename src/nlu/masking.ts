/**
 * Masking of personal data in a text before it is saved in the prediction history. The mask keeps the text's
 * length in code points, so the entity offsets of the saved answer still point at the same places.
 */

/** E-mail addresses. */
const EMAIL = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}.-]+\.\p{L}{2,}/gu;
/** A run holding a digit: numbers, phone numbers ("090 123 4567" as separate runs too), card and id numbers, codes such as "AB1234567". */
const WITH_DIGIT = /[\p{L}\p{N}]*\p{N}[\p{L}\p{N}]*(?:[.,/:-][\p{L}\p{N}]+)*/gu;

/** Each letter and digit of a match becomes `mark`; separators stay, so "0901-234-567" reads "####-###-###". */
function cover(mark: string) {
  return (match: string) => Array.from(match, (ch) => (/[\p{L}\p{N}]/u.test(ch) ? mark : ch)).join('');
}

export function maskPersonalData(text: string): string {
  return text.replace(EMAIL, cover('*')).replace(WITH_DIGIT, cover('#'));
}
