/**
 * The fields' values: the raw reading of each from the words anchored to its
 * label (or read in a band), then each value normalised and validated.
 */
import type { CardKind, CardLayout, IdCardField } from '../layouts.js';
import { danglingStreet, isStreetWord, parseAddress, provinceByIdCode, gazetteer, splitGluedStreetWord, streetTypeOf, type ParsedAddress } from './address.js';
import type { OcrWord } from './ocr.js';
import { fold, foldKey, levenshtein, tidy } from './text.js';

export interface RawField {
  text: string;
  /** Mean word confidence, 0-100 (0 when nothing was read). */
  conf: number;
  /** The words and their confidences, in reading order. */
  words?: { text: string; conf: number }[];
  /** Two readings disagreed on it (a name's tone marks): no validator makes it sure. */
  unsure?: boolean;
}

/** Groups the words of the stacked image by the band they fall in. */
export function wordsByBand(words: OcrWord[], spans: { y0: number; y1: number }[]): OcrWord[][] {
  const out = spans.map(() => [] as OcrWord[]);
  for (const w of words) {
    // Rule lines and band edges read as '|', '_' or lone low-confidence marks.
    // Keep a hyphen ("Bà Rịa - Vũng Tàu"); drop marks with no letter or digit.
    if (!/[\p{L}\p{N}]/u.test(w.text) && !(w.text === '-' && w.conf >= 60)) continue;
    const cy = w.top + w.height / 2;
    const i = spans.findIndex((s) => cy >= s.y0 - 4 && cy < s.y1 + 4);
    if (i >= 0) out[i].push(w);
  }
  for (const list of out) list.sort((a, b) => a.left - b.left);
  return out;
}

const FREE_TEXT = new Set<IdCardField>(['name', 'home', 'address', 'features', 'pob']);
/**
 * Places: their first word, however unsurely read, is kept when it is a street word ("khu" at 12 of "Khu phố
 * 30" was dropped and the address came back as "Phố 30, ..." at 99; "*$ố" at 0 for "Số"), as a name's is when
 * it is a family name.
 */
const ADDRESS_FIELDS = new Set<IdCardField>(['home', 'address', 'pob']);

/**
 * How a value's words are cleaned of noise: `free` text drops marks and very unsure words, a `name` keeps
 * an unsure first word that spells a family name, a `place` an unsure first word that is a street word
 * (and drops a damaged label's words up to a colon and the English half of a place's label); `plain`
 * values (numbers, dates, closed lists) keep every word for their validator.
 */
export type WordFilter = 'plain' | 'free' | 'name' | 'place';

/** An ID card field's word filter. */
export function idCardWords(field: IdCardField): WordFilter {
  if (field === 'name') return 'name';
  if (ADDRESS_FIELDS.has(field)) return 'place';
  return FREE_TEXT.has(field) ? 'free' : 'plain';
}

/** An ID card field's raw reading from the words of its value, line by line (see rawFromWords). */
export function rawFromLines(field: IdCardField, lines: OcrLike[][]): RawField {
  return rawFromWords(idCardWords(field), lines);
}

/**
 * A field's raw reading from the words of its value, line by line (the
 * layout-free reader's anchored values): cleaned as `filter` says, short
 * unsure noise dropped from the end.
 */
export function rawFromWords(filter: WordFilter, lines: OcrLike[][]): RawField {
  const free = filter !== 'plain';
  const place = filter === 'place';
  const words: OcrLike[] = [];
  lines.forEach((line, part) => {
    const kept = line
      .filter((w) => /[\p{L}\p{N}]/u.test(w.text) || (w.text === '-' && w.conf >= 60))
      .filter(
        (w, k) =>
          !free ||
          (w.conf >= 20 && !(w.text.length === 1 && w.conf < 60)) ||
          (part === 0 && k === 0 && (filter === 'name' ? isFamilyName(w.text) : place && isStreetWord(w.text.replace(/\$/g, 'S')))),
      );
    // A continuation line with only a word or two, all unsure, is background pattern.
    if (part > 0 && kept.length <= 2 && kept.every((w) => w.conf < 75)) return;
    // A place never holds a colon: words up to one on its first line are a label OCR damaged beyond finding
    // ("gi trị đón ate of expi: Tổ 26, ..." at 93). Leading English words (below) are what is left of
    // "Place of residence" read on a line of its own ("'Plạce of re%Ó@n»sc®-": "of Số 173 ..." at 95).
    if (part === 0 && place) {
      let colon = -1;
      for (let k = 0; k < kept.length - 1; k++) if (/[:;]$/.test(kept[k].text)) colon = k;
      if (colon >= 0) kept.splice(0, colon + 1);
    }
    words.push(...(place ? kept.flatMap(splitLeader) : kept));
  });
  while (place && words.length > 1 && englishPlaceWord(words[0].text)) words.shift();
  while (words.length > 1 && words[words.length - 1].text.length <= 2 && words[words.length - 1].conf < 80 && !/^\d+$/.test(words[words.length - 1].text)) words.pop();
  const conf = words.length ? words.reduce((s, w) => s + w.conf, 0) / words.length : 0;
  return { text: tidy(words.map((w) => w.text).join(' ')), conf, words: words.map((w) => ({ text: w.text, conf: w.conf })) };
}

