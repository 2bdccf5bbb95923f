/**
 * Stage: the machine-readable zone of a passport data page (ICAO 9303 TD3, two
 * lines of 44). Kept apart from the chip card's TD1 (mrz.ts), whose check
 * digit it reuses. OCR's usual confusions (O/0, I/1, S/5, B/8, ...) are
 * corrected only where a check digit proves the correction: a part whose check
 * fails is tried with each single confusable substitution, and a fix is taken
 * only when exactly one makes the check pass (and the composite still passes
 * or is unknown). The final lines are parsed and validated by the `mrz` package.
 */
import { parse } from 'mrz';
import { levenshtein } from './text.js';
import { checkDigit, mrzCharacters } from './mrz.js';

export interface Td3Reading {
  /** The passport number without filler, e.g. C1234567. */
  passportNumber?: string;
  /** Issuing state and nationality (three letters). */
  issuer?: string;
  nationality?: string;
  /** dd/mm/yyyy */
  dob?: string;
  doe?: string;
  sex?: 'NAM' | 'NỮ';
  /** Surname and given names, upper case without accents, as the MRZ writes them. */
  nameAscii?: string;
  /** The name field is full to its last position: its last word may be cut short. */
  nameTruncated: boolean;
  /** The personal number (Vietnamese passports: the 12-digit citizen id), when present. */
  personalNumber?: string;
  numberOk: boolean;
  dobOk: boolean;
  doeOk: boolean;
  personalOk: boolean;
  compositeOk: boolean;
  /** Every check digit passed and both dates are dates. */
  valid: boolean;
  /** Positions changed because a check digit proved the change (line 2 indices). */
  corrections: { index: number; from: string; to: string }[];
  lines: [string, string];
}

const LETTER_FOR: Record<string, string[]> = { '0': ['O', 'D', 'Q'], '1': ['I', 'L'], '2': ['Z'], '5': ['S'], '6': ['G'], '8': ['B'], K: ['<'], C: ['<'] };
const DIGIT_FOR: Record<string, string> = { O: '0', D: '0', Q: '0', U: '0', I: '1', L: '1', T: '7', Z: '2', S: '5', G: '6', B: '8', A: '4' };
/** Digits OCR mistakes for one another (each is tried only where a check digit fails). */
const DIGIT_CONFUSIONS: Record<string, string[]> = {
  '0': ['8', '6', '9'],
  '1': ['7', '4'],
  '2': ['7'],
  '3': ['8', '9', '5'],
  '4': ['1'],
  '5': ['6', '3', '8'],
  '6': ['5', '8', '0'],
  '7': ['1', '2'],
  '8': ['3', '6', '0', '9'],
  '9': ['8', '0', '3'],
};

/** Cleans raw OCR lines into the two candidate TD3 lines: A-Z 0-9 <, padded or cut to 44. */
export function cleanTd3Lines(raw: string[]): [string, string] | undefined {
  const lines = td3LinesAsRead(raw);
  return lines && [fit(lines[0]), fit(lines[1])];
}

const fit = (l: string) => (l.length > 44 ? l.slice(0, 44) : l.padEnd(44, '<'));

/** The two TD3 lines as read (A-Z 0-9 <), before they are padded or cut to 44. */
function td3LinesAsRead(raw: string[]): [string, string] | undefined {
  const lines = raw
    .map(mrzCharacters)
    // Line 1 of a short name is mostly filler, which OCR may drop: its P<VNM start is enough.
    .filter((l) => l.length >= 30 || /^P[A-Z<][A-Z]{3}[A-Z<]{5,}$/.test(l));
  if (lines.length < 2) return undefined;
  // Line 1 starts with P (document code); line 2 is the one after it.
  let i = lines.findIndex((l, k) => k < lines.length - 1 && /^P[A-Z<]/.test(l));
  if (i < 0) i = lines.length - 2;
  return [lines[i], lines[i + 1]];
}

const isDigits = (s: string) => /^\d+$/.test(s);
const digitsOf = (s: string) => s.replace(/[A-Z]/g, (c) => DIGIT_FOR[c] ?? c);

/**
 * One part of line 2 and its check digit: positions known to be digits are
 * made digits; when the check fails, single confusable substitutions are tried
 * and one is kept only when it is the only one that passes.
 */
