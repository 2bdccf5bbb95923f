/**
 * Stage: the machine-readable zone (ICAO 9303 TD1, three lines of 30) on the
 * back of the chip citizen card. Parsed and check-digit validated with `mrz`;
 * the fields it carries confirm and correct the OCR of the printed text.
 */
import { parse } from 'mrz';

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

/** Cleans raw OCR lines into candidate TD1 lines: only A-Z 0-9 <, padded or cut to 30. */
export function cleanMrzLines(raw: string[]): string[] {
  const lines = raw
    .map((l) =>
      l
        .toUpperCase()
        .replace(/[«‹≤]/g, '<')
        .replace(/\s+/g, '')
        .replace(/[^A-Z0-9<]/g, ''),
    )
    .filter((l) => l.length >= 20);
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
  return {
    id,
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