type OcrLike = { text: string; conf: number };

/**
 * Words a dotted leader glued together (the 9-digit card prints its values on dotted lines: ".Xóm.Bến.Đá."),
 * apart: only when every piece between the dots is a word of its own (a syllable or a street word), so "Tp.HCM"
 * or "P.5" stay as they are.
 */
export function splitLeader<W extends OcrLike>(w: W): W[] {
  if (!/\p{L}[.…]+\p{L}/u.test(w.text)) return [w];
  const parts = w.text.split(/[.…]+/).filter((t) => t !== '');
  return parts.length >= 2 && parts.every((t) => vietnameseWord(t) || isStreetWord(t)) ? parts.map((text) => ({ ...w, text })) : [w];
}

/** The English half of a place's label ("Place of residence", "of birth", "origin"), one slip allowed from five letters. */
const ENGLISH_PLACE_WORDS = ['of', 'place', 'residence', 'origin', 'birth'];
function englishPlaceWord(text: string): boolean {
  const k = foldKey(text);
  return ENGLISH_PLACE_WORDS.some((w) => k === w || (w.length >= 5 && k.length >= 4 && levenshtein(k, w) <= 1));
}

export interface FieldValue {
  value: string;
  conf: number;
  /** A validator confirmed the value (check digit, gazetteer exact, plausible date). */
  valid?: boolean;
  /** A validator rejected it. */
  invalid?: boolean;
  /** Two readings disagreed (raw.unsure), or a place the gazetteer accounts for only in part: its probability stays under 80 even when a validator confirms it. */
  unsure?: boolean;
  /**
   * Its validator checks only the value's form, not what was printed (a name: a family name first, Vietnamese
   * syllables): it stays under 80 unless a reading independent of Tesseract's carries the same value (the chip
   * front's QR code, the line recogniser). confidence.ts says why.
   */
  formOnly?: boolean;
}

const DIGIT_FIX: Record<string, string> = {
  O: '0',
  o: '0',
  D: '0',
  Q: '0',
  I: '1',
  l: '1',
  '|': '1',
  i: '1',
  Z: '2',
  z: '2',
  L: '1',
  S: '5',
  s: '5',
  B: '8',
  G: '6',
  b: '6',
  g: '9',
  q: '9',
  T: '7',
};
/** A word read as digits: the letters OCR confuses with digits mapped, everything else but digits dropped. */
export const toDigits = (s: string) => s.replace(/[A-Za-z|]/g, (c) => DIGIT_FIX[c] ?? c).replace(/\D/g, '');
/** The digits of each word of an id's reading that has one (letters OCR confuses with digits mapped). */
const digitWords = (text: string) =>
  text
    .split(/\s+/)
    .filter((w) => /\d/.test(w))
    .map(toDigits);

/**
 * The id number in an OCR'd line. Words with no digit at all are label or noise
 * ("SỐ" would otherwise turn into a 5); a single word of exactly the right
 * length wins (a stray mark read as "1" before it is dropped); else the digit
 * words are joined, and when that is too long the window that passes the
 * 12-digit province-code check (or the last one: noise tends to lead) is kept;
 * twelve digits or more are never read as a 9-digit id.
 */
export function normaliseId(text: string, length: 9 | 12): FieldValue['value'] | undefined {
  const words = digitWords(text);
  const whole = words.find((w) => w.length === length);
  if (whole) return whole;
  const d = words.join('');
  if (d.length === length) return d;
  if (d.length < length) return undefined;
  // Three or more digits too many for a 9-digit id is a 12-digit number, not a 9-digit one with noise.
  if (length === 9 && d.length >= 12) return undefined;
  const windows = Array.from({ length: d.length - length + 1 }, (_, i) => d.slice(i, i + length));
  if (length === 12) {
    const valid = windows.find((w) => provinceByIdCode(w.slice(0, 3)) !== undefined && Number(w[3]) <= 3);
    if (valid) return valid;
  }
  return windows[windows.length - 1];
}

/** Whether `normaliseId` had to cut the id out of more digits than it has (no word of the id's own length). */
export function idWindowed(text: string, length: 9 | 12): boolean {
  const words = digitWords(text);
  return !words.some((w) => w.length === length) && words.join('').length > length;
}

export function normaliseDate(text: string): string | undefined {
  const printed = /(\d{1,2})\s*[/.-]\s*(\d{1,2})\s*[/.-]\s*(\d{4})/.exec(text) ?? /(\d{1,2})\D+(\d{1,2})\D+(\d{4})/.exec(text);
  const d = printed ? printed[1].padStart(2, '0') + printed[2].padStart(2, '0') + printed[3] : toDigits(text);
  const m = /(\d{2})(\d{2})(\d{4})/.exec(d.length > 8 ? d.slice(-8) : d);
  if (!m) return undefined;
  const day = Number(m[1]);
  const month = Number(m[2]);
  const year = Number(m[3]);
  if (day < 1 || day > 31 || month < 1 || month > 12 || year < 1900 || year > 2100) return undefined;
  return `${m[1]}/${m[2]}/${m[3]}`;
}

