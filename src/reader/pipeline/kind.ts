/**
 * Which card model and side, from what the whole card says: title and header
 * words, which labels are printed (bilingual or not, the 2024 wordings), an
 * MRZ (lines of '<'), the id's length, and where the fingerprint boxes' words
 * are. Words are matched accent-insensitively and allowing OCR slips
 * (`fuzzyHas`). Undefined when nothing says "identity card": the caller turns
 * the card by 180 degrees or tries the older header reading.
 */
import type { CardKind } from '../layouts.js';
import type { CardWord } from './anchors.js';
import { fold, levenshtein } from './text.js';

/** Letters only, accents removed, no spaces: how phrases are compared. */
const squash = (s: string) => fold(s).replace(/[^a-z0-9<]/g, '');

/**
 * Whether `phrase` occurs in `text` with at most one edit per six letters
 * (approximate substring search: Sellers' dynamic programme).
 */
export function fuzzyHas(text: string, phrase: string): boolean {
  const p = squash(phrase);
  const t = text;
  if (!p) return false;
  if (t.includes(p)) return true;
  const tol = Math.floor(p.length / 6);
  if (tol === 0) return false;
  let prev = Array.from({ length: p.length + 1 }, (_, i) => i);
  let cur = new Array<number>(p.length + 1);
  for (let j = 1; j <= t.length; j++) {
    cur[0] = 0;
    for (let i = 1; i <= p.length; i++) cur[i] = Math.min(prev[i] + 1, cur[i - 1] + 1, prev[i - 1] + (p[i - 1] === t[j - 1] ? 0 : 1));
    if (cur[p.length] <= tol) return true;
    [prev, cur] = [cur, prev];
  }
  return false;
}

export interface KindEvidence {
  kind: CardKind;
  /** What decided it (for tests and logs). */
  why: string;
}

