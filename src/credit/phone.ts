import { parsePhoneNumberFromString } from 'libphonenumber-js/max';

/** Why a written number is not accepted as a Vietnamese mobile number. */
export type PhoneRejection = 'empty' | 'malformed' | 'not_vietnamese' | 'not_mobile' | 'invalid';

export type PhoneResult = { ok: true; phone: string } | { ok: false; reason: PhoneRejection; message: string };

const MAX_LENGTH = 40;
/** Digits and the separators people write: spaces, dots, dashes, slashes, brackets, a leading +. */
const WRITTEN_FORM = /^\(?\+?[\d\s.\-()/]+$/;

/**
 * Eleven-digit mobile numbers (01xx...) were renumbered to ten digits in 2018;
 * old customer files still hold them, and the mapping is one to one.
 */
const LEGACY_PREFIXES: Record<string, string> = {
  '0162': '032',
  '0163': '033',
  '0164': '034',
  '0165': '035',
  '0166': '036',
  '0167': '037',
  '0168': '038',
  '0169': '039',
  '0120': '070',
  '0121': '079',
  '0122': '077',
  '0126': '076',
  '0128': '078',
  '0123': '083',
  '0124': '084',
  '0125': '085',
  '0127': '081',
  '0129': '082',
  '0186': '056',
  '0188': '058',
  '0199': '059',
};

/** Rewrites a legacy 11-digit mobile number (national or 84-prefixed) to today's national form. */
function modernise(digits: string): string {
  let national: string | undefined;
  if (digits.startsWith('0084') && digits.length === 14 && digits[4] === '1') national = '0' + digits.slice(4);
  else if (digits.startsWith('84') && digits.length === 12 && digits[2] === '1') national = '0' + digits.slice(2);
  else if (digits.startsWith('0') && digits.length === 11 && digits[1] === '1') national = digits;
  if (!national) return digits;
  const modern = LEGACY_PREFIXES[national.slice(0, 4)];
  return modern ? modern + national.slice(4) : digits;
}

/**
 * Normalises a Vietnamese mobile number written in any common form (+84, 84,
 * 0084, 0-prefixed, spaces, dots, dashes, brackets) to `84xxxxxxxxx`.
 */
export function normaliseVietnamMobile(input: unknown): PhoneResult {
  if (typeof input !== 'string' || input.trim() === '') return { ok: false, reason: 'empty', message: 'phone is required' };
  const written = input.trim();
  if (written.length > MAX_LENGTH || !WRITTEN_FORM.test(written)) {
    return { ok: false, reason: 'malformed', message: `phone "${written.slice(0, MAX_LENGTH)}" may hold only digits, spaces, dots, dashes, brackets and a leading +` };
  }
  const plus = /^\(?\+/.test(written);
  const digits = written.replace(/\D/g, '');
  if (digits.length < 8 || digits.length > 15) {
    return { ok: false, reason: 'invalid', message: `phone "${written}" is not a Vietnamese mobile number (wrong number of digits)` };
  }
  const modern = modernise(digits);
  // A modernised legacy number is in national form (0...), which needs no +.
  const parsed = parsePhoneNumberFromString(plus && modern === digits ? `+${modern}` : modern, 'VN');
  if (!parsed || !parsed.isValid()) {
    return { ok: false, reason: 'invalid', message: `phone "${written}" is not a valid Vietnamese mobile number` };
  }
  if (parsed.country !== 'VN') {
    return { ok: false, reason: 'not_vietnamese', message: `phone "${written}" is not a Vietnamese number (country ${parsed.country ?? parsed.countryCallingCode})` };
  }
  if (parsed.getType() !== 'MOBILE') {
    return { ok: false, reason: 'not_mobile', message: `phone "${written}" is a Vietnamese number but not a mobile one` };
  }
  return { ok: true, phone: parsed.number.slice(1) };
}
