/**
 * What the chip citizen card's QR code says (docs/api-contract.md#chip-qr-code): `|`-separated 12-digit id, old
 * 9-digit id (may be empty), full name, date of birth ddmmyyyy, sex, address, issue date ddmmyyyy. The code is
 * exact where OCR guesses, so its values replace the printed readings, and a printed value read with confidence
 * that says otherwise is a disagreement the fraud check reports.
 */
import type { CardLayout, IdCardField } from '../layouts.js';
import { normaliseFields, type FieldValue, type NormalisedCard, type RawField } from './fields.js';
import { fold } from './text.js';

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
 * wording ("Số Nhà 18 Đường ..." for a printed "18 ...", another hamlet word), not as printed (dev set: 7 of 16
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
