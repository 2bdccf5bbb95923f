/**
 * The fraud check's post-check (the original guide's codes E00-E22): rules on
 * the fields read from one side of a Vietnamese ID card, or from its front and
 * back sent together. Pure and exact: the first rule broken is the answer.
 * The 12-digit id is PPP G YY NNNNNN: PPP the province code where the birth
 * was registered, G the century and sex (0/1: 1900s man/woman, 2/3: 2000s,
 * 4/5: 2100s...), YY the last two digits of the birth year.
 */
import { LAYOUTS, type CardKind } from './layouts.js';
import { provinceByIdCode } from './pipeline/address.js';
import { fold } from './pipeline/text.js';
import { POST_CHECK_CODES } from './errors.js';

export { POST_CHECK_CODES };

export type PostCheckCode = keyof typeof POST_CHECK_CODES;

export interface PostCheckResult {
  result: 'Passed' | 'Failed';
  code: PostCheckCode;
  message: string;
}

/** One side as read: its kind and its fields (`N/A`, empty or absent when not read). */
export interface ReadSide {
  kind: CardKind;
  fields: Partial<Record<string, string>>;
}

export interface CalendarDate {
  day: number;
  month: number;
  year: number;
}

const NA = 'N/A';
/** The guide's fields a NULL of which fails the check, where the side prints them (the 2024 card prints its expiry on the back). */
const CHECKED = ['id', 'name', 'dob', 'sex', 'nationality', 'home', 'address', 'doe', 'issue_date'];
const requiredOf = (kind: CardKind) => LAYOUTS[kind].fields.filter((f) => CHECKED.includes(f));
/** Card families: front and back must be of one (E15). */
const FAMILY: Record<CardKind, string> = {
  cmnd_09_front: 'cmnd_09',
  cmnd_09_back: 'cmnd_09',
  cmnd_12_front: 'cmnd_12',
  cmnd_12_back: 'cmnd_12',
  cccd_12_front: 'cccd_12',
  cccd_12_back: 'cccd_12',
  cccd_chip_front: 'cccd_chip',
  cccd_chip_back: 'cccd_chip',
  cccd_2024_front: 'cccd_2024',
  cccd_2024_back: 'cccd_2024',
};

const present = (v: string | undefined): v is string => v !== undefined && v.trim() !== '' && v.trim() !== NA;

/** dd/mm/yyyy as a real calendar date, or undefined. */
export function parseDate(text: string | undefined): CalendarDate | undefined {
  const m = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec((text ?? '').trim());
  if (!m) return undefined;
  const [day, month, year] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1 || year < 1800) return undefined;
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return day <= last ? { day, month, year } : undefined;
}

export const isUnlimited = (text: string | undefined): boolean =>
  fold(text ?? '')
    .replace(/\s+/g, ' ')
    .trim() === 'khong thoi han';

const compare = (a: CalendarDate, b: CalendarDate) => a.year - b.year || a.month - b.month || a.day - b.day;

/** Full years from `birth` to `on` (a birthday counts on its day; 29 Feb counts on 1 Mar in other years). */
export function ageOn(birth: CalendarDate, on: CalendarDate): number {
  let age = on.year - birth.year;
  if (on.month < birth.month || (on.month === birth.month && on.day < birth.day)) age--;
  return age;
}

/** The `years`th birthday as printed on a card (29 Feb falls on 28 Feb in a common year). */
export function birthday(birth: CalendarDate, years: number): CalendarDate {
  const year = birth.year + years;
  const last = new Date(Date.UTC(year, birth.month, 0)).getUTCDate();
  return { day: Math.min(birth.day, last), month: birth.month, year };
}

const sameDay = (a: CalendarDate, b: CalendarDate) => compare(a, b) === 0;

export function today(now = new Date()): CalendarDate {
  return { day: now.getDate(), month: now.getMonth() + 1, year: now.getFullYear() };
}

/** ID format (E02): 9 digits on the 9-digit identity card, else 12 digits with a real province code. */
export function idFormatOk(kind: CardKind, id: string): boolean {
  if (kind.startsWith('cmnd_09')) return /^\d{9}$/.test(id);
  return /^\d{12}$/.test(id) && provinceByIdCode(id.slice(0, 3)) !== undefined;
}

/** The birth year a 12-digit id encodes: its century digit and its two year digits. */
export function idBirthYear(id: string): number {
  return 1900 + 100 * Math.floor(Number(id[3]) / 2) + Number(id.slice(4, 6));
}

/** Whether the id's century-and-sex digit says a woman (odd) or a man (even). */
export const idSaysWoman = (id: string): boolean => Number(id[3]) % 2 === 1;