/** A Vietnamese syllable has a vowel and none of f, j, w, z. */
function plausibleSyllable(word: string): boolean {
  const f = fold(word);
  return /[aeiouy]/.test(f) && !/[fjwz]/.test(f);
}

export function normaliseName(text: string): string {
  return tidy(
    text
      .normalize('NFC')
      .replace(/[^\p{L}\s]/gu, ' ')
      .toLocaleUpperCase('vi'),
  )
    .split(' ')
    .filter(plausibleSyllable)
    .join(' ');
}

/** The reading spells the sex's value exactly, marks included ("Nữ", "NAM", "nữ."), nothing else beside it. */
export function sexSpelled(text: string, value: string): boolean {
  return (
    text
      .normalize('NFC')
      .replace(/[^\p{L}]/gu, '')
      .toLocaleUpperCase('vi') === value
  );
}

export function normaliseSex(text: string): string | undefined {
  const f = foldKey(text);
  if (!f) return undefined;
  if (f.startsWith('nu') || f === 'n' || f.endsWith('nu')) return 'NỮ';
  if (f.startsWith('nam') || f.includes('nam') || f.startsWith('na')) return 'NAM';
  return undefined;
}

/** Nearest of a closed list (accent-insensitive), when close enough. */
function nearest(text: string, list: readonly string[]): string | undefined {
  const key = foldKey(text);
  if (!key) return undefined;
  let best: { v: string; d: number } | undefined;
  for (const v of list) {
    const d = levenshtein(key, foldKey(v)) * 10 + levenshtein(text.toLowerCase(), v.toLowerCase());
    if (!best || d < best.d) best = { v, d };
  }
  return best && best.d < 10 * Math.max(1, Math.floor(foldKey(best.v).length / 3)) + 10 ? best.v : undefined;
}

const ETHNICITIES = [
  'Kinh',
  'Tày',
  'Thái',
  'Mường',
  'Khmer',
  'Hoa',
  'Nùng',
  'Mông',
  'Dao',
  'Gia Rai',
  'Ê Đê',
  'Ba Na',
  'Sán Chay',
  'Chăm',
  'Cơ Ho',
  'Xơ Đăng',
  'Sán Dìu',
  'Hrê',
  'Ra Glai',
  'Mnông',
  'Thổ',
  'Xtiêng',
  'Khơ Mú',
  'Bru Vân Kiều',
  'Cơ Tu',
  'Giáy',
  'Tà Ôi',
  'Mạ',
  'Giẻ Triêng',
  'Co',
  'Chơ Ro',
  'Xinh Mun',
  'Hà Nhì',
  'Chu Ru',
  'Lào',
  'La Chí',
  'Kháng',
  'Phù Lá',
  'La Hủ',
  'La Ha',
  'Pà Thẻn',
  'Lự',
  'Ngái',
  'Chứt',
  'Lô Lô',
  'Mảng',
  'Cơ Lao',
  'Bố Y',
  'Cống',
  'Si La',
  'Pu Péo',
  'Rơ Măm',
  'Brâu',
  'Ơ Đu',
];
const RELIGIONS = ['Không', 'Phật giáo', 'Công giáo', 'Tin lành', 'Cao Đài', 'Hòa Hảo', 'Hồi giáo'];

/** Words of distinguishing-mark descriptions; OCR often drops their accents. Ambiguous foldings are left alone. */
const FEATURE_WORDS = [
  'Sẹo',
  'Nốt',
  'ruồi',
  'chấm',
  'trên',
  'trước',
  'sau',
  'mép',
  'trái',
  'phải',
  'mắt',
  'mày',
  'đầu',
  'cánh',
  'mũi',
  'tai',
  'cách',
  'cằm',
  'trán',
  'môi',
  'lông',
  'bớt',
  'vết',
  'nhạt',
  'thâm',
  'xăm',
];
const FEATURE_BY_KEY = (() => {
  const map = new Map<string, string | null>();
  for (const w of FEATURE_WORDS) map.set(fold(w), map.has(fold(w)) ? null : w);
  return map;
})();

function fixFeatureWords(text: string): string {
  return text
    .split(' ')
    .map((w) => {
      const m = /^(\p{L}+)([,.:;]?)$/u.exec(w);
      if (!m) return w;
      const hit = FEATURE_BY_KEY.get(fold(m[1]));
      if (!hit) return w;
      const cased = m[1][0] === m[1][0].toUpperCase() ? hit[0].toUpperCase() + hit.slice(1) : hit[0].toLowerCase() + hit.slice(1);
      return cased + m[2];
    })
    .join(' ');
}

/** The nouns a description of marks starts with. */
const MARK_NOUNS = ['Sẹo', 'Nốt', 'Vết', 'Bớt', 'Xăm'];

/**
 * The first word of a marks description with a stray mark in front, its first letter lost or misread
 * ("ẹo", "(ốt", "INốt", "Wốt"), is the mark noun whose other letters it spells, when one only does.
 */
