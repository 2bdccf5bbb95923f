/**
 * Stage: the machine-readable zone (ICAO 9303 TD1, three lines of 30) on the
 * back of the chip citizen card. Parsed and check-digit validated with `mrz`;
 * the fields it carries confirm and correct the OCR of the printed text.
 */
import { parse } from 'mrz';
import type { OcrEngine } from './ocr.js';
import { ageOn, birthday, parseDate, type CalendarDate } from '../post-check.js';

/** The characters an MRZ is written with. */
const MRZ_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<';

/** OCR lines of an MRZ band's image (Tesseract `eng`, the MRZ alphabet only, one block of lines). */
export async function mrzLines(ocr: OcrEngine, image: Buffer): Promise<string[]> {
  const words = await ocr.recognize(image, { lang: 'eng', psm: 6, whitelist: MRZ_ALPHABET });
  const lines = new Map<string, string[]>();
  for (const w of words) lines.set(w.line, [...(lines.get(w.line) ?? []), w.text]);
  return [...lines.values()].map((l) => l.join(''));
}

export interface MrzReading {
  /** The 12-digit citizen id (in the optional data of line 1). */
  id?: string;
  /** dd/mm/yyyy */
  dob?: string;
  doe?: string;
  sex?: 'NAM' | 'NỮ';
  /** Surname and given names, upper case without accents, as the MRZ writes them. */
  nameAscii?: string;
  /** Every check digit passed. */
  valid: boolean;
  /** The check digit of each part passed (the id: its last 9 digits are the document number). */
  idOk?: boolean;
  dobOk?: boolean;
  doeOk?: boolean;
  /** Check digits that passed, out of those present. */
  checksPassed: number;
  checksTotal: number;
  lines: string[];
}

const WEIGHTS = [7, 3, 1];

function charValue(c: string): number {
  if (c >= '0' && c <= '9') return c.charCodeAt(0) - 48;
  if (c >= 'A' && c <= 'Z') return c.charCodeAt(0) - 55;
  return 0;
}

/** ICAO 9303 check digit of a run of MRZ characters. */
export function checkDigit(text: string): string {
  let sum = 0;
  for (let i = 0; i < text.length; i++) sum += charValue(text[i]) * WEIGHTS[i % 3];
  return String(sum % 10);
}

/** YYMMDD to dd/mm/yyyy; birth dates in the future belong to the previous century. */
function mrzDate(value: string | null | undefined, kind: 'birth' | 'expiry'): string | undefined {
  if (!value || !/^\d{6}$/.test(value)) return undefined;
  const yy = Number(value.slice(0, 2));
  const now = new Date().getUTCFullYear() % 100;
  const century = kind === 'birth' ? (yy > now ? 1900 : 2000) : 2000;
  return `${value.slice(4, 6)}/${value.slice(2, 4)}/${century + yy}`;
}

/** One OCR line in the MRZ alphabet: upper case A-Z 0-9 and the filler '<' (which OCR reads as « ‹ ≤), no spaces. */
export function mrzCharacters(line: string): string {
  return line
    .toUpperCase()
    .replace(/[«‹≤]/g, '<')
    .replace(/\s+/g, '')
    .replace(/[^A-Z0-9<]/g, '');
}

/** Cleans raw OCR lines into candidate TD1 lines: only A-Z 0-9 <, padded or cut to 30. */
export function cleanMrzLines(raw: string[]): string[] {
  const lines = raw.map(mrzCharacters).filter((l) => l.length >= 20);
  return lines.slice(-3).map((l) => (l.length > 30 ? l.slice(0, 30) : l.padEnd(30, '<')));
}

/** Digits where OCR read letters in numeric positions. */
function digitsOnly(s: string): string {
  return s.replace(/O|Q|D/g, '0').replace(/[IL]/g, '1').replace(/Z/g, '2').replace(/S/g, '5').replace(/B/g, '8').replace(/G/g, '6');
}

/** Repairs the numeric positions of TD1 lines 1 and 2, where the letters are known not to be. */
function repairTd1(lines: string[]): string[] {
  const [l1, l2, l3] = lines;
  const fixed1 = l1.slice(0, 5) + digitsOnly(l1.slice(5, 15)) + digitsOnly(l1.slice(15, 27)) + l1.slice(27);
  const fixed2 = digitsOnly(l2.slice(0, 7)) + l2[7] + digitsOnly(l2.slice(8, 15)) + l2.slice(15, 18) + l2.slice(18, 29) + digitsOnly(l2[29]);
  return [fixed1, fixed2, l3];
}