function fixPart(line: string, start: number, end: number, numeric: boolean, fixes: Td3Reading['corrections']): { line: string; ok: boolean } {
  let part = line.slice(start, end);
  if (numeric) part = digitsOf(part);
  const check = digitsOf(line[end]);
  const passes = (p: string, c: string) => /^\d$/.test(c) && checkDigit(p) === c && (!numeric || isDigits(p));
  const put = (p: string, c: string) => line.slice(0, start) + p + c + line.slice(end + 1);
  if (passes(part, check)) return { line: put(part, check), ok: true };
  const candidates: { p: string; c: string; index: number; from: string; to: string }[] = [];
  for (let i = 0; i < part.length; i++) {
    const ch = part[i];
    const alts = numeric ? (DIGIT_CONFUSIONS[ch] ?? []) : [...(LETTER_FOR[ch] ?? []), ...(DIGIT_FOR[ch] ? [DIGIT_FOR[ch]] : [])];
    for (const alt of alts) {
      const p = part.slice(0, i) + alt + part.slice(i + 1);
      if (passes(p, check)) candidates.push({ p, c: check, index: start + i, from: ch, to: alt });
    }
  }
  // The check digit itself misread (its part reads as a plausible value).
  for (const alt of DIGIT_CONFUSIONS[check] ?? []) if (passes(part, alt)) candidates.push({ p: part, c: alt, index: end, from: check, to: alt });
  if (candidates.length === 1) {
    const c = candidates[0];
    fixes.push({ index: c.index, from: c.from, to: c.to });
    return { line: put(c.p, c.c), ok: true };
  }
  return { line: put(part, check), ok: false };
}

/**
 * A document number OCR read with several digits as letters (0 as O or D, the usual slips): numbers are
 * mostly a short letter prefix and digits, so the number with every confusable letter after a prefix of
 * one to three letters made a digit is taken when exactly one such reading passes the check digit. Its
 * check digit is mod 10 (one wrong reading in ten passes), and the composite's weights fall on the number
 * as its own do: the number stays unvouched (numberOk false), its value only is mended.
 */
function digitNumber(l2: string): string {
  const part = l2.slice(0, 9);
  const check = l2[9];
  if (!/^\d$/.test(check)) return l2;
  const passing = new Set<string>();
  for (const prefix of [1, 2, 3]) {
    const tail = part.slice(prefix).replace(/<+$/, '');
    const digits = tail.replace(/[A-Z]/g, (c) => DIGIT_FOR[c] ?? c);
    if (digits === tail || !/^\d+$/.test(digits)) continue;
    const p = (part.slice(0, prefix) + digits).padEnd(9, '<');
    if (checkDigit(p) === check) passing.add(p);
  }
  return passing.size === 1 ? [...passing][0] + l2.slice(9) : l2;
}

/** YYMMDD to dd/mm/yyyy; birth dates in the future belong to the previous century. */
function td3Date(v: string, kind: 'birth' | 'expiry'): string | undefined {
  if (!/^\d{6}$/.test(v)) return undefined;
  const yy = Number(v.slice(0, 2));
  const mm = Number(v.slice(2, 4));
  const dd = Number(v.slice(4, 6));
  if (mm < 1 || mm > 12 || dd < 1 || dd > 31) return undefined;
  const now = new Date().getUTCFullYear() % 100;
  const century = kind === 'birth' ? (yy > now ? 1900 : 2000) : 2000;
  return `${v.slice(4, 6)}/${v.slice(2, 4)}/${century + yy}`;
}

/**
 * Line 1's name field: filler read as letters is filler. A run starts after a '<': the last letter of a
 * name ending in C (NGOC, PHUC, DUC) is a letter, not filler.
 */
export function fixLine1(l1: string): string {
  const head = 'P' + l1[1] + l1.slice(2, 5).replace(/[0-9]/g, (d) => LETTER_FOR[d]?.[0] ?? d);
  const name = l1
    .slice(5)
    .replace(/[0-9]/g, (d) => LETTER_FOR[d]?.[0] ?? '<')
    // OCR reads the filler's chevron as K or C (and in long runs as E, R, S, G): a lone K or C between two
    // fillers is one, and so is a run of those letters to the end of the line holding two fillers or more.
    .replace(/(?<=<)[KC](?=<)/g, '<')
    .replace(/(?<=<)[KCERSGQ<]{3,}$/, (run) => ((run.match(/</g) ?? []).length >= 2 || /^[KC<]+$/.test(run) ? '<'.repeat(run.length) : run));
  return (head + name).slice(0, 44);
}

/**
 * Reads a TD3 MRZ from OCR text lines; undefined when there are no two plausible lines.
 * When line 2 does not pass every check digit as read, OCR may have added a character (a 0 read as
 * "OQ") or dropped one, shifting everything after it: a line read longer than 44 has each single
 * deletion tried, one read shorter each insertion of a digit or filler inside it; a shifted line is
 * kept only when it passes every check digit, composite included, and it is the only one of those
 * nearest to what was read.
 */