export function repairMarkNoun(text: string): string {
  const [first, ...rest] = text.split(' ');
  if (!first || MARK_NOUNS.includes(first)) return text;
  const bare = first
    .replace(/^[^\p{L}]+/u, '')
    .normalize('NFC')
    .toLowerCase();
  const hits = MARK_NOUNS.filter((noun) => {
    const tail = noun.normalize('NFC').toLowerCase().slice(1);
    return bare === tail || (bare.length === tail.length + 1 && bare.slice(1) === tail) || (bare.length === tail.length + 2 && bare.slice(2) === tail);
  });
  return hits.length === 1 ? [hits[0], ...rest].join(' ') : text;
}

export interface NormalisedCard {
  fields: Partial<Record<IdCardField, FieldValue>>;
  address?: ParsedAddress;
}

/** Turns raw OCR of each field into answer values, with validator outcomes. */
export function normaliseFields(layout: CardLayout, raw: Partial<Record<IdCardField, RawField>>): NormalisedCard {
  const fields: NormalisedCard['fields'] = {};
  let address: ParsedAddress | undefined;
  /** The provinces the card's places (home, address, place of birth) name. */
  const placeProvinces: string[] = [];
  for (const field of layout.fields) {
    const r = raw[field];
    if (!r || !r.text) continue;
    if (ADDRESS_FIELDS.has(field)) {
      const place = normalisePlace(layout.kind, r);
      fields[field] = place.value;
      if (field === 'address') address = place.parsed;
      if (place.parsed.province) placeProvinces.push(place.parsed.province);
      continue;
    }
    const v = normaliseValue(layout.kind, field, r);
    if (v) fields[field] = v;
  }
  const id = fields.id;
  repairBirthYear(fields, raw);
  if (layout.kind.startsWith('cccd')) expiryFromBirthday(fields, raw);
  if (id) crossCheckId(id, fields, placeProvinces);
  return { fields, address };
}

/** One field's value (not a place: normalisePlace) from its raw reading, with its validator's outcome. */
function normaliseValue(kind: CardKind, field: IdCardField, r: RawField): FieldValue | undefined {
  const conf = r.conf;
  switch (field) {
    case 'id': {
      const length = kind.startsWith('cmnd_09') ? 9 : 12;
      const v = normaliseId(r.text, length);
      // Cut out of a longer run of digits, it is a guess at which digits were extra: the cross-checks pass for
      // many such windows ("0250574811584", 3 read as 15, gave 025057481158 for 025057481384 at 89).
      return v ? { value: v, conf, ...(idWindowed(r.text, length) || r.unsure ? { unsure: true } : {}) } : undefined;
    }
    case 'dob':
    case 'doe': {
      const v = normaliseDate(r.text);
      // A date of birth more than 110 years ago is a misread year (a 9 read as 0), not a holder.
      const plausible = field !== 'dob' || (v !== undefined && Number(v.slice(6)) >= new Date().getFullYear() - 110);
      return v ? { value: v, conf, valid: plausible, invalid: !plausible || undefined, unsure: r.unsure } : undefined;
    }
    case 'issue_date': {
      // A back's issue date has nothing to be checked against (the MRZ does not carry it): a digit read
      // wrong still makes a real date (a real back's 07/03 read 07/02 at 85), so it stays unconfirmed unless
      // the recognition network reads the same date (digits.ts confirmAgreed).
      const v = normaliseDate(r.text);
      return v ? { value: v, conf } : undefined;
    }
    case 'name': {
      const v = fixSurname(normaliseName(r.text));
      // A name checks out when it starts with a known family name and has a given name after it.
      // ... and every word is a Vietnamese syllable, at most seven of them (a label's words read into the
      // name, "VÕ HỌ EINH CHỮ ĐỨC ĐỆM...", is neither).
      return v ? { value: v, conf, valid: plausibleName(v), unsure: r.unsure, formOnly: true } : undefined;
    }
    case 'sex': {
      // One of two words: a reading that spells it with its marks is it; one without them or with a letter
      // missing ("Nư", "Nu", "N4") is only near it, unconfirmed unless the id's sex digit agrees (crossCheckId).
      const v = normaliseSex(r.text);
      return v ? { value: v, conf, valid: sexSpelled(r.text, v) || undefined } : undefined;
    }
    case 'nationality': {
      // The identity cards are issued to citizens: the only nationality printed is Việt Nam, so a reading that is
      // its first word alone ("Việt": "Nam" lost beyond a gap or to the card's edge) is it.
      const key = foldKey(r.text);
      const v = key.includes('vietnam') || key === 'viet' ? 'Việt Nam' : nearest(r.text, ['Việt Nam']);
      return v ? { value: v, conf, valid: true } : { value: tidy(r.text), conf, invalid: true };
    }
    case 'ethnicity':
    case 'religion': {
      // The neighbouring label ("Tôn giáo:") can trail the value: try the leading words too.
      const list = field === 'ethnicity' ? ETHNICITIES : RELIGIONS;
      const words = r.text.split(' ');
      let v: string | undefined;
      for (let k = words.length; k >= 1 && !v; k--) v = nearest(words.slice(0, k).join(' '), list);
      return v ? { value: v, conf, valid: true } : { value: tidy(r.text), conf };
    }
    case 'issue_loc': {
      const v = nearest(
        r.text,
        gazetteer().map((p) => p.name),
      );
      return v ? { value: v, conf, valid: true } : { value: tidy(r.text), conf };
    }
    case 'features': {
      // Distinguishing marks are described with a small vocabulary: a description that starts with one of
      // its nouns (Sẹo, Nốt ruồi, Vết, Bớt, Xăm) checks out; one that does not lost or misread its first word.
      const v = fixFeatureWords(repairMarkNoun(tidy(r.text)));
      // Every word must be a Vietnamese syllable, a measure ("1,5cm") or the position code ("C:"): "bhải" is not.
      const words = v.split(' ');
      const plausible = words.every((w) => /^[\d,.]+(cm|mm)?[,.;:]?$/i.test(w) || /^C[:.]?$/.test(w) || vietnameseWord(w));
      // Read once, and the vocabulary vouches for its words, not for the measure or spacing between them: it
      // stays under 80 (unsure) even when it checks out.
      return { value: v, conf, valid: /^(Sẹo|Nốt|Vết|Bớt|Xăm)\b/u.test(v) && words.length >= 3 && plausible, unsure: true };
    }
    default:
      return { value: tidy(r.text), conf };
  }
}