/** The card's kind from the words read on the whole card (flat-card coordinates). */
export function detectKind(words: CardWord[]): KindEvidence | undefined {
  const text = squash(words.map((w) => w.text).join(' '));
  const has = (...phrases: string[]) => phrases.some((p) => fuzzyHas(text, p));
  const mrz = words.filter((w) => (w.text.match(/</g) ?? []).length >= 3).length >= 2 || /idvnm/.test(text.replace(/[^a-z]/g, ''));
  // Bilingual (chip card): an English label phrase, or two of the English words only bilingual cards print read
  // one by one ("ldentity Card", "Fi name": the phrases garbled, the words not).
  const english = englishWords(words);
  const bilingual = has('full name', 'date of birth', 'place of origin', 'nationality', 'citizen identity') || english.size >= 2;
  const back = has('dac diem', 'ngon tro', 'dau vet') || mrz;
  const is2024Back = has('noi cu tru', 'dang ky khai sinh', 'place of birth', 'nam het han', 'bo cong an');
  // The older cards' title is "CĂN CƯỚC CÔNG DÂN" / "Citizen Identity Card": the whole title, since "công dân"
  // alone is one letter from a name's "CÔNG VĂN". The 2024 card's is "CĂN CƯỚC" alone on its row: with a front's
  // id number or labels, that names it when its own labels are garbled.
  const frontLike = idLength(words) === 12 || has('quoc tich', 'gioi tinh', 'ngay thang nam sinh');
  // The 2024 front prints no place of origin, residence or expiry (its back does): a front that does is older.
  const olderFront = ['origin', 'residence', 'expiry'].some((e) => english.has(e)) || has('que quan', 'noi thuong tru', 'co gia tri den');
  const is2024Front =
    !back &&
    !olderFront &&
    !has('cuoc cong dan', 'citizen') &&
    (has('chu dem va ten', 'ten khai sinh', 'dinh danh ca nhan', 'identity card') || (titleAlone(words) && frontLike && !is2024Back));
  if (is2024Front) return { kind: 'cccd_2024_front', why: 'CĂN CƯỚC with the 2024 labels, or alone on its row on a front' };
  if (has('can cuoc cong dan', 'cuoc cong dan'))
    return { kind: bilingual ? 'cccd_chip_front' : 'cccd_12_front', why: bilingual ? 'title and bilingual labels' : 'title, Vietnamese-only labels' };
  if (is2024Back && !has('ngon tro', 'dac diem', 'chung minh')) return { kind: 'cccd_2024_back', why: 'residence / birth registration labels' + (mrz ? ' and MRZ' : '') };
  if (has('giay chung minh', 'chung minh nhan dan')) {
    // Both older fronts say CHỨNG MINH NHÂN DÂN; a mark read before it can pass for "GIẤY" ("IẮN. CHỨNG MINH"
    // is two edits from it), so the id's length decides when the card shows one.
    const length = idLength(words);
    if (length === 9 || (length === undefined && has('giay chung minh'))) return { kind: 'cmnd_09_front', why: 'GIẤY CHỨNG MINH' + (length ? ', a 9-digit id' : '') };
    return { kind: 'cmnd_12_front', why: 'CHỨNG MINH NHÂN DÂN' + (length ? ', a 12-digit id' : '') };
  }
  if (has('dau vet rieng', 'di hinh', 'ton giao', 'giam doc')) return { kind: 'cmnd_09_back', why: 'marks heading / religion / signature' };
  // "Personal identification" heads the chip back's features; the 2024 front's "Personal identification number" is its id.
  if ((has('personal identification') && !has('identification number')) || (mrz && has('dac diem', 'nhan dang', 'ngon tro')))
    return { kind: 'cccd_chip_back', why: mrz ? 'MRZ and features label' : 'bilingual features label' };
  if (has('dac diem nhan dang', 'ngon tro trai', 'ngon tro phai', 'cuc canh sat')) {
    // The 12-digit backs print the fingerprint boxes on the left, the chip back on the right.
    const finger = words.filter((w) => /^(ngon|tro)$/.test(squash(w.text)));
    if (finger.length > 0 && finger.every((w) => w.left > 550)) return { kind: 'cccd_chip_back', why: 'fingerprint boxes on the right' };
    return { kind: 'cccd_12_back', why: 'features label, fingerprint boxes on the left' };
  }
  if (mrz) return { kind: 'cccd_chip_back', why: 'MRZ' };
  // A front whose title was lost: the labels still say which. "Nơi ĐKHK thường trú" (the household registration's
  // abbreviation) is the older identity cards' residence label; the citizen cards print "Nơi thường trú".
  if (has('dkhk')) {
    const length = idLength(words);
    return { kind: length === 12 ? 'cmnd_12_front' : 'cmnd_09_front', why: 'ĐKHK residence label without a title' + (length ? `, a ${length}-digit id` : '') };
  }
  // The citizen cards' labels, read with a slip, on a card whose number has 9 digits or whose dates are printed
  // dd-mm-yyyy: the 9-digit card ("Nơi ĐKHK thường trú" read without part of "ĐKHK" is "noi thuong tru" with two
  // slips); the citizen cards print 12-digit numbers and dd/mm/yyyy.
  const citizenLabels = has('ho va ten', 'que quan', 'noi thuong tru');
  if (citizenLabels && (idLength(words) === 9 || dashedDate(words)))
    return { kind: 'cmnd_09_front', why: 'front labels without a title, a 9-digit id or a dd-mm-yyyy date' };
  if (citizenLabels) return { kind: bilingual ? 'cccd_chip_front' : 'cccd_12_front', why: 'front labels without a title' };
  // Or only English label words of the chip front were read ("Place of Origin" beside a garbled "Quê quán").
  if (bilingual && olderFront && !back) return { kind: 'cccd_chip_front', why: "the chip front's English labels without a title" };
  return undefined;
}

/**
 * English words that only the bilingual cards print (title, motto, label halves), as single OCR words: the short
 * ones read exactly, the longer with a slip (one up to eight letters, two from nine). Never read on a
 * Vietnamese-only card, whose every printed word is Vietnamese.
 */
const ENGLISH_WORDS = [
  'citizen',
  'identity',
  'card',
  'full',
  'name',
  'date',
  'birth',
  'sex',
  'nationality',
  'place',
  'origin',
  'residence',
  'expiry',
  'socialist',
  'republic',
  'independence',
  'freedom',
  'happiness',
];

