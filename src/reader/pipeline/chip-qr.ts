/**
 * What the chip citizen card's QR code says (docs/api-contract.md#chip-qr-code): `|`-separated 12-digit id, old
 * 9-digit id (may be empty), full name, date of birth ddmmyyyy, sex, address, issue date ddmmyyyy. The code is
 * exact where OCR guesses, so its values replace the printed readings, and a printed value read with confidence
 * that says otherwise is a disagreement the fraud check reports.
 */
import type { CardLayout, IdCardField } from '../layouts.js';
import { parseDate } from '../post-check.js';
import { normaliseFields, toDigits, type FieldValue, type NormalisedCard, type RawField } from './fields.js';
import { CHIP_CARD_MILESTONES, expiryByLaw } from './mrz.js';
import { fold, levenshtein } from './text.js';

export interface ChipQr {
  /** The code's text as read, unchanged (the eKYC flow's `QRcode`). */
  text: string;
  id: string;
  oldId: string;
  name: string;
  /** dd/mm/yyyy. */
  dob: string;
  sex: string;
  address: string;
  /** dd/mm/yyyy. */
  issueDate: string;
}

/** ddmmyyyy as dd/mm/yyyy, or undefined when it is not a calendar date. */
function qrDate(s: string): string | undefined {
  const m = /^(\d{2})(\d{2})(\d{4})$/.exec(s.trim());
  if (!m) return undefined;
  const [d, mo, y] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return undefined;
  return `${m[1]}/${m[2]}/${m[3]}`;
}

/** The chip card's QR text parsed, or undefined when it is not in the card's format (another code on the photo). */
export function parseChipQr(text: string): ChipQr | undefined {
  const parts = text.normalize('NFC').split('|');
  if (parts.length < 7) return undefined;
  const [id, oldId, name, dob, sex, address, issued] = parts.map((p) => p.trim());
  const dobDate = qrDate(dob);
  const issueDate = qrDate(issued);
  if (!/^\d{12}$/.test(id) || !/^(\d{9})?$/.test(oldId) || !name || !dobDate || !issueDate) return undefined;
  return { text, id, oldId, name, dob: dobDate, sex, address, issueDate };
}

/**
 * The fields the code carries as the front prints them. Not the address: the code holds it in the register's
 * wording ("Số Nhà 27 Đường ..." for a printed "27 ...", another hamlet word), not as printed (dev set: 7 of 16
 * chip fronts whose code was read would have answered a confident address unlike the printed one).
 */
export const QR_FIELDS = ['id', 'name', 'dob', 'sex'] as const satisfies readonly IdCardField[];
type QrField = (typeof QR_FIELDS)[number];

/** A printed value at this probability or more was vouched for by a validator: one the code contradicts is a disagreement. */
const SURE = 80;

/**
 * Upper case, single spaces, tone marks aside: how two spellings of one value are compared (OCR misreads a
 * tone mark with confidence; another person's name differs in its letters).
 */
const comparable = (s: string) => fold(s.normalize('NFC')).toUpperCase().replace(/\s+/g, ' ').trim();

/**
 * The code's values put in place of the printed readings in `normal` (in place), normalised as a reading is,
 * each vouched for. `probability` is the answer's `_prob` of a printed value. Returns the fields whose
 * confident printed value the code contradicts.
 */
export function applyChipQr(layout: CardLayout, normal: NormalisedCard, qr: ChipQr, probability: (v: FieldValue) => number): QrField[] {
  const raw: Partial<Record<IdCardField, RawField>> = {
    id: { text: qr.id, conf: 99 },
    name: { text: qr.name, conf: 99 },
    dob: { text: qr.dob, conf: 99 },
    sex: { text: qr.sex, conf: 99 },
  };
  const fromQr = normaliseFields(layout, raw);
  const disagree: QrField[] = [];
  for (const f of QR_FIELDS) {
    const v = fromQr.fields[f];
    if (!v || !layout.fields.includes(f)) continue;
    const printed = normal.fields[f];
    // A name is compared when Tesseract read it surely (its readings agreeing on a name's form), though that alone
    // does not make it sure (confidence.ts): the code carries the very value to compare it with.
    if (printed && probability({ ...printed, formOnly: false }) >= SURE && comparable(printed.value) !== comparable(v.value)) disagree.push(f);
    normal.fields[f] = { ...v, conf: 99, valid: true, invalid: false, unsure: false, formOnly: false };
  }
  return disagree;
}

/**
 * The expiry of a chip front whose printed expiry was not read, from the code's issue date and date of birth
 * (expiryByLaw: the card runs to the 25th, 40th or 60th birthday the holder was over two years short of when it was
 * issued; on the development set's 16 chip fronts whose code was read, the printed expiry was that date on all 16).
 * Unsure: a rule's answer, not a reading of the card. Answers whether it filled the field in.
 */
export function expiryFromCode(layout: CardLayout, normal: NormalisedCard, qr: Pick<ChipQr, 'issueDate'>): boolean {
  if (!layout.fields.includes('doe') || normal.fields.doe) return false;
  const dob = parseDate(normal.fields.dob?.value);
  const doe = dob && expiryByLaw(dob, qr.issueDate, CHIP_CARD_MILESTONES);
  if (!doe) return false;
  const two = (n: number) => String(n).padStart(2, '0');
  normal.fields.doe = { value: `${two(doe.day)}/${two(doe.month)}/${doe.year}`, conf: 99, valid: true, unsure: true };
  return true;
}