/** A place (home, address, place of birth) checked against the gazetteer, and its parts. */
export function normalisePlace(kind: CardKind, r: RawField): { value: FieldValue; parsed: ParsedAddress } {
  const parsed = withoutStrayLead(r);
  // Two units found in the gazetteer confirm an address; a street that is a bare number lost its type word
  // ("20, An Phú Đông" for "Số 20"), which the gazetteer cannot see.
  const bareNumber = /^\d+$/.test(parsed.street.trim());
  // The gazetteer vouches for the units it found, not for what is left: on real photos the wrong answers
  // with two units found had a street (or a ward) OCR cut or misread ("ên Hồng" for a street, a ward lost
  // with its line). So a value the gazetteer does not account for whole, ward and province, stays unsure
  // (under 80; still valid for the second reading's choice, which two units decide).
  // Cards printed before the July 2025 reform print three levels: there a place without its district lost a part.
  const threeLevels = kind !== 'cccd_2024_back';
  const whole = parsed.ward !== '' && parsed.province !== '' && (parsed.district !== '' || !threeLevels) && parsed.street.trim() === '';
  // A name kept as printed where the list places a tone mark elsewhere ("Hoà" / "Hòa": OCR misplaces marks too),
  // or a district restored from its ward (its printed marks unknown).
  // A unit the list had to correct (a letter or a mark read otherwise: exact < matched) is answered as the list
  // spells it, which is the list's guess at what was printed, not a reading of it: the gazetteer vouches for the
  // unit, not for its spelling on this card (a card printing a unit without its marks, or with its tone mark
  // placed the other way, read so by OCR, was answered at 96-97 in the list's spelling).
  const unsure = !whole || parsed.spellingUnsure || parsed.exact < parsed.matched;
  return { value: { value: parsed.text, conf: r.conf, valid: parsed.matched >= 2 && !bareNumber, invalid: parsed.matched === 0, unsure: unsure || undefined }, parsed };
}

/**
 * The 12-digit id carries the century and the last two digits of the birth year: a year OCR
 * got wrong only in its century ("1870", "2070") is repaired from it.
 */
function repairBirthYear(fields: NormalisedCard['fields'], raw: Partial<Record<IdCardField, RawField>>): void {
  const id = fields.id;
  if (id && id.value.length === 12 && provinceByIdCode(id.value.slice(0, 3)) && Number(id.value[3]) <= 3 && raw.dob?.text) {
    const loose = /(\d{2})\s*[/.-]\s*(\d{2})\s*[/.-]\s*(\d{4})/.exec(raw.dob.text);
    const year = 1900 + 100 * Math.floor(Number(id.value[3]) / 2) + Number(id.value.slice(4, 6));
    if (loose && loose[3].slice(2) === id.value.slice(4, 6) && Number(loose[3]) !== year) {
      const v = normaliseDate(`${loose[1]}/${loose[2]}/${year}`);
      if (v) fields.dob = { value: v, conf: raw.dob.conf, valid: true };
    }
  }
}

/**
 * A citizen card expires on the holder's 25th, 40th or 60th birthday: a day or month OCR got
 * wrong (or impossible, "34/05") is taken from the date of birth when the years say so.
 */
function expiryFromBirthday(fields: NormalisedCard['fields'], raw: Partial<Record<IdCardField, RawField>>): void {
  const dob = fields.dob?.value;
  if (!dob || !raw.doe?.text) return;
  const loose = /(\d{2})\s*[/.-]\s*(\d{2})\s*[/.-]\s*(\d{4})/.exec(raw.doe.text);
  const years = loose ? Number(loose[3]) - Number(dob.slice(6)) : NaN;
  if (loose && [25, 40, 60].includes(years)) {
    const v = `${dob.slice(0, 6)}${loose[3]}`;
    fields.doe = { value: v, conf: raw.doe.conf, valid: true };
  } else if (fields.doe) {
    // A citizen card's expiry that is no 25th, 40th or 60th birthday was misread somewhere (or the card
    // has another rule): a date, but not confirmed.
    fields.doe = { ...fields.doe, valid: false };
  }
}