/** Which of ENGLISH_WORDS the words hold, each word read alone. */
export function englishWords(words: readonly Pick<CardWord, 'text'>[]): Set<string> {
  const found = new Set<string>();
  for (const w of words) {
    const k = squash(w.text).replace(/[^a-z]/g, '');
    if (k.length < 3) continue;
    for (const e of ENGLISH_WORDS) {
      const tol = e.length <= 4 ? 0 : e.length <= 8 ? 1 : 2;
      if (Math.abs(k.length - e.length) <= tol && levenshtein(k, e) <= tol) found.add(e);
    }
  }
  return found;
}

/**
 * Whether the card's title reads "CĂN CƯỚC" with nothing after it on its row (the 2024 card; the older cards go
 * on with "CÔNG DÂN"): a word "căn" followed on its row by "cước", and no word after that within two letter heights.
 */
export function titleAlone(words: readonly CardWord[]): boolean {
  const key = (w: CardWord) => squash(w.text).replace(/[^a-z]/g, '');
  const sameRow = (a: CardWord, b: CardWord) => Math.min(a.top + a.height, b.top + b.height) - Math.max(a.top, b.top) > 0.5 * Math.min(a.height, b.height);
  const after = (a: CardWord, b: CardWord) => b.left > a.left + 0.5 * a.width && b.left - (a.left + a.width) < 2 * Math.max(a.height, b.height) && sameRow(a, b);
  for (const can of words.filter((w) => key(w) === 'can')) {
    const cuoc = words.find((w) => after(can, w) && levenshtein(key(w), 'cuoc') <= 1);
    if (!cuoc) continue;
    if (!words.some((w) => w !== can && w !== cuoc && after(cuoc, w) && /[\p{L}\p{N}]/u.test(w.text))) return true;
  }
  return false;
}

/** Whether a word is a date printed with dashes (the 9-digit card's "dd-mm-yyyy"), a digit of its day lost or not. */
const dashedDate = (words: readonly CardWord[]) => words.some((w) => /(^|\D)\d{1,2}-\d{2}-(19|20)\d{2}(\D|$)/.test(w.text));

/** 9 or 12 when the card shows a number of that many digits and none of the other length. */
function idLength(words: CardWord[]): 9 | 12 | undefined {
  const runs = words.flatMap((w) => w.text.match(/\d+/g) ?? []).map((r) => r.length);
  const nine = runs.includes(9);
  const twelve = runs.includes(12);
  return nine === twelve ? undefined : nine ? 9 : 12;
}

/** The printed texts the fraud check asks about, as the whole card's OCR read them. */
export interface PrintedTexts {
  /** The national headline: "CỘNG HÒA XÃ HỘI CHỦ NGHĨA VIỆT NAM", and the motto "Độc lập - Tự do - Hạnh phúc". */
  headline: [boolean, boolean];
  /** The title: the Vietnamese words, and the English ones where the card prints them (undefined where it does not). */
  title: [boolean, boolean | undefined];
}

const TITLES: Partial<Record<CardKind, [string, string | undefined]>> = {
  cmnd_09_front: ['giay chung minh nhan dan', undefined],
  cmnd_12_front: ['chung minh nhan dan', undefined],
  cccd_12_front: ['can cuoc cong dan', undefined],
  cccd_chip_front: ['can cuoc cong dan', 'citizen identity card'],
  cccd_2024_front: ['can cuoc', 'identity card'],
};

/** Which of the headline and the side's title the words hold (fronts; undefined for a back, whose guide checks do not apply). */
export function printedTexts(words: CardWord[], kind: CardKind): PrintedTexts | undefined {
  const title = TITLES[kind];
  if (!title) return undefined;
  const text = squash(words.map((w) => w.text).join(' '));
  return {
    headline: [fuzzyHas(text, 'cong hoa xa hoi chu nghia viet nam'), fuzzyHas(text, 'doc lap tu do hanh phuc')],
    title: [fuzzyHas(text, title[0]), title[1] === undefined ? undefined : fuzzyHas(text, title[1])],
  };
}
