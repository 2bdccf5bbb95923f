/**
 * The fraud check's `checking_result` (the original guide's pre-check), built
 * only from what Saola measures: the photocopy and recapture checks from the
 * image (fraud-measures.ts), the MRZ check from the reader's MRZ reading, the
 * headline and title checks from the words the reader's OCR read on a front,
 * the QR check from the chip front's code (pipeline/chip-qr.ts),
 * the low-score list from the fields' probabilities. Checks nothing here measures
 * (edited, corner cut, emblem, fingerprint, stamp, a QR code not read,
 * chip, covering, embossed stamp, border) answer "N/A", as the guide does for
 * checks that do not apply: never a made-up probability. docs/reader.md.
 */
import type { FraudMeasures } from './fraud-measures.js';
import { LAYOUTS, type IdCardField } from './layouts.js';
import type { ReadCard } from './pipeline/run.js';

const NA = 'N/A';

/** Colour spread (fraud-measures.ts) at which check_photocopied_prob is 0.5: measured between grey copies and real photos (docs/reader.md). */
export const PHOTOCOPY_SPREAD = 12;
/** Moiré (log10 peak over median) at which recaptured_prob is 0.5: measured between screen photos and real photos. */
export const RECAPTURE_MOIRE = 2.0;
/** Fields read with a probability under this are listed in low_score_result (the reader's own "unsure"). */
export const LOW_SCORE = 80;

const fmt = (x: number) => (Math.round(Math.min(1, Math.max(0, x)) * 100) / 100).toFixed(2);

export interface BinaryCheck {
  result: '0' | '1';
  prob: string;
}

/**
 * The two image checks as the guide states them: "1" when the score passes
 * 0.5 (photocopy: at 0.5 too). The scores are monotone maps of the measures,
 * 0.5 at the measured thresholds above, not probabilities.
 */
export function checkingMeasures(m: FraudMeasures): { photocopied: BinaryCheck; recaptured: BinaryCheck } {
  const photocopied = PHOTOCOPY_SPREAD / (PHOTOCOPY_SPREAD + Math.max(0, m.colourSpread));
  const moire = Math.max(0, m.moire);
  const recaptured = moire / (moire + RECAPTURE_MOIRE);
  return {
    photocopied: { result: photocopied >= 0.5 ? '1' : '0', prob: fmt(photocopied) },
    recaptured: { result: recaptured > 0.5 ? '1' : '0', prob: fmt(recaptured) },
  };
}

/** The guide's `checking_result` for one side read. */
export function checkingResult(card: ReadCard, m: FraudMeasures): Record<string, unknown> {
  const layout = LAYOUTS[card.kind];
  const { photocopied, recaptured } = checkingMeasures(m);
  const chipBack = card.kind === 'cccd_chip_back' || card.kind === 'cccd_2024_back';
  // The MRZ is read on the chip backs (pipeline/mrz.ts): passed when its check digits pass.
  const mrz = chipBack ? { result: card.mrz?.valid ? 'passed' : 'failed', prob: card.mrz?.valid ? '1.00' : '0.00' } : { result: NA, prob: NA };
  // Fronts: the headline's two lines and the title's lines as the whole card's OCR read them (1 read, 0 not).
  const printed = card.printed;
  const share = (xs: boolean[]) => xs.filter(Boolean).length / xs.length;
  const headline = printed ? share(printed.headline) : undefined;
  const titleLines = printed ? printed.title.filter((x): x is boolean => x !== undefined) : [];
  // The guide's thresholds: 0.7, or 0.1 on a chip card.
  const pass = card.kind === 'cccd_chip_front' ? 0.1 : 0.7;
  // The chip front's QR code, when read: passed when no printed value read with confidence contradicts it.
  const qr = card.qr ? (card.qr.disagree.length === 0 ? { result: 'passed', prob: '1.00' } : { result: 'failed', prob: '0.00' }) : { result: NA, prob: NA };
  const low = layout.fields.filter((f: IdCardField) => {
    const v = card.fields[f];
    return v !== undefined && v.prob < LOW_SCORE;
  });
  return {
    recaptured_result: recaptured.result,
    recaptured_prob: recaptured.prob,
    edited_result: NA,
    edited_prob: NA,
    corner_cut_result: NA,
    corner_cut_prob: [],
    check_photocopied_result: photocopied.result,
    check_photocopied_prob: photocopied.prob,
    check_emblem_result: NA,
    check_emblem_prob: NA,
    check_headline_result: headline === undefined ? NA : headline >= pass ? 'passed' : 'failed',
    check_headline_prob: headline === undefined ? NA : fmt(headline),
    check_title_result: printed ? (titleLines.every(Boolean) || (pass < 0.7 && titleLines.some(Boolean)) ? 'passed' : 'failed') : NA,
    check_title_prob: titleLines.map((x) => (x ? '1.00' : '0.00')),
    check_fingerprint_result: NA,
    check_fingerprint_prob: [],
    check_stamp_result: NA,
    check_stamp_prob: [],
    check_QRcode_result: qr.result,
    check_QRcode_prob: qr.prob,
    check_chip_result: NA,
    check_chip_prob: NA,
    check_mrz_result: mrz.result,
    check_mrz_prob: mrz.prob,
    check_covering_result: NA,
    check_covering_prob: NA,
    check_embossed_stamp_result: NA,
    check_embossed_stamp_prob: NA,
    check_border_result: NA,
    check_border_prob: NA,
    low_score_result: low,
  };
}

/**
 * A card's two sides sent together: a chip front's QR code against the back's MRZ. The MRZ's check digits
 * prove its number's last 9 digits and the code is exact, so a number they do not share is a fraud signal:
 * the front's `check_QRcode` fails. `checks` are each side's `checking_result`, in the order of `cards`.
 */
export function checkQrAgainstBack(cards: readonly ReadCard[], checks: Record<string, unknown>[]): void {
  const f = cards.findIndex((c) => c.kind === 'cccd_chip_front' && c.qr);
  const back = cards.find((c) => c.kind === 'cccd_chip_back');
  const qr = f >= 0 ? cards[f].qr : undefined;
  if (!qr || !back?.mrz?.valid || !back.mrz.id) return;
  if (qr.text.split('|')[0].endsWith(back.mrz.id.slice(-9))) return;
  checks[f].check_QRcode_result = 'failed';
  checks[f].check_QRcode_prob = '0.00';
}