/** Cross-checks of the id: for 12 digits province code, century/sex digit, year of birth; 9 digits are valid. */
function crossCheckId(id: FieldValue, fields: NormalisedCard['fields'], placeProvinces: string[]): void {
  if (id.value.length === 12) {
    const dob = fields.dob?.value;
    // A sex read only near its spelling (unconfirmed) neither confirms nor fails the id; the id, checked
    // without it, confirms it when its sex digit agrees.
    const sexField = fields.sex;
    const sex = sexField?.valid ? sexField.value : undefined;
    const provinceOk = provinceByIdCode(id.value.slice(0, 3)) !== undefined;
    const g = Number(id.value[3]);
    const year = dob ? Number(dob.slice(6)) : undefined;
    const centuryOk = year === undefined || Math.floor((year - 1900) / 100) === Math.floor(g / 2);
    const sexOk = sex === undefined || (g % 2 === 1) === (sex === 'NỮ');
    const yearOk = year === undefined || id.value.slice(4, 6) === String(year).slice(2);
    if (provinceOk && centuryOk && sexOk && yearOk) id.valid = true;
    else id.invalid = true;
    if (id.valid && year !== undefined && sexField && !sexField.valid && (g % 2 === 1) === (sexField.value === 'NỮ')) sexField.valid = true;
    // The province code is where the birth was registered, nearly always the province of the holder's home or
    // address (26 of 28 cards of the development set's truth): a code that names neither, when the card's places
    // were read, is most likely a misread digit (3, 5 and 8 swap) that still names a real province: unsure.
    const code = provinceByIdCode(id.value.slice(0, 3))?.name;
    if (id.valid && code && placeProvinces.length > 0 && !placeProvinces.includes(code)) id.unsure = true;
  } else if (id.value.length === 9) {
    // Nine digits is all the 9-digit number can be checked for (no check digit): run.ts keeps it under 80
    // unless the recognition network reads the same digits (digits.ts reads every such id again).
    id.valid = true;
  }
}

/**
 * Parses an address, and without its first word when that is a short stray word (three letters at most, no
 * digit, no street word: "H", "LH", "bạ" left of the value by the card's edge or a label's end) and the rest
 * finds as many units: the stray word would otherwise be kept as the street.
 */
function withoutStrayLead(r: RawField): ParsedAddress {
  const parsed = parseAddressWords(r);
  const words = r.text.split(' ');
  const first = words[0].replace(/[^\p{L}\p{N}]/gu, '');
  if (words.length < 3 || first.length > 3 || /\d/.test(first) || isStreetWord(first) || !parsed.street.startsWith(words[0].replace(/[,.;:]+$/, ''))) return parsed;
  // A capitalised syllable read surely is a name's first word ("Văn Phú"), not a stray mark.
  if ((r.words?.[0]?.conf ?? 0) >= 80 && /^\p{Lu}\p{Ll}+$/u.test(first) && vietnameseWord(first)) return parsed;
  const rest = { text: words.slice(1).join(' '), conf: r.conf, words: r.words?.slice(1) };
  const trimmed = parseAddressWords(rest);
  return trimmed.matched >= parsed.matched ? trimmed : parsed;
}

/** Address words read less surely than this may be background pattern. */
const UNSURE_WORD = 60;

/**
 * Parses an address, and again without its unsure words: when the gazetteer
 * finds as many units without them, they were noise ("Ấp UHIUUH 17").
 */
function parseAddressWords(field: RawField): ParsedAddress {
  // A number glued to its street type ("8Ngõ") is two words, each judged on its own below.
  const r = field.words ? splitGluedWords(field) : field;
  const all = parseAddress(r.text);
  // A stray mark glued to a word ("[hôn") is not a reason to drop it: judge the word without it.
  const bare = (t: string) => t.replace(/^[^\p{L}\p{N}]+/u, '');
  // Only words that cannot be Vietnamese are candidates ("UHIUUH", "NT"): an unsure "Tổ" or "Tỉnh" stays, and so
  // do a street type's abbreviation ("Tdp" read unsurely) and a first word that stands for a street type however damaged
  // ("t{hóm 9" for Khóm 9).
  const streetLead = (i: number) => isStreetWord(r.words![i].text) || (i === 0 && streetTypeOf(r.words![0].text, r.words![1]?.text) !== undefined);
  const sure = (r.words ?? [])
    .map((w) => ({ ...w, text: bare(w.text) }))
    .filter((w, i) => w.text && (w.conf >= UNSURE_WORD || /^\d+[,.]?$/.test(w.text) || vietnameseWord(w.text) || streetLead(i)));
  if (!r.words || sure.length === 0 || sure.every((w, i) => w.text === r.words![i]?.text)) return all;
  const trimmed = parseAddress(tidy(sure.map((w) => w.text).join(' ')));
  return trimmed.matched >= all.matched && trimmed.exact >= all.exact ? trimmed : all;
}