/** Reads a TD1 MRZ from OCR text lines; undefined when there are no three plausible lines. */
export function readMrz(raw: string[]): MrzReading | undefined {
  const cleaned = cleanMrzLines(raw);
  if (cleaned.length !== 3 || !cleaned[0].startsWith('I')) return undefined;
  const lines = repairTd1(cleaned);
  let result: ReturnType<typeof parse>;
  try {
    result = parse(lines);
  } catch {
    return undefined;
  }
  const checks = result.details.filter((d) => /check digit/i.test(d.label));
  const passed = checks.filter((d) => d.valid).length;
  const f = result.fields;
  const optional = (f.optional1 ?? '').replace(/\s/g, '');
  const id = /^\d{12}/.exec(optional)?.[0];
  const nameAscii = [f.lastName, f.firstName].filter(Boolean).join(' ').trim() || undefined;
  const [r1, r2] = lines;
  const part = (text: string, digit: string) => /^\d+$/.test(text) && checkDigit(text) === digit;
  return {
    id,
    idOk: !!id && part(r1.slice(5, 14), r1[14]) && id.slice(3) === r1.slice(5, 14),
    dobOk: part(r2.slice(0, 6), r2[6]),
    doeOk: part(r2.slice(8, 14), r2[14]),
    dob: mrzDate(f.birthDate, 'birth'),
    doe: mrzDate(f.expirationDate, 'expiry'),
    sex: f.sex === 'male' ? 'NAM' : f.sex === 'female' ? 'NỮ' : undefined,
    nameAscii,
    valid: checks.length > 0 && passed === checks.length,
    checksPassed: passed,
    checksTotal: checks.length,
    lines,
  };
}

/** Writes the TD1 MRZ of a chip citizen card (the test-card generator uses it). */
export function writeMrz(card: { id: string; dob: string; doe: string; sex: 'NAM' | 'NỮ'; nameAscii: string }): string[] {
  const ymd = (d: string) => `${d.slice(8, 10)}${d.slice(3, 5)}${d.slice(0, 2)}`;
  const docNumber = card.id.slice(3);
  const optional1 = (card.id + '<<<').padEnd(15, '<').slice(0, 15);
  const line1 = `IDVNM${docNumber}${checkDigit(docNumber)}${optional1}`;
  const dob = ymd(card.dob);
  const doe = ymd(card.doe);
  const body2 = `${dob}${checkDigit(dob)}${card.sex === 'NAM' ? 'M' : 'F'}${doe}${checkDigit(doe)}VNM`;
  const optional2 = '<'.repeat(11);
  const composite = checkDigit(line1.slice(5, 30) + dob + checkDigit(dob) + doe + checkDigit(doe) + optional2);
  const line2 = `${body2}${optional2}${composite}`;
  const parts = card.nameAscii.split(' ');
  const line3 = `${parts[0]}<<${parts.slice(1).join('<')}`.padEnd(30, '<').slice(0, 30);
  return [line1, line2, line3];
}

/** The ages at which the 2021 chip card (and the 12-digit citizen card) runs out: its 25th, 40th and 60th birthdays. */
export const CHIP_CARD_MILESTONES = [25, 40, 60];
/** A card issued this many years before a milestone runs to the next one (the 2014 citizen-card law, article 21). */
const GRACE_YEARS = 2;
/** The youngest age a chip card is issued at. */
const FIRST_ISSUE_AGE = 14;

/**
 * Whether a card expiring on `doe` can have been issued on `issueDate` to a holder born on `dob`: the expiry is one
 * of the `milestones` birthdays, and the holder's age at issue lies between the milestone before it, less the
 * grace years, and that one (a misread year, a date of another field, an issue after the expiry fail it). The
 * grace is allowed both ways: it narrows the window less than an exact rule would, which a card printed under
 * another reading of the law would fail.
 */
export function issuedForExpiry(issueDate: string, dob: CalendarDate, doe: CalendarDate, milestones: readonly number[]): boolean {
  const issued = parseDate(issueDate);
  if (!issued) return false;
  const k = milestones.findIndex((m) => {
    const b = birthday(dob, m);
    return b.day === doe.day && b.month === doe.month && b.year === doe.year;
  });
  // An expiry on no milestone birthday (a card of another law): nothing to check the issue date against.
  if (k < 0) return true;
  const age = ageOn(dob, issued);
  const from = k === 0 ? FIRST_ISSUE_AGE : milestones[k - 1] - GRACE_YEARS;
  return age >= from && age < milestones[k];
}