export function readTd3(raw: string[]): Td3Reading | undefined {
  const lines = td3LinesAsRead(raw);
  if (!lines) return undefined;
  const [l1, l2] = lines;
  const first = readTd3Lines(fit(l1), fit(l2));
  if (first.valid) return first;
  const tried = new Set<string>([fit(l2)]);
  const passing = new Map<string, Td3Reading>();
  const attempt = (line: string, shift: Td3Reading['corrections'][number]) => {
    const fitted = fit(line);
    if (tried.has(fitted)) return;
    tried.add(fitted);
    const r = readTd3Lines(fit(l1), fitted);
    // A Vietnamese passport number is a letter and seven digits (check digits alone let shifted digits through).
    if (r.valid && (r.issuer !== 'VNM' || /^[A-Z]\d{7}$/.test(r.passportNumber ?? ''))) passing.set(r.lines[1], { ...r, corrections: [shift, ...r.corrections] });
  };
  // A character added: the line reads long. A character lost: it reads short, and one is put back
  // inside it (never at its end: a composite check digit made up there would vouch for nothing).
  if (l2.length > 44) for (let p = 0; p < 43; p++) attempt(l2.slice(0, p) + l2.slice(p + 1), { index: p, from: l2[p], to: '' });
  if (l2.length < 44) for (let p = 0; p < l2.length; p++) for (const c of '0123456789<') attempt(l2.slice(0, p) + c + l2.slice(p), { index: p, from: '', to: c });
  // Mod-10 check digits let several shifted lines pass: the one nearest to what was read, when only one is.
  const ranked = [...passing.values()].map((r) => ({ r, d: levenshtein(l2, r.lines[1]) })).sort((a, b) => a.d - b.d);
  return ranked.length > 0 && (ranked.length === 1 || ranked[0].d < ranked[1].d) ? ranked[0].r : first;
}