function splitGluedWords(r: RawField): RawField {
  const words = r.words!.flatMap((w) => splitGluedStreetWord(w.text).map((text) => ({ text, conf: w.conf })));
  return words.length === r.words!.length ? r : { ...r, text: tidy(words.map((w) => w.text).join(' ')), words };
}

/** Could be a printed Vietnamese word: letters only (a trailing comma or dot allowed), a vowel, no f/j/w/z, at most 7 letters, not mixed-case inside. */
export function vietnameseWord(text: string): boolean {
  const m = /^(\p{L}+)[,.]?$/u.exec(text);
  if (!m) return false;
  return VIETNAMESE_SYLLABLE.test(fold(m[1])) && !/\p{Ll}\p{Lu}/u.test(m[1]);
}

/** A Vietnamese syllable without its marks: an onset, one to three vowels, a coda ("UHIUUH" and "NT" are not). */
const VIETNAMESE_SYLLABLE = /^(ngh|ng|nh|ch|gh|gi|kh|ph|qu|th|tr|[bcdghklmnpqrstvx])?[aeiouy]{1,3}(ch|ng|nh|[cmnpt])?$/;

/**
 * Vietnamese family names, the common ones (together over 95% of people):
 * the first word of a name is matched to them accent-insensitively, since
 * OCR often loses a tone mark ("NGUYÊN" for NGUYỄN).
 */
const SURNAMES = [
  'NGUYỄN',
  'TRẦN',
  'LÊ',
  'PHẠM',
  'HOÀNG',
  'HUỲNH',
  'PHAN',
  'VŨ',
  'VÕ',
  'ĐẶNG',
  'BÙI',
  'ĐỖ',
  'HỒ',
  'NGÔ',
  'DƯƠNG',
  'LÝ',
  'ĐINH',
  'TRỊNH',
  'LƯƠNG',
  'MAI',
  'ĐÀO',
  'ĐOÀN',
  'LÂM',
  'TRƯƠNG',
  'CAO',
  'HÀ',
  'LƯU',
  'TÔ',
  'TẠ',
  'CHU',
  'CHÂU',
  'QUÁCH',
  'THÁI',
  'TỐNG',
  'LA',
  'KIỀU',
  'TĂNG',
  'TÔN',
  'HỨA',
  'LỤC',
  'DIỆP',
  'VƯƠNG',
  'TRIỆU',
  'KHƯƠNG',
  'LỘC',
  'MẠC',
  'THÂN',
  'VI',
  'NÔNG',
  'HẦU',
  'PHÙNG',
  'QUAN',
  'LỮ',
  'ÂU',
  'KHỔNG',
  'ỨNG',
  'LÃ',
  'LÒ',
  'KHÚC',
  'GIÁP',
];
const SURNAME_BY_FOLD = (() => {
  const map = new Map<string, string | null>();
  for (const n of SURNAMES) map.set(fold(n), map.has(fold(n)) ? null : n);
  return map;
})();

/** A family name of three letters or more, accents aside (shorter ones are too easily made of noise). */
export function isFamilyName(word: string): boolean {
  const key = fold(word);
  return key.length >= 3 && SURNAME_BY_FOLD.has(key);
}

/** Restores the tone marks of a known family name (only when its unaccented spelling names one family name). */
export function fixSurname(name: string): string {
  const [first, ...rest] = name.split(' ');
  if (!first || SURNAMES.includes(first)) return name;
  const hit = SURNAME_BY_FOLD.get(fold(first));
  return hit ? [hit, ...rest].join(' ') : name;
}

/**
 * An id from two readings that each got part of it: the first read short ("04908356678", the last digit lost
 * to the card's artwork), the second, wider, read the whole length but one digit wrong ("049085566783"). When
 * the two agree on the first reading's digits but for one, the first's digits and the rest of the second's
 * make a third candidate ("049083566783"), for the cross-checks (province, century and sex, year of birth)
 * to confirm or not. Undefined when the readings do not fit that way.
 */
export function mergedId(first: RawField | undefined, second: RawField | undefined, length: 9 | 12): RawField | undefined {
  const a = first ? (first.text.match(/\d/g) ?? []).join('') : '';
  // A second reading with digits too many gives no digits to trust for the rest.
  const b = second && !idWindowed(second.text, length) ? normaliseId(second.text, length) : undefined;
  if (!b || a.length < length - 3 || a.length >= length) return undefined;
  let differ = 0;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) differ++;
  if (differ > 1) return undefined;
  const text = a + b.slice(a.length);
  return text === b ? undefined : { text, conf: Math.min(first!.conf, second!.conf) };
}

/** A name's words as the answer spells them, each with the confidence of the OCR word it came from. */
function nameWords(r: RawField): { text: string; conf: number }[] {
  const words = r.words ?? [{ text: r.text, conf: r.conf }];
  return words.flatMap((w) => (normaliseName(w.text) ? normaliseName(w.text).split(' ') : []).map((text) => ({ text, conf: w.conf })));
}

/** A name as answered: normalised, its family name's tone marks restored. */
export const nameOf = (r: RawField | undefined): string => (r?.text ? fixSurname(normaliseName(r.text)) : '');

