/**
 * Driving licences (POST /vision/dlr/vnm) on the layout-free reader's stages
 * (documents/page.ts): the model and side from what the page says, labels as
 * anchors, then the licence's own validation: 12-digit numbers, dates and
 * their order (issue after birth, expiry after issue, "Không thời hạn" for a
 * licence without expiry), class values of both class systems, addresses
 * against the gazetteer. The place and date of issue are read from the
 * printed "<place>, ngày dd tháng mm năm yyyy" line; the old paper back's
 * classes and their dates from its table rows.
 */
import { anchorPage, lineUnder, readFlatPage, readPageAt, type Anchored, type FlatPage } from '../page.js';
import { decodeImage } from '../../pipeline/decode.js';
import { cornersCutOff, flatToImage, wordsOnFrame } from '../../pipeline/locate.js';
import { checkQuality } from '../../pipeline/quality.js';
import { findCardByText } from '../../pipeline/text-locate.js';
import { fieldSpec, type DocumentModel } from '../model.js';
import { gazetteer, parseAddress, type ParsedAddress } from '../../pipeline/address.js';
import { recogniseLines } from '../../pipeline/recognise.js';
import { matchProvince, provincePlace } from '../../province.js';
import type { CardWord, Segment } from '../../pipeline/anchors.js';
import { stackBands } from '../../pipeline/crops.js';
import { CARD_HEIGHT, CARD_WIDTH, type Box } from '../../layouts.js';
import { fieldProbability, formatProb, overallScore } from '../../pipeline/confidence.js';
import {
  fixSurname,
  isFamilyName,
  normaliseDate,
  normaliseId,
  normaliseName,
  rawFromWords,
  wordsByBand,
  type FieldValue,
  type WordFilter,
} from '../../pipeline/fields.js';
import { ReaderFailure, refusalOf } from '../../pipeline/failure.js';
import { fuzzyHas } from '../../pipeline/kind.js';
import type { OcrEngine } from '../../pipeline/ocr.js';
import type { ReadRefusal, ReadTask } from '../../pipeline/run.js';
import { fold, foldKey, levenshtein, tidy } from '../../pipeline/text.js';
import { stageTimer } from '../../pipeline/timings.js';

export type LicenceKind = 'dl_paper_front' | 'dl_paper_back' | 'dl_pet_front' | 'dl_pet_back';
export const LICENCE_FIELDS = ['id', 'name', 'dob', 'nation', 'address', 'place_issue', 'date', 'doe', 'class', 'code'] as const;
export type LicenceField = (typeof LICENCE_FIELDS)[number];

/** The answer's `type` of each kind (spec: old front, old back, new front, new back). */
export const LICENCE_TYPES: Record<LicenceKind, string> = { dl_paper_front: 'old', dl_paper_back: 'old_back', dl_pet_front: 'new', dl_pet_back: 'new_back' };
/** Fields each front answers (the rest of LICENCE_FIELDS is N/A there). */
const FRONT: Record<'dl_paper_front' | 'dl_pet_front', LicenceField[]> = {
  dl_paper_front: ['id', 'name', 'dob', 'nation', 'address', 'place_issue', 'date', 'doe', 'code'],
  dl_pet_front: ['id', 'name', 'dob', 'nation', 'address', 'place_issue', 'date', 'doe', 'class'],
};

/** Class values of the 2025 system (licences of the Ministry of Public Security). */
export const CLASSES_2025 = ['A1', 'A', 'B1', 'B', 'C1', 'C', 'D1', 'D2', 'D', 'BE', 'C1E', 'CE', 'D1E', 'D2E', 'DE'];
/** Class values of the system before it (the Ministry of Transport's paper and PET licences). */
export const CLASSES_BEFORE_2025 = ['A1', 'A2', 'A3', 'A4', 'B1', 'B2', 'C', 'D', 'E', 'FB2', 'FC', 'FD', 'FE'];
/** Class values: the 2025 system and the one before it (A1-A4, B1, B2, C, D, E, F*). */
export const LICENCE_CLASSES = [...new Set([...CLASSES_2025, ...CLASSES_BEFORE_2025])];
export type LicenceEra = '2025' | 'before 2025';
/** Words printed for a licence that never expires. */
export const NO_EXPIRY = 'Không thời hạn';

/**
 * How each field's words are cleaned (pipeline/fields.ts rawFromWords). The class is plain: a one-letter
 * class ("C") must not be dropped as noise. The code is cleaned as a place, as it always was.
 */
const LICENCE_WORDS: Record<LicenceField, WordFilter> = {
  id: 'plain',
  name: 'name',
  dob: 'plain',
  nation: 'plain',
  address: 'place',
  place_issue: 'plain',
  date: 'plain',
  doe: 'plain',
  class: 'plain',
  code: 'place',
};

const spec = fieldSpec<LicenceField>;