/** A printed word split into its leading punctuation, its letters and digits, and its trailing punctuation. */
function splitWord(word: string): { lead: string; core: string; tail: string } {
  const m = /^([^\p{L}\p{N}]*)(.*?)([^\p{L}\p{N}]*)$/u.exec(word)!;
  return { lead: m[1], core: m[2], tail: m[3] };
}

/** More words than any printed address holds: a reading or a code this long is not corrected. */
const MAX_ADDRESS_WORDS = 40;

/** A word of digits and the letters OCR reads for digits (toDigits), nothing else ("P4" is a ward, not a number). */
const DIGIT_LIKE = /^[\dODQIlLiZzSsBGbgqT|]+$/;

/**
 * How a printed word and a word of the code's address may be the same word: `same` when they spell the same letters
 * (tone marks aside), `misread` when OCR plausibly misread the code's word (a number one digit off once letters
 * OCR confuses with digits are mapped; a word of three letters or more one letter off), else undefined.
 */
function kinship(printed: string, code: string): 'same' | 'misread' | undefined {
  const [p, q] = [fold(printed), fold(code)];
  if (!p || !q) return undefined;
  if (p === q) return 'same';
  if (/^\d+$/.test(q) && /\d/.test(printed)) return DIGIT_LIKE.test(printed) && levenshtein(toDigits(printed), q) <= 1 ? 'misread' : undefined;
  if (/\d/.test(q) || /\d/.test(p)) return undefined;
  return p.length >= 3 && q.length >= 3 && levenshtein(p, q) <= 1 ? 'misread' : undefined;
}

/**
 * The printed address's reading corrected word by word from the code's address, or undefined when nothing changes.
 * The code holds the address in the register's wording ("Số Nhà 27 Đường ..." for a printed "27 ..."), so it does
 * not replace the reading: the two are aligned word by word (the most shared words, in order), and a printed word
 * aligned to a code word it does not spell is taken as misread (tone marks, a letter or a digit off) and spelt as
 * the code spells it, keeping the printed case (of its first letter, or all capitals) and its punctuation. A word is corrected only
 * next to a printed word the code spells alike (the alignment vouches for its place), and only
 * when at least half of the printed words (three or more) are spelt alike in both. Words the code lacks stay; words
 * only the code has are not added (the register's wording adds words the card does not print).
 */
export function guideAddress(printed: string, code: string): string | undefined {
  const words = printed.normalize('NFC').split(/\s+/).filter(Boolean);
  const codeWords = code
    .normalize('NFC')
    .split(/[\s,]+/)
    .map((w) => splitWord(w).core)
    .filter(Boolean);
  const cores = words.map((w) => splitWord(w).core);
  const [n, m] = [words.length, codeWords.length];
  // An address is a line or two; a code's text is whatever its maker put there (the work grows with n x m).
  if (n === 0 || m === 0 || n > MAX_ADDRESS_WORDS || m > MAX_ADDRESS_WORDS) return undefined;
  const kin = cores.map((p) => codeWords.map((q) => kinship(p, q)));
  const gain = (k: 'same' | 'misread' | undefined) => (k === 'same' ? 2 : k === 'misread' ? 1 : -Infinity);
  // Needleman-Wunsch without gap costs: the alignment that keeps the most kinship, same words counting double.
  const score = Array.from({ length: n + 1 }, () => new Float64Array(m + 1));
  for (let i = 1; i <= n; i++) for (let j = 1; j <= m; j++) score[i][j] = Math.max(score[i - 1][j], score[i][j - 1], score[i - 1][j - 1] + gain(kin[i - 1][j - 1]));
  const partner = new Array<number>(n).fill(-1);
  for (let i = n, j = m; i > 0 && j > 0;) {
    if (score[i][j] === score[i - 1][j]) i--;
    else if (score[i][j] === score[i][j - 1]) j--;
    else partner[--i] = --j;
  }
  const same = (i: number) => i >= 0 && i < n && partner[i] >= 0 && kin[i][partner[i]] === 'same';
  const alike = partner.filter((j, i) => j >= 0 && kin[i][j] === 'same').length;
  if (alike < 3 || alike * 2 < n) return undefined;
  let changed = false;
  const out = words.map((word, i) => {
    const j = partner[i];
    if (j < 0 || cores[i].toLowerCase() === codeWords[j].toLowerCase()) return word;
    if (!same(i - 1) && !same(i + 1)) return word;
    const { lead, core, tail } = splitWord(word);
    const spelt = codeWords[j];
    const capitals = core.length > 1 && core === core.toUpperCase() && core !== core.toLowerCase();
    const first = /^\p{Lu}/u.test(core) ? spelt[0].toUpperCase() : spelt[0].toLowerCase();
    changed = true;
    return `${lead}${capitals ? spelt.toUpperCase() : first + spelt.slice(1)}${tail}`;
  });
  return changed ? out.join(' ') : undefined;
}