/**
 * The name from two readings of its line (the whole card's, `a`, and the line's own, enlarged, `b`). When
 * they spell the same letters and differ only in marks ("HÀNG" / "HẰNG"), each word is taken from the
 * reading that was surer of it, and the name is marked unsure: Tesseract gives a wrong tone mark as high a
 * confidence as a right one, so the disagreement is the only sign. When they spell different letters and
 * both are names (a family name, Vietnamese syllables), `a` is kept, unsure, unless `b` is `a` with a word
 * more that `a` lost. Otherwise `a` is kept as it is.
 */
export function voteName(a: RawField, b: RawField | undefined): RawField {
  const na = nameOf(a);
  const nb = nameOf(b);
  if (!b || !na || !nb || na === nb) return a;
  if (fold(na) !== fold(nb)) {
    // A word one reading lost (the family name, the last given name): the other, a name that is this one with
    // words more before or after it, is taken, unsure. A word more inside it is a mark read as one (every
    // word between is printed a space apart, and OCR loses a word at a line's ends).
    const fa = fold(na);
    const fb = fold(nb);
    if (fb.length > fa.length && (fb.startsWith(fa + ' ') || fb.endsWith(' ' + fa)) && plausibleName(nb)) return { ...b, unsure: true };
    return plausibleName(nb) ? { ...a, unsure: true } : a;
  }
  const wa = nameWords(a);
  const wb = nameWords(b);
  if (wa.length !== wb.length || wa.some((w, i) => fold(w.text) !== fold(wb[i].text))) return { ...a, unsure: true };
  const words = wa.map((w, i) => (wb[i].conf > w.conf ? wb[i] : w));
  return { text: words.map((w) => w.text).join(' '), conf: words.reduce((sum, w) => sum + w.conf, 0) / words.length, words, unsure: true };
}

/** A family name first, a given name after it (not a middle name), every word a Vietnamese syllable, at most seven. */
export function plausibleName(v: string): boolean {
  const words = v.split(' ');
  // THỊ and VĂN are middle names: a name ending in one lost its given name ("PHAN THỊ" of PHAN THỊ TUYẾT).
  return SURNAMES.includes(words[0]) && words.length >= 2 && words.length <= 7 && words.every(vietnameseWord) && !MIDDLE_ONLY.includes(words[words.length - 1]);
}

const MIDDLE_ONLY = ['THỊ', 'VĂN'];

/** Free-text fields whose words average below this confidence are read a second time. */
const WEAK_CONF = 80;

/**
 * Fields worth a second reading: missing, rejected by a validator, an address
 * with fewer than two units found in the gazetteer, or free text read unsurely.
 */
export function weakFields(layout: CardLayout, normal: NormalisedCard, raw: Partial<Record<IdCardField, RawField>>): IdCardField[] {
  const weak = layout.fields.filter((f) => {
    const v = normal.fields[f];
    if (!v || v.invalid) return true;
    if (f === 'address' || f === 'home') return !v.valid || (raw[f]?.conf ?? 0) < WEAK_CONF || (f === 'address' && danglingStreet(normal.address?.street ?? ''));
    if (f === 'name' || f === 'features') return (raw[f]?.conf ?? 0) < WEAK_CONF || !v.valid;
    if (f === 'pob') return !v.valid || (raw[f]?.conf ?? 0) < WEAK_CONF;
    return false;
  });
  // A 12-digit id that fails its cross-checks may be right and the date of birth wrong.
  if (normal.fields.id?.invalid && layout.fields.includes('dob') && !weak.includes('dob')) weak.push('dob');
  return weak;
}

/** How well a field was read, to choose between two readings (higher is better). */
export function readingScore(field: IdCardField, normal: NormalisedCard, raw: Partial<Record<IdCardField, RawField>>): number {
  const v = normal.fields[field];
  if (!v) return 0;
  const conf = (raw[field]?.conf ?? 0) / 1000;
  if (field === 'address' || field === 'home') {
    const parsed = field === 'address' ? normal.address : parseAddress(v.value);
    // A street that lost what follows its type word ("Ngõ") is worse than one that kept it.
    return 1 + (parsed?.matched ?? 0) + (parsed?.exact ?? 0) / 10 + conf - (danglingStreet(parsed?.street ?? '') ? 0.05 : 0);
  }
  return (v.invalid ? 1 : v.valid ? 3 : 2) + conf;
}

/**
 * Two readings of a place whose streets both start with a type word: the one that read more of its type's
 * letters as printed is the better ("t{hóm 9" kept three of Khóm's letters; "tóm 9", repaired to Xóm, two of
 * Xóm's), by more than the words' confidence and one unit's accents weigh. [first, second] bonuses.
 */
export function typeLettersBonus(first: string | undefined, second: string): [number, number] {
  const a = first ? parseAddress(first).typeLettersRead : undefined;
  const b = parseAddress(second).typeLettersRead;
  if (a === undefined || b === undefined || a === b) return [0, 0];
  return a > b ? [TYPE_LETTERS_BONUS, 0] : [0, TYPE_LETTERS_BONUS];
}

const TYPE_LETTERS_BONUS = 0.3;

export function foldEquals(a: string, b: string): boolean {
  return fold(a) === fold(b);
}