/** Every wording of the licence fronts (paper: Vietnamese only; PET and 2025: bilingual). */
export const LICENCE_MODEL: DocumentModel<LicenceField> = {
  fields: [
    spec('id', 'digits', ['Số', 'Số / No', 'No']),
    spec('name', 'name', ['Họ tên', 'Họ và tên', 'Họ tên / Full name', 'Full name'], 2),
    spec('dob', 'date', ['Sinh ngày', 'Ngày sinh', 'Ngày sinh / Date of birth', 'Date of birth']),
    spec('nation', 'text', ['Quốc tịch', 'Quốc tịch / Nationality', 'Nationality']),
    spec('address', 'address', ['Nơi cư trú', 'Nơi cư trú / Address', 'Address'], 3),
    spec('class', 'text', ['Hạng', 'Hạng / Class', 'Class']),
    spec('doe', 'text', ['Có giá trị đến', 'Có giá trị đến / Expires', 'Giá trị đến', 'Expires']),
    spec('code', 'text', ['Mã số']),
  ],
  stops: [
    'Cộng hòa xã hội chủ nghĩa Việt Nam',
    'Độc lập - Tự do - Hạnh phúc',
    'Giấy phép lái xe',
    "Driver's license",
    'Bộ Giao thông vận tải',
    'Bộ Công an',
    'Giám đốc',
    'Cục trưởng',
  ],
};

/** A side's own labels: a paper front prints no class (a garbled "Họ tên" must not pass for "Hạng"), a PET front no code. */
export function modelOf(kind: LicenceKind): DocumentModel<LicenceField> {
  const absent: LicenceField | undefined = kind === 'dl_paper_front' ? 'class' : kind === 'dl_pet_front' ? 'code' : undefined;
  return absent ? { ...LICENCE_MODEL, fields: LICENCE_MODEL.fields.filter((f) => f.field !== absent) } : LICENCE_MODEL;
}

export interface ReadLicence {
  ok: true;
  kind: LicenceKind;
  fields: Partial<Record<LicenceField, { value: string; prob: number }>>;
  /** The old paper back: classes and their dates, row by row. */
  classes?: { value: string; prob: number }[];
  dates?: { value: string; prob: number }[];
  overall: number;
  timings: Record<string, number>;
}
export type LicenceResult = ReadLicence | ReadRefusal;

const squash = (s: string) => fold(s).replace(/[^a-z0-9]/g, '');

/** The licence's model and side from its words; undefined when the page is not a licence. */
export function licenceKind(words: CardWord[]): LicenceKind | undefined {
  const text = squash(words.map((w) => w.text).join(' '));
  const has = (...p: string[]) => p.some((x) => fuzzyHas(text, x));
  const bilingual = has('full name', 'date of birth', 'nationality', 'driver', 'class', 'expires');
  // The title, or two of a back's words: one short phrase alone is matched, one letter off, in the
  // garbage an upside-down page reads as.
  const backCues = ['xe mo to', 'xi lanh', 'hang xe', 'cho nguoi', 'ngay trung tuyen', 'vehicles', 'loai xe'].filter((c) => has(c)).length;
  // A front whose title glare or a crop took: two of the labels and words only a licence prints.
  const frontCues = ['hang class', 'expires', 'gplx', 'gtvt', 'noi cu tru address'].filter((c) => has(c)).length;
  const licence = has('giay phep lai xe', 'drivers license', 'driving licence') || backCues >= 2 || frontCues >= 2;
  if (!licence) return undefined;
  const front = has('ho ten', 'full name', 'noi cu tru', 'sinh ngay', 'ngay sinh');
  if (front) return bilingual ? 'dl_pet_front' : 'dl_paper_front';
  // The paper back heads its table "Các hạng xe được điều khiển" / "Hạng xe"; the PET back describes each class.
  if (has('cac hang xe', 'hang xe duoc', 'ngay trung tuyen') && !has('vehicles', 'xi lanh', 'cho nguoi')) return 'dl_paper_back';
  return 'dl_pet_back';
}

/**
 * "Hà Nội, ngày 15 tháng 03 năm 2019" (the PET card adds glosses: "ngày/date 14 tháng/month 06 năm/year 2021",
 * or "ngày (date) 09 ..."): the place and date of issue (no label of their own). The place is answered when the
 * line is one ("ngày" then "năm"), even when the stamp over it leaves the date unreadable.
 */