/**
 * The expiry a chip card issued on `issueDate` to a holder born on `dob` carries (the 2014 citizen-card law,
 * article 21): its first `milestones` birthday the holder was more than the grace years short of on the day of
 * issue; undefined when the issue date is no date or comes after the last such age (the card is then valid for life).
 */
export function expiryByLaw(dob: CalendarDate, issueDate: string, milestones: readonly number[]): CalendarDate | undefined {
  const issued = parseDate(issueDate);
  if (!issued) return undefined;
  const age = ageOn(dob, issued);
  const m = milestones.find((years) => age < years - GRACE_YEARS);
  return m === undefined ? undefined : birthday(dob, m);
}

/** What the MRZ did to one field of the visual zone ('filled': the zone had none, the MRZ's is answered). */
export type MrzVerdict = 'confirmed' | 'corrected' | 'contradicted' | 'filled';

type MrzField = 'id' | 'dob' | 'doe' | 'sex';
type Checked = MrzField | 'name' | 'issue_date';

/**
 * Cross-checks the visual zone's fields against a TD1 MRZ: a value the MRZ
 * confirms (its part's check digit passing) is marked valid; one it
 * contradicts is replaced by the MRZ's when that part's check digit passes
 * (id, dates, sex), else marked invalid; the fields in `fill` that the visual
 * zone lacks are taken from it when their check digit passes. The name is
 * compared without accents (the MRZ has none) and is never replaced: a
 * contradiction marks it invalid. An issue date equal to the expiry the MRZ
 * vouches for is the expiry read under the wrong label: marked invalid; so is,
 * given the card's expiry `milestones`, one the MRZ's dates of birth and expiry
 * rule out (issuedForExpiry).
 */
export function crossCheckMrz(
  fields: Partial<Record<Checked, { value: string; conf: number; valid?: boolean; invalid?: boolean }>>,
  mrz: MrzReading,
  fill: readonly string[] = [],
  milestones?: readonly number[],
): Partial<Record<Checked, MrzVerdict>> {
  const out: Partial<Record<Checked, MrzVerdict>> = {};
  const parts: [MrzField, string | undefined, boolean][] = [
    ['id', mrz.id, !!mrz.idOk],
    ['dob', mrz.dob, !!mrz.dobOk],
    ['doe', mrz.doe, !!mrz.doeOk],
    // Sex has no check digit of its own: only a fully valid MRZ vouches for it.
    ['sex', mrz.sex, mrz.valid],
  ];
  for (const [f, value, ok] of parts) {
    const v = fields[f];
    if (!value || !ok) continue;
    if (!v) {
      if (fill.includes(f)) {
        fields[f] = { value, conf: 95, valid: true };
        out[f] = 'filled';
      }
    } else if (v.value === value) {
      fields[f] = { ...v, valid: true, invalid: false, conf: Math.max(v.conf, 97) };
      out[f] = 'confirmed';
    } else {
      fields[f] = { value, conf: 95, valid: true };
      out[f] = 'corrected';
    }
  }
  const issue = fields.issue_date;
  const dob = parseDate(mrz.dobOk ? mrz.dob : undefined);
  const doe = parseDate(mrz.doeOk ? mrz.doe : undefined);
  if (issue && ((doe && issue.value === mrz.doe) || (milestones && dob && doe && !issuedForExpiry(issue.value, dob, doe, milestones)))) {
    fields.issue_date = { ...issue, valid: false, invalid: true };
    out.issue_date = 'contradicted';
  }
  const name = fields.name;
  if (name && mrz.nameAscii && mrz.valid) {
    const ascii = (s: string) =>
      s
        .normalize('NFD')
        .replace(/[\u0300-\u036f]/g, '')
        .replace(/[đĐ]/g, 'D')
        .toUpperCase()
        .replace(/[^A-Z]/g, '');
    // The MRZ's name line holds 30 characters: a long name is cut there.
    const a = ascii(name.value);
    const b = ascii(mrz.nameAscii);
    if (a === b || (b.length >= 25 && a.startsWith(b))) {
      fields.name = { ...name, valid: true, conf: Math.max(name.conf, 90) };
      out.name = 'confirmed';
    } else {
      fields.name = { ...name, valid: false, invalid: true };
      out.name = 'contradicted';
    }
  }
  return out;
}