const fail = (code: Exclude<PostCheckCode, 'E00'>): PostCheckResult => ({ result: 'Failed', code, message: POST_CHECK_CODES[code] });
const PASSED: PostCheckResult = { result: 'Passed', code: 'E00', message: '' };

/** The rules of one front side (E01-E11); `alone`: no back came with it. */
function checkFront(side: ReadSide, now: CalendarDate, alone: boolean): PostCheckResult | undefined {
  const f = side.fields;
  if (requiredOf(side.kind).some((k) => !present(f[k]))) return fail(alone ? 'E01' : 'E16');
  const id = f.id!.trim();
  if (!idFormatOk(side.kind, id)) return fail('E02');
  const dob = parseDate(f.dob);
  if (!dob) return fail('E03');
  if (compare(dob, now) > 0) return fail('E04');
  if (ageOn(dob, now) < 14) return fail('E05');
  // The 9-digit card prints no nationality (nor sex): only a printed one is checked.
  if (present(f.nationality) && fold(f.nationality).replace(/\s+/g, ' ').trim() !== 'viet nam') return fail('E06');
  if (id.length === 12) {
    if (idBirthYear(id) !== dob.year) return fail('E07');
    const sex = fold(f.sex ?? '').trim();
    const woman = sex === 'nu' ? true : sex === 'nam' ? false : undefined;
    if (woman === undefined || woman !== idSaysWoman(id)) return fail('E08');
  }
  if (present(f.doe)) {
    if (isUnlimited(f.doe)) {
      // Only a back (its issue date) can show the card was issued at 58 or later; a front alone must be of someone that old now.
      if (alone && ageOn(dob, now) < 58) return fail('E11');
    } else {
      const doe = parseDate(f.doe);
      if (!doe) return fail('E09');
      if (compare(doe, now) < 0) return fail('E10');
    }
  }
  return undefined;
}

/** The rules of one back side (E01, E12, E13, and the 2024 back's expiry: E09, E10). */
function checkBack(side: ReadSide, now: CalendarDate): PostCheckResult | undefined {
  if (requiredOf(side.kind).some((k) => !present(side.fields[k]))) return fail('E01');
  const doi = parseDate(side.fields.issue_date);
  if (!doi) return fail('E12');
  if (compare(doi, now) > 0) return fail('E13');
  const doeText = side.fields.doe;
  if (present(doeText) && !isUnlimited(doeText)) {
    const doe = parseDate(doeText);
    if (!doe) return fail('E09');
    if (compare(doe, now) < 0) return fail('E10');
  }
  return undefined;
}

/**
 * Both sides' rules (E17-E22) from the front's birth date and expiry and the
 * back's issue date: the identity cards (CMND) run 15 years from issue; the
 * citizen cards to the 25th, 40th or 60th birthday by the age at issue (a card
 * issued within two years of one of those runs to the next), no expiry from 58.
 */
function checkPair(front: ReadSide, back: ReadSide): PostCheckResult | undefined {
  const dob = parseDate(front.fields.dob)!;
  const doi = parseDate(back.fields.issue_date)!;
  const age = ageOn(dob, doi);
  if (age < 14) return fail('E17');
  const doeText = present(front.fields.doe) ? front.fields.doe : back.fields.doe;
  if (!present(doeText)) return undefined;
  if (front.kind.startsWith('cmnd')) {
    const doe = parseDate(doeText);
    if (!doe || !sameDay(doe, birthday(doi, 15))) return fail('E18');
    return undefined;
  }
  const doe = parseDate(doeText);
  if (age >= 58) return isUnlimited(doeText) ? undefined : fail('E22');
  const [milestone, code] = age < 23 ? [25, 'E19' as const] : age < 38 ? [40, 'E20' as const] : [60, 'E21' as const];
  if (!doe || !sameDay(doe, birthday(dob, milestone))) return fail(code);
  return undefined;
}

const isFront = (k: CardKind) => k.endsWith('_front');

/**
 * The post-check of one or two sides (front and back, either order); `now`
 * is today's date where the server runs.
 */
export function postCheck(sides: readonly ReadSide[], now: CalendarDate = today()): PostCheckResult {
  const front = sides.find((s) => isFront(s.kind));
  const back = sides.find((s) => !isFront(s.kind));
  if (sides.length === 2) {
    if (!front || !back || FAMILY[front.kind] !== FAMILY[back.kind]) return fail('E15');
  }
  if (front) {
    const r = checkFront(front, now, !back);
    if (r) return r;
  }
  if (back) {
    const r = checkBack(back, now);
    if (r) return r;
  }
  if (front && back) return checkPair(front, back) ?? PASSED;
  return PASSED;
}