export function issueLine(text: string): { place?: string; date?: string } | undefined {
  // The glosses out, whatever OCR made of their marks ("tdate)", "(month").
  const plain = text.replace(/[/(]*\s*\(?(?:(?<=^|[\s/(])\p{L})?(date|month|year)\)?/giu, ' ');
  // An a with any mark, or a letter OCR put marks on that Vietnamese has not ("thắng" for "tháng", "näm" for "năm").
  const a = '(?:a|[^\\x00-\\x7f])';
  const line =
    new RegExp(`^(.*?)[,.]?\\s*ng${a}y\\b(.*?)\\bn${a}m\\b\\s*(.*)$`, 'iu').exec(plain) ??
    // "ngày" lost to the stamp or the italics: a province, a comma, and "năm" with a year after it.
    ((m) => (m && provincePlace(m[1]) ? m : null))(new RegExp(`^([^,]{2,30}),(.*?)\\bn${a}m\\b\\s*(\\d[\\d ]{3,5}.*)$`, 'iu').exec(plain));
  if (!line) return undefined;
  const place = tidy(line[1].replace(/[,.\s]+$/, '')) || undefined;
  // OCR may split the year ("201 1"): its digits are gathered up to four.
  const dayMonth = new RegExp(`^\\s*(\\d{1,2})\\s*th${a}ng\\s*(\\d{1,2})\\s*$`, 'iu').exec(line[2]);
  const yearDigits = /^(\d[\d ]{3,5})/.exec(line[3].trim());
  const year = yearDigits?.[1].replace(/\s/g, '').slice(0, 4);
  const date = dayMonth && year?.length === 4 ? normaliseDate(`${dayMonth[1]}/${dayMonth[2]}/${year}`) : undefined;
  return { place, date };
}

const ms = (s: string | undefined) => {
  if (!s || !/^\d{2}\/\d{2}\/\d{4}$/.test(s)) return undefined;
  const [d, m, y] = s.split('/').map(Number);
  return Date.UTC(y, m - 1, d);
};

/** The issuer's era from the page's header: the Ministry of Public Security issues the 2025 model. */
export function licenceEra(words: CardWord[]): LicenceEra | undefined {
  const text = squash(words.map((w) => w.text).join(' '));
  if (fuzzyHas(text, 'bo cong an')) return '2025';
  if (fuzzyHas(text, 'giao thong van tai')) return 'before 2025';
  return undefined;
}

/**
 * A class value as printed ("B2", "C1E"); OCR's 8/B, 0/D and 1/I slips (an I with a mark too: "BÍ")
 * mended only to a listed value. With the era known, only that era's classes are values (a pre-2025
 * licence has no class B: "B" there is B1 or B2 with its digit lost).
 */
export function normaliseClass(text: string, era?: LicenceEra): string | undefined {
  const list = era === '2025' ? CLASSES_2025 : era === 'before 2025' ? CLASSES_BEFORE_2025 : LICENCE_CLASSES;
  const words = fold(text)
    .toUpperCase()
    .replace(/[^A-Z0-9 ]/g, ' ')
    .split(/\s+/)
    .filter(Boolean);
  for (const w of words) {
    if (list.includes(w)) return w;
    const mended = w
      .replace(/8/g, 'B')
      .replace(/0/g, 'D')
      .replace(/(?<=[A-Z])I/g, '1')
      .replace(/(?<=[A-Z])Z/g, '2');
    if (list.includes(mended)) return mended;
  }
  return undefined;
}

/** Unit type words a licence abbreviates ("X. Hòa Lợi, H. Châu Thành, T. Trà Vinh", "P.7, Q.Gò Vấp"). */
const UNIT_ABBREVIATIONS: Record<string, string> = { tp: 'Thành phố', tx: 'Thị xã', tt: 'Thị trấn', x: 'Xã', h: 'Huyện', t: 'Tỉnh', p: 'Phường', q: 'Quận' };

/**
 * A licence's address against the gazetteer, its unit types abbreviated as printed: each abbreviation is read as
 * its type word (else the dot after it reads as the end of a part, and the unit is not found), and the answer
 * prints it back as the card did.
 */
export function licenceAddress(text: string): ParsedAddress {
  const printed: { abbreviation: string; word: string }[] = [];
  const expanded = text.replace(/(^|[\s,])(TP|Tp|TX|TT|[XHTPQ])\.(\s*)(?=[\p{Lu}\d])/gu, (_, lead: string, type: string, space: string) => {
    const word = UNIT_ABBREVIATIONS[type.toLowerCase()];
    printed.push({ abbreviation: `${type}.${space ? ' ' : ''}`, word });
    return `${lead}${word} `;
  });
  if (printed.length === 0) return parseAddress(text);
  const a = parseAddress(expanded);
  let out = a.text;
  let from = 0;
  for (const { abbreviation, word } of printed) {
    // The parser may set a comma after a type word it did not take for one ("Thành phố, Hồ Chí Minh").
    const m = new RegExp(`${word},? `, 'u').exec(out.slice(from));
    if (!m) continue;
    const at = from + m.index;
    out = `${out.slice(0, at)}${abbreviation}${out.slice(at + m[0].length)}`;
    from = at + abbreviation.length;
  }
  return { ...a, text: out };
}

type Raw = Partial<Record<LicenceField, { text: string; conf: number; unsure?: boolean; words?: { text: string; conf: number }[] }>>;

/** A name's words without the unsure ones at its ends: the artwork or the label's end read as a letter ("Ì", "BE"). */
function nameWords(r: { text: string; words?: { text: string; conf: number }[] }): string {
  const words = r.words ?? [];
  let [from, to] = [0, words.length];
  while (from < to && words[from].conf < SURE_WORD) from++;
  while (to > from && words[to - 1].conf < SURE_WORD) to--;
  return words.length === 0 || from === to
    ? r.text
    : words
        .slice(from, to)
        .map((w) => w.text)
        .join(' ');
}

/** A word this sure of itself is a reading; under it, a mark of the artwork read as a letter ("b", "E—I"). */
const SURE_WORD = 50;

/**
 * The class among the words read after its label: the surest word that is a class value (the artwork beside it is
 * read as stray letters, "E—I B2", which are class values too). Two sure words naming different classes: unsure.
 */
export function classOf(r: { text: string; conf: number; words?: { text: string; conf: number }[] }, era?: LicenceEra): FieldValue | undefined {
  const words = r.words?.length ? r.words : [{ text: r.text, conf: r.conf }];
  const read = words.flatMap((w) => {
    const value = normaliseClass(w.text, era);
    return value ? [{ value, conf: w.conf }] : [];
  });
  if (read.length === 0) return undefined;
  const best = read.reduce((a, b) => (b.conf > a.conf ? b : a));
  const rival = read.some((c) => c.value !== best.value && c.conf >= SURE_WORD);
  return { value: best.value, conf: best.conf, valid: true, unsure: rival || undefined };
}

/** The fields printed in digits, which the recognition network reads again (recognise.ts). */
export const LICENCE_DIGIT_FIELDS = ['id', 'dob', 'date', 'doe'] as const satisfies readonly LicenceField[];

/**
 * A licence number as printed: 12 digits (every licence since the PET card's numbering), else an older number of
 * digits and capital letters ("AB 123456", nine digits and a letter), kept as printed. Undefined when neither.
 */
export function licenceNumber(text: string): { value: string; twelve: boolean } | undefined {
  const twelve = normaliseId(text, 12);
  if (twelve) return { value: twelve, twelve: true };
  const older = text
    .toUpperCase()
    .split(/\s+/)
    .map((w) => w.replace(/[^A-Z0-9]/g, ''))
    .find((w) => w.length >= 8 && w.length <= 13 && (w.match(/\d/g) ?? []).length >= 6);
  return older ? { value: older, twelve: false } : undefined;
}

/** The province of issue's code ('01' Hà Nội, '79' TP. Hồ Chí Minh), as the licence number starts with it. */
function provinceCodeOf(place: string): string | undefined {
  const name = matchProvince(place);
  return name ? gazetteer().find((p) => p.name === name)?.code : undefined;
}

/** dd/mm/yyyy's day and month, and its year. */
const dayMonth = (d: string) => d.slice(0, 5);
const yearOf = (d: string) => Number(d.slice(6));
/** A licence's terms in years (5 for trucks and coaches, 10 for cars). */
const TERMS = [5, 10];

/**
 * The answer's values from the raw readings, each with its validators. A value is confirmed (valid) only by
 * what checks it: a date or number read the same by Tesseract and the recognition network (`agreed`), the
 * number's first two digits naming the province of issue (the number is that province's), an expiry on the
 * issue date's day a licence's term later, "Không thời hạn", a class of the list, an address of the gazetteer.
 */
function normalise(
  kind: 'dl_paper_front' | 'dl_pet_front',
  raw: Raw,
  era?: LicenceEra,
  agreed: ReadonlySet<LicenceField> = new Set(),
): Partial<Record<LicenceField, FieldValue>> {
  const out: Partial<Record<LicenceField, FieldValue>> = {};
  for (const f of FRONT[kind]) {
    const r = raw[f];
    if (!r || !r.text) continue;
    const { text, conf } = r;
    const unsure = r.unsure || undefined;
    switch (f) {
      case 'id': {
        const v = licenceNumber(text);
        if (v) out.id = { value: v.value, conf, valid: v.twelve && agreed.has('id'), unsure };
        break;
      }
      case 'name': {
        const v = fixSurname(normaliseName(nameWords(r)));
        // A family name first is a check of form only (confidence.ts): the name stays under 80.
        if (v) out.name = { value: v, conf, valid: isFamilyName(v.split(' ')[0]) && v.split(' ').length >= 2, formOnly: true };
        break;
      }
      case 'dob':
      case 'date': {
        // A date read once is a real date whatever digit OCR got wrong: it is confirmed only by a second reader.
        const v = normaliseDate(text);
        if (v) out[f] = { value: v, conf, valid: agreed.has(f), unsure };
        break;
      }
      case 'doe': {
        if (fuzzyHas(squash(text), 'khong thoi han')) out.doe = { value: NO_EXPIRY, conf, valid: true };
        else {
          const v = normaliseDate(text);
          if (v) out.doe = { value: v, conf, valid: agreed.has('doe'), unsure };
        }
        break;
      }
      case 'nation': {
        // Printed "VIỆT NAM" or "Việt Nam" (cards of different years): answered as printed, in the reading's case.
        const vietnam = foldKey(text).includes('vietnam') || fuzzyHas(squash(text), 'viet nam');
        const letters = text.replace(/[^\p{L}]/gu, '');
        const upper = letters.length > 0 && letters.replace(/[^\p{Lu}]/gu, '').length > letters.length / 2;
        out.nation = vietnam ? { value: upper ? 'VIỆT NAM' : 'Việt Nam', conf, valid: true } : { value: tidy(text), conf, invalid: true };
        break;
      }
      case 'address': {
        const a = licenceAddress(text);
        // Province and district found in the gazetteer: the address checks out. As on ID cards (fields.ts), the
        // gazetteer vouches for the units it found, not for a street or a unit it had to correct: unsure then.
        const whole = a.ward !== '' && a.district !== '' && a.province !== '' && a.street.trim() === '';
        if (a.text) out.address = { value: a.text, conf, valid: a.matched >= 2, invalid: a.matched === 0, unsure: !whole || a.exact < a.matched || a.spellingUnsure };
        break;
      }
      case 'place_issue': {
        // A province (a licence is issued by a province's transport department): the gazetteer's spelling. A
        // province found inside more words than its name is the list's guess at the place: unsure.
        const place = provincePlace(text);
        const v = place ?? tidy(text);
        const whole = !!place && levenshtein(foldKey(text), foldKey(place)) <= Math.floor(foldKey(place).length / 6);
        if (v) out.place_issue = { value: v, conf, valid: !!place, unsure: (!!place && !whole) || undefined };
        break;
      }
      case 'class': {
        const v = classOf(r, era);
        if (v) out.class = v;
        break;
      }
      case 'code': {
        const v = text.toUpperCase().replace(/[^A-Z0-9]/g, '');
        if (v.length >= 6) out.code = { value: v, conf };
        break;
      }
    }
  }
  // The number starts with the code of the province that issued it: the two printed values check each other.
  const code = out.place_issue?.valid ? provinceCodeOf(out.place_issue.value) : undefined;
  if (out.id && code && out.id.value.startsWith(code)) out.id = { ...out.id, valid: true };
  // An expiry on the issue date's day and month, a licence's term later, confirms both dates.
  const { date: issued, doe: expires } = out;
  if (
    issued &&
    expires &&
    expires.value !== NO_EXPIRY &&
    dayMonth(issued.value) === dayMonth(expires.value) &&
    TERMS.includes(yearOf(expires.value) - yearOf(issued.value))
  ) {
    out.date = { ...issued, valid: true };
    out.doe = { ...expires, valid: true };
  }
  // Dates in order: born before issue, issued before expiry.
  const dob = ms(out.dob?.value);
  const date = ms(out.date?.value);
  const doe = ms(out.doe?.value);
  if (dob !== undefined && date !== undefined && dob >= date) for (const f of ['dob', 'date'] as const) out[f] = { ...out[f]!, valid: false, invalid: true };
  if (date !== undefined && doe !== undefined && date >= doe) for (const f of ['date', 'doe'] as const) out[f] = { ...out[f]!, valid: false, invalid: true };
  return out;
}

/**
 * A word holding both halves of a bilingual label ("tên/Full", "tên/£ui" as OCR glues them) split at the slash,
 * so that the Vietnamese half is matched as a label on its own; the box is shared by letter count.
 */
export function splitGlosses(words: readonly CardWord[]): CardWord[] {
  return words.flatMap((w) => {
    const m = /^(.*\p{L}\/)([^\d/].*)$/u.exec(w.text);
    if (!m) return [w];
    const width = Math.round((w.width * m[1].length) / w.text.length);
    return [
      { ...w, text: m[1], width },
      { ...w, text: m[2], left: w.left + width, width: w.width - width },
    ];
  });
}

/** A value's lines up to the issue line ("<place>, ngày ... năm ..."), which is no field's value. */
const beforeIssueLine = <T extends { text: string }>(lines: T[][]): T[][] => {
  const k = lines.findIndex((l) => issueLine(l.map((w) => w.text).join(' ')) !== undefined);
  return k < 0 ? lines : lines.slice(0, k);
};

/** A front's raw readings, and where each digit field's value lies on the page (for the network's second reading). */
export interface FrontReading {
  raw: Raw;
  boxes: Partial<Record<LicenceField, Box>>;
}

/**
 * A bilingual label's English half, garbled past matching ("Họ tên/" then "£ui xan: :" for "Full Name :"), is
 * read as the start of the value: the value starts after the colon that ends the label, within its first words.
 */
function afterGloss<T extends { text: string }>(lines: T[][], labelEndsInSlash: boolean): T[][] {
  if (!labelEndsInSlash || lines.length === 0) return lines;
  const first = lines[0];
  let end = -1;
  for (let i = 0; i < Math.min(first.length - 1, 3); i++) if (/:$/.test(first[i].text)) end = i;
  return end < 0 ? lines : [first.slice(end + 1), ...lines.slice(1)];
}

/** Two segments on one row: they overlap by more than half the shorter one's height. */
const sameRow = (h: Segment, g: Segment) => Math.min(h.bottom, g.bottom) - Math.max(h.top, g.top) > 0.5 * Math.min(h.bottom - h.top, g.bottom - g.top);

const boxOfWords = (words: readonly CardWord[]): Box => {
  const x = Math.min(...words.map((w) => w.left));
  const y = Math.min(...words.map((w) => w.top));
  return { x, y, w: Math.max(...words.map((w) => w.left + w.width)) - x, h: Math.max(...words.map((w) => w.top + w.height)) - y };
};

/** Fields of a front as read: anchored values, the line under a label the anchors left, and the issue line. */
export function frontReading(kind: 'dl_paper_front' | 'dl_pet_front', a: Anchored<LicenceField>, era?: LicenceEra): FrontReading {
  const raw: Raw = {};
  const boxes: FrontReading['boxes'] = {};
  for (const f of FRONT[kind]) {
    const v = a.values[f];
    if (!v) continue;
    const hit = v.label;
    const slash = a.segments[hit.segment]?.words[hit.end - 1]?.text.endsWith('/') ?? false;
    const lines = afterGloss(beforeIssueLine(v.lines), slash).filter((l) => l.length > 0);
    if (lines.length === 0) continue;
    raw[f] = rawFromWords(LICENCE_WORDS[f], lines);
    boxes[f] = boxOfWords(lines[0]);
  }
  const first = normalise(kind, raw, era);
  for (const f of FRONT[kind]) {
    const hit = a.hits.find((h) => h.field === f);
    const under = !first[f] && hit ? lineUnder(a, hit) : undefined;
    if (under) {
      raw[f] = rawFromWords(LICENCE_WORDS[f], [under.words]);
      boxes[f] = boxOfWords(under.words);
    }
  }
  // The issue line, with the pieces of it on the same row to its right (the stamp over it cuts it up). Read from
  // each segment of the row rightwards, the one starting at the place is the line: a segment left of it on the
  // same row (the paper front's "Mã số") is no part of the place.
  const rows = a.segments.flatMap((g) => {
    const words = [g, ...a.segments.filter((h) => h !== g && h.left > g.left && sameRow(h, g)).sort((x, y) => x.left - y.left)].flatMap((h) => h.words);
    const issue = issueLine(words.map((w) => w.text).join(' '));
    return issue ? [{ g, words, issue }] : [];
  });
  const top = rows[0];
  const line = top && (rows.filter((r) => sameRow(r.g, top.g) && r.issue.place && provincePlace(r.issue.place)).sort((x, y) => y.g.left - x.g.left)[0] ?? top);
  if (line) {
    const { words, issue } = line;
    const conf = words.reduce((s, w) => s + w.conf, 0) / words.length;
    if (issue.place) raw.place_issue = { text: issue.place, conf };
    if (issue.date) raw.date = { text: issue.date, conf };
    boxes.date = boxOfWords(words);
  }
  // The number's label lost ("Số" is short and read "Sø"): the front prints one 12-digit number, its id.
  if (!first.id) {
    const twelve = a.segments.flatMap((g) => g.words).filter((w) => /^\d{12}$/.test(w.text.replace(/[^\d]/g, '')) && !/\d[/.-]\d/.test(w.text));
    if (twelve.length === 1) {
      raw.id = { text: twelve[0].text, conf: twelve[0].conf };
      boxes.id = boxOfWords(twelve);
    }
  }
  return { raw, boxes };
}

/** A front's fields from Tesseract's reading alone. */
export function readFront(kind: 'dl_paper_front' | 'dl_pet_front', a: Anchored<LicenceField>, era?: LicenceEra): Partial<Record<LicenceField, FieldValue>> {
  return normalise(kind, frontReading(kind, a, era).raw, era);
}

/** How far each way of a value's words the network's crop reaches, in letter heights (a digit Tesseract lost). */
const NET_REACH = 0.6;

/**
 * The digit fields read again by the recognition network on their own line, and combined with Tesseract's: the
 * same value from both is confirmed (`agreed`); different values, Tesseract's stands unless it is not a value and
 * the network's is, either way unsure; a value only the network read is answered unsure. The issue line's date is
 * read on the whole line ("ngay 01 thang 12 nam 2020" to the network, which spells no Vietnamese). Without the
 * network's model, Tesseract's readings stand.
 */
export async function confirmDigits(
  kind: 'dl_paper_front' | 'dl_pet_front',
  gray: Buffer,
  reading: FrontReading,
  era?: LicenceEra,
): Promise<{ raw: Raw; agreed: Set<LicenceField> }> {
  const fields = LICENCE_DIGIT_FIELDS.filter((f) => FRONT[kind].includes(f) && reading.boxes[f]);
  const agreed = new Set<LicenceField>();
  const raw = { ...reading.raw };
  let read: { text: string; conf: number }[];
  try {
    const boxes = fields.map((f) => {
      const b = reading.boxes[f]!;
      const pad = NET_REACH * b.h;
      const x = Math.max(0, b.x - pad);
      const y = Math.max(0, b.y - pad / 2);
      return { x, y, w: Math.min(CARD_WIDTH - x, b.w + 2 * pad), h: Math.min(CARD_HEIGHT - y, b.h + pad) };
    });
    read = await recogniseLines(gray, CARD_WIDTH, CARD_HEIGHT, boxes);
  } catch {
    return { raw, agreed };
  }
  const tesseract = normalise(kind, raw, era);
  fields.forEach((f, i) => {
    const text = f === 'date' ? issueLine(read[i].text)?.date : read[i].text;
    if (!text) return;
    const n = normalise(kind, { ...raw, [f]: { text, conf: read[i].conf } }, era)[f];
    const t = tesseract[f];
    if (!n || n.invalid) return;
    if (t?.value === n.value) agreed.add(f);
    else if (t && !t.invalid) raw[f] = { ...raw[f]!, unsure: true };
    else raw[f] = { text, conf: read[i].conf, unsure: true };
  });
  return { raw, agreed };
}

type Row = { cls: string; date: string; conf: number; top: number };

/**
 * The old paper back's rows: a class value and, on the same row to its right, the date it was passed.
 * A row whose date was read but not its class (a lone letter is easily lost in sparse reading) has the
 * class column of that row read again on its own.
 */
async function readPaperBack(
  a: Anchored<LicenceField>,
  gray: Buffer,
  ocr: OcrEngine,
): Promise<{ classes: { value: string; prob: number }[]; dates: { value: string; prob: number }[] }> {
  const textOf = (g: Segment) => g.words.map((w) => w.text).join(' ');
  const confOf = (g: Segment) => g.words.reduce((s, w) => s + w.conf, 0) / g.words.length;
  const rows: Row[] = [];
  const used = new Set<Segment>();
  for (const g of a.segments) {
    const words = textOf(g).split(/\s+/);
    const cls = normaliseClass(words[0], 'before 2025');
    if (!cls || words[0].length > 4) continue;
    // The date: later on the same segment, or the nearest segment to the right on the same row.
    let dateText = words.slice(1).join(' ');
    let conf = confOf(g);
    if (!normaliseDate(dateText)) {
      const row = a.segments.filter((h) => h !== g && h.left > g.right && sameRow(h, g)).sort((x, y) => x.left - y.left)[0];
      if (!row) continue;
      dateText = textOf(row);
      conf = (conf + confOf(row)) / 2;
      used.add(row);
    }
    const date = normaliseDate(dateText);
    if (!date) continue;
    used.add(g);
    rows.push({ cls, date, conf, top: g.top });
  }
  // The class column: where the classes read stand, else under the "Hạng xe" heading.
  const heading = a.segments.find((g) => squash(textOf(g)) === 'hangxe');
  const classLeft = Math.min(...a.segments.filter((g) => used.has(g)).map((g) => g.left), heading ? heading.left : Infinity);
  const lonely = a.segments.filter(
    (g) => !used.has(g) && /^\d{1,2}\s*[/.-]\s*\d{1,2}\s*[/.-]\s*\d{4}$/.test(textOf(g).trim()) && Number.isFinite(classLeft) && g.left > classLeft + 60,
  );
  if (lonely.length > 0) {
    const boxes = lonely.map((g) => ({
      x: Math.max(0, classLeft - 30),
      y: g.top - 8,
      w: Math.min(g.left - classLeft + 20, CARD_WIDTH - classLeft),
      h: g.bottom - g.top + 16,
    }));
    const stack = await stackBands(gray, boxes, 2);
    const byBand = wordsByBand(await ocr.recognize(stack.image, { lang: 'eng', psm: 6, whitelist: 'ABCDEF12345' }), stack.spans);
    lonely.forEach((g, i) => {
      const ws = byBand[i] ?? [];
      const cls = normaliseClass(ws.map((w) => w.text).join(' '), 'before 2025');
      const date = normaliseDate(textOf(g));
      if (cls && date && ws.length) rows.push({ cls, date, conf: (ws.reduce((s, w) => s + w.conf, 0) / ws.length + confOf(g)) / 2, top: g.top });
    });
  }
  rows.sort((x, y) => x.top - y.top);
  return {
    classes: rows.map((r) => ({ value: r.cls, prob: fieldProbability({ value: r.cls, conf: r.conf, valid: true }) })),
    dates: rows.map((r) => ({ value: r.date, prob: fieldProbability({ value: r.date, conf: r.conf, valid: true }) })),
  };
}

/**
 * The class value right of its label, read again on its own with the class letters and digits only:
 * the whole page's reading loses a lone letter or turns a 1 into an accented I.
 */
async function rereadClass(gray: Buffer, label: Box, ocr: OcrEngine, era: LicenceEra | undefined): Promise<FieldValue | undefined> {
  const box = { x: label.x + label.w - 4, y: label.y - label.h * 0.5, w: Math.min(220, CARD_WIDTH - label.x - label.w), h: label.h * 2 };
  const stack = await stackBands(gray, [box], 2);
  const words = await ocr.recognize(stack.image, { lang: 'eng', psm: 7, whitelist: 'ABCDEF12345' });
  const v = normaliseClass(words.map((w) => w.text).join(' '), era);
  if (!v || words.length === 0) return undefined;
  return { value: v, conf: words.reduce((s, w) => s + w.conf, 0) / words.length, valid: true };
}

/**
 * A front's lines as the text detector finds them (page.ts PageOptions): its issue line is italic and slanted. A
 * back's as the sparse reading finds them: the detector's lines lose the paper back's lone class letters.
 */
const PAGE = { detectedLines: (kind: LicenceKind) => kind === 'dl_paper_front' || kind === 'dl_pet_front' };

/** Under this many fields at `_prob` >= 80 a front's reading is doubtful: the page may have been found wrong. */
const SURE_FIELDS = 3;

/** A refusal for want of a licence (2, 3), or a front with few sure fields: the page is looked for by its text. */
function doubtful(r: LicenceResult): boolean {
  if (!r.ok) return r.code === 2 || r.code === 3;
  const front = r.kind === 'dl_paper_front' || r.kind === 'dl_pet_front';
  return front && Object.values(r.fields).filter((f) => f && f.prob >= 80).length < SURE_FIELDS;
}

/** The second reading wins with more sure fields, or as many and a higher overall score; any reading beats a refusal. */
function better(second: LicenceResult, first: LicenceResult): boolean {
  if (!second.ok) return false;
  if (!first.ok) return true;
  const sure = (r: ReadLicence) => Object.values(r.fields).filter((f) => f && f.prob >= 80).length + [...(r.classes ?? [])].filter((c) => c.prob >= 80).length;
  const [a, b] = [sure(second), sure(first)];
  return a > b || (a === b && second.overall > first.overall);
}

/** The page's fields: a front's, a paper back's classes and dates, or a PET back's type alone. */
async function readPage(page: FlatPage<LicenceKind>, ocr: OcrEngine, timings: Record<string, number>, lap: (name: string) => void): Promise<ReadLicence> {
  const a = anchorPage(splitGlosses(page.words), modelOf(page.kind));
  const kind = page.kind;
  if (kind === 'dl_paper_back') {
    const { classes, dates } = await readPaperBack(a, page.gray, ocr);
    lap('fields');
    const probs = [...classes, ...dates].map((c) => c.prob);
    return { ok: true, kind, fields: {}, classes, dates, overall: overallScore(probs), timings };
  }
  if (kind === 'dl_pet_back') return { ok: true, kind, fields: {}, overall: 0, timings };
  const era = licenceEra(page.words);
  const { raw, agreed } = await confirmDigits(kind, page.gray, frontReading(kind, a, era), era);
  const normal = normalise(kind, raw, era, agreed);
  const classHit = a.hits.find((h) => h.field === 'class');
  if (kind === 'dl_pet_front' && !normal.class && classHit) {
    const cls = await rereadClass(page.gray, classHit.box, ocr, era);
    if (cls) normal.class = cls;
    timings.retried = 1;
  }
  lap('fields');
  const fields: ReadLicence['fields'] = {};
  for (const f of FRONT[kind]) {
    const v = normal[f];
    if (v) fields[f] = { value: v.value, prob: fieldProbability(v) };
  }
  return { ok: true, kind, fields, overall: overallScore(FRONT[kind].map((f) => fields[f]?.prob ?? 0)), timings };
}

/**
 * The licence found by its outline and read; when that refuses or a front's reading is doubtful (an outline of
 * something else: glare, a table's edge), found again by its text block (pipeline/text-locate.ts) and read, and
 * the better reading answered. A placement by text whose corners leave the photo answers 2 when a word read on
 * the page touches the photo's frame.
 */
export async function readLicence(task: ReadTask, ocr: OcrEngine): Promise<LicenceResult> {
  const { timings, lap } = stageTimer();
  try {
    const image = await decodeImage(Buffer.from(task.image.buffer, task.image.byteOffset, task.image.byteLength), task.maxPixels);
    checkQuality(image.gray, image.width, image.height);
    const first = await refusalOf(async () => readPage(await readFlatPage(task, ocr, 'driving licence', licenceKind, lap, image, PAGE), ocr, timings, lap));
    if (!doubtful(first)) return first;
    const byText = await findCardByText(image.gray, image.width, image.height).catch(() => undefined);
    lap('textLocate');
    if (!byText) return first;
    const second = await refusalOf(async () => {
      const page = await readPageAt(image, byText.corners, ocr, 'driving licence', licenceKind, lap, PAGE);
      // Placed by its text, the page may run off the photo: a word read at the photo's frame is cut off (2).
      const cut = cornersCutOff(byText.corners, image.width, image.height);
      if (cut && wordsOnFrame(page.words, flatToImage(byText.corners, page.turned), image.width, image.height))
        throw new ReaderFailure(2, 'Cropping failed: the licence runs off the image and printed text is cut off');
      return readPage(page, ocr, timings, lap);
    });
    return better(second, first) ? second : first;
  } catch (err) {
    if (err instanceof ReaderFailure) return { ok: false, code: err.code, message: err.message };
    throw err;
  }
}

/** The /vision/dlr/vnm data item: the side's fields with `_prob`, `N/A` where the side has none. */
export function licenceItem(card: ReadLicence): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  if (card.kind === 'dl_paper_back') {
    item.class = card.classes?.map((c) => c.value) ?? [];
    item.class_prob = card.classes?.map((c) => formatProb(c.prob)) ?? [];
    item.date = card.dates?.map((c) => c.value) ?? [];
    item.date_prob = card.dates?.map((c) => formatProb(c.prob)) ?? [];
  } else if (card.kind !== 'dl_pet_back') {
    const names = FRONT[card.kind];
    for (const f of LICENCE_FIELDS) {
      if (!names.includes(f)) continue;
      const v = card.fields[f];
      item[f] = v?.value ?? 'N/A';
      item[`${f}_prob`] = v ? formatProb(v.prob) : 'N/A';
    }
  }
  item.type = LICENCE_TYPES[card.kind];
  item.overall_score = formatProb(card.overall);
  return item;
}