/** Reads two TD3 lines of 44: digits where digits must be, check-digit-proven corrections, the fields. */
function readTd3Lines(line1: string, line2: string): Td3Reading {
  const l1 = fixLine1(line1);
  let l2 = line2;
  const corrections: Td3Reading['corrections'] = [];
  // Nationality: letters.
  l2 = l2.slice(0, 10) + l2.slice(10, 13).replace(/[0-9]/g, (d) => LETTER_FOR[d]?.[0] ?? d) + l2.slice(13);
  // Sex: M, F or <.
  if (!/[MF<]/.test(l2[20])) l2 = l2.slice(0, 20) + (l2[20] === 'H' || l2[20] === 'N' ? 'M' : l2[20] === 'E' || l2[20] === 'P' ? 'F' : '<') + l2.slice(21);
  // A Vietnamese passport number is a letter and seven digits: G and 6 (or Q and 6) weigh the same
  // modulo 10, so no check digit can tell them apart; the issuer's format does.
  if (l1.slice(2, 5) === 'VNM' && /^[A-Z0-9][A-Z0-9]{7}<$/.test(l2.slice(0, 9))) {
    const head = l2[0].replace(/[0-9]/g, (d) => LETTER_FOR[d]?.[0] ?? d);
    l2 = head + digitsOf(l2.slice(1, 8)) + l2.slice(8);
  }
  const asRead = l2;
  const num = fixPart(l2, 0, 9, false, corrections);
  l2 = num.line;
  if (!num.ok) l2 = digitNumber(l2);
  const dob = fixPart(l2, 13, 19, true, corrections);
  l2 = dob.line;
  const doe = fixPart(l2, 21, 27, true, corrections);
  l2 = doe.line;
  // Personal number: '<' filler or digits; its check digit may be '<' when it is empty.
  const personalRaw = l2.slice(28, 42);
  let personalOk = false;
  if (/^<+$/.test(personalRaw)) personalOk = l2[42] === '<' || l2[42] === '0';
  else if (l1.slice(2, 5) !== 'VNM') {
    // Another state's optional data: letters, digits and filler as its issuer chooses; fixed only where its check digit proves it.
    const p = fixPart(l2, 28, 42, false, corrections);
    l2 = p.line;
    personalOk = p.ok;
  } else {
    const digits = personalRaw.replace(/<+$/, '');
    const filled = digitsOf(digits).padEnd(14, '<');
    l2 = l2.slice(0, 28) + filled + l2.slice(42);
    // The personal number's check digit covers the whole 14-character field, filler included.
    personalOk = /^\d$/.test(digitsOf(l2[42])) && checkDigit(l2.slice(28, 42)) === digitsOf(l2[42]);
    if (personalOk) l2 = l2.slice(0, 42) + digitsOf(l2[42]) + l2.slice(43);
  }
  l2 = l2.slice(0, 43) + digitsOf(l2[43]);
  const composite = () => checkDigit(l2.slice(0, 10) + l2.slice(13, 20) + l2.slice(21, 43)) === l2[43];
  // A check digit read as no digit at all ('<', a stray letter) under a part that reads well: its
  // computed value is taken only when the composite check digit, read as a digit, then passes.
  for (const part of [num, dob, doe]) {
    const [start, end] = part === num ? [0, 9] : part === dob ? [13, 19] : [21, 27];
    if (part.ok || /^\d$/.test(l2[end]) || !isDigits(l2.slice(start + (part === num ? 1 : 0), end).replace(/<+$/, '')) || !/^\d$/.test(l2[43])) continue;
    const before = l2;
    l2 = l2.slice(0, end) + checkDigit(l2.slice(start, end)) + l2.slice(end + 1);
    if (composite()) {
      part.ok = true;
      corrections.push({ index: end, from: before[end], to: l2[end] });
    } else l2 = before;
  }
  // A part mended by a substitution is vouched for only when the composite check digit then passes too:
  // a misread check digit "mended" to fit a misread part (907... with its check made 4) passes its own check.
  if (/^\d$/.test(l2[43]) && !composite()) {
    for (const [part, start, end] of [
      [num, 0, 9],
      [dob, 13, 19],
      [doe, 21, 27],
    ] as const)
      if (part.ok && corrections.some((c) => c.index >= start && c.index <= end)) {
        // Unvouched, and back as read (a check digit "mended" would hide the part's own reading).
        part.ok = false;
        const back = part === num ? asRead.slice(start, end + 1) : digitsOf(asRead.slice(start, end)) + asRead[end];
        l2 = l2.slice(0, start) + back + l2.slice(end + 1);
        for (let i = corrections.length - 1; i >= 0; i--) if (corrections[i].index >= start && corrections[i].index <= end) corrections.splice(i, 1);
        if (part === num) l2 = digitNumber(l2);
      }
  }
  let result: ReturnType<typeof parse> | undefined;
  try {
    result = parse([l1, l2]);
  } catch {
    result = undefined;
  }
  const f = result?.fields;
  const surname = (f?.lastName ?? '').trim();
  const given = (f?.firstName ?? '').trim();
  const nameAscii = [surname, given].filter(Boolean).join(' ') || undefined;
  const personal = l2.slice(28, 42).replace(/<+$/, '');
  return {
    passportNumber: l2.slice(0, 9).replace(/<+$/, '') || undefined,
    issuer: l1.slice(2, 5).replace(/</g, '') || undefined,
    nationality: l2.slice(10, 13).replace(/</g, '') || undefined,
    dob: td3Date(l2.slice(13, 19), 'birth'),
    doe: td3Date(l2.slice(21, 27), 'expiry'),
    sex: l2[20] === 'M' ? 'NAM' : l2[20] === 'F' ? 'NỮ' : undefined,
    nameAscii,
    nameTruncated: l1[43] !== '<',
    personalNumber: /^\d+$/.test(personal) ? personal : undefined,
    numberOk: num.ok,
    dobOk: dob.ok,
    doeOk: doe.ok,
    personalOk,
    compositeOk: composite(),
    // Every check digit passing and real dates (the `mrz` package also refuses states it does not list, ICAO's UTO among them).
    valid: !!result && num.ok && dob.ok && doe.ok && personalOk && composite() && !!td3Date(l2.slice(13, 19), 'birth') && !!td3Date(l2.slice(21, 27), 'expiry'),
    corrections,
    lines: [l1, l2],
  };
}

/** Writes a Vietnamese passport's TD3 MRZ (the test-page generator uses it). */
export function writeTd3(p: { passportNumber: string; nameAscii: string; dob: string; doe: string; sex: 'NAM' | 'NỮ'; idNumber?: string }): [string, string] {
  const ymd = (d: string) => `${d.slice(8, 10)}${d.slice(3, 5)}${d.slice(0, 2)}`;
  const words = p.nameAscii.split(' ');
  const line1 = `P<VNM${words[0]}<<${words.slice(1).join('<')}`.padEnd(44, '<').slice(0, 44);
  const number = p.passportNumber.padEnd(9, '<');
  const dob = ymd(p.dob);
  const doe = ymd(p.doe);
  const personal = (p.idNumber ?? '').padEnd(14, '<');
  const personalCheck = p.idNumber ? checkDigit(personal) : '<';
  const body = `${number}${checkDigit(number)}VNM${dob}${checkDigit(dob)}${p.sex === 'NAM' ? 'M' : 'F'}${doe}${checkDigit(doe)}${personal}${personalCheck}`;
  const composite = checkDigit(body.slice(0, 10) + body.slice(13, 20) + body.slice(21, 43));
  return [line1, body + composite];
}
