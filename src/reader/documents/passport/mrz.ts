/**
 * A passport's TD3 MRZ read from the photo itself (pipeline/mrz-band.ts finds the two lines, whatever the
 * page's outline, size, skew or quarter turn), before the visual zone: it proves the photo is a passport
 * data page of any issuing state, says which way up the page is, and its check digits vouch for the number
 * and dates. Each candidate band is read both ways up; the reading with the most check digits passing wins.
 */
import sharp from 'sharp';
import { findMrzBands, type MrzBand } from '../../pipeline/mrz-band.js';
import { readTextLines } from '../../pipeline/recognise.js';
import type { OcrEngine } from '../../pipeline/ocr.js';
import { readTd3, type Td3Reading } from '../../pipeline/mrz-td3.js';
import { mrzCharacters, mrzLines } from '../../pipeline/mrz.js';
import { withFillers } from '../../pipeline/mrz-glyphs.js';

export interface PhotoMrz {
  reading: Td3Reading;
  /** Clockwise quarter turns (0-3) that make the page upright. */
  turns: number;
  /** Check digits passing (number, dob, doe, personal number, composite). */
  checks: number;
  /** Line 2 is the recognition network's (Tesseract's failed a check digit): line 1, the name, is no better than Tesseract's. */
  network?: boolean;
  /** Another band's fully valid reading of the same lines that differs from this one (which is then unvouched). */
  rival?: Td3Reading;
}

/**
 * The OCR lines with the filler put back where the crop's glyphs are chevrons (mrz-glyphs.ts), when the
 * MRZ-long lines read are as many as the glyph lines counted; otherwise as read.
 */
export function withChevrons(lines: string[], fillers: (boolean[] | undefined)[]): string[] {
  const long = lines.map(mrzCharacters).filter((l) => l.length >= 20);
  if (long.length !== fillers.length) return lines;
  return long.map((l, i) => (fillers[i] ? withFillers(l, fillers[i]!) : l));
}

/** How many of a reading's check digits pass. */
export function td3Checks(r: Td3Reading): number {
  return [r.numberOk, r.dobOk, r.doeOk, r.personalOk, r.compositeOk].filter(Boolean).length;
}

/**
 * The best TD3 reading among the photo's MRZ-like bands (gray, one byte a pixel), or undefined when no band
 * reads as a TD3 MRZ with at least one check digit passing (a photo without an MRZ, or one too blurred).
 */
export async function readPhotoMrz(ocr: OcrEngine, gray: Buffer, width: number, height: number): Promise<PhotoMrz | undefined> {
  const bands = await findMrzBands(gray, width, height, 2, 2);
  let best: PhotoMrz | undefined;
  for (const band of bands) {
    const angle = band.lines.reduce((s, l) => s + l.angle, 0) / band.lines.length;
    for (const [png, flip] of [
      [band.png, 0],
      [band.pngTurned, 180],
    ] as const) {
      const fillers = flip ? band.fillersTurned : band.fillers;
      let network = false;
      let reading = readTd3(withChevrons(await mrzLines(ocr, png), fillers));
      // Not every check digit passing: the recognition network reads the band too, and the reading with more wins.
      if (!reading?.valid) {
        const net = await netMrzReading(png, fillers);
        // Its line 2 (number and dates, under check digits) then; line 1 (the name, which no check digit covers) stays
        // Tesseract's, whose chevrons the glyph detector restores (the network's name lost a letter on the dev set).
        if (net && (!reading || td3Checks(net) > td3Checks(reading))) {
          reading = (reading && readTd3([reading.lines[0], net.lines[1]])) || net;
          network = true;
        }
      }
      if (!reading) continue;
      const checks = td3Checks(reading);
      if (checks === 0 || (best && best.checks >= checks)) continue;
      // The text runs at `angle + flip` degrees (clockwise, y down); turning the page back by that, to the nearest quarter.
      const turns = (((Math.round(-(angle + flip) / 90) % 4) + 4) % 4) as number;
      best = { reading, turns, checks, ...(network ? { network } : {}) };
      if (reading.valid) return confirmByAnotherBand(ocr, best, band, bands, flip);
    }
  }
  return best;
}

/** An MRZ line is most of its band's width (a speck or a stray mark is not). */
const MRZ_LINE_WIDTH = 0.5;

/** The band's TD3 reading by the recognition network (pipeline/recognise.ts), or undefined when it does not parse. */
async function netMrzReading(png: Buffer, fillers: (boolean[] | undefined)[]): Promise<Td3Reading | undefined> {
  try {
    const { data, info } = await sharp(png).greyscale().raw().toBuffer({ resolveWithObject: true });
    const lines = await readTextLines(data, info.width, info.height, MRZ_LINE_WIDTH);
    return readTd3(
      withChevrons(
        lines.map((l) => l.text),
        fillers,
      ),
    );
  } catch {
    // The network's model missing: Tesseract's reading stands.
    return undefined;
  }
}

/**
 * Two misread characters can cancel out in every check digit (G for 0 and O for 0 in one number, read
 * so in a real photo): a valid reading is compared with the reading of another band found over the same
 * lines, the same way up. Where both are valid and a part differs, neither vouches for it.
 */
async function confirmByAnotherBand(ocr: OcrEngine, best: PhotoMrz, band: MrzBand, bands: MrzBand[], flip: number): Promise<PhotoMrz> {
  const centre = (b: MrzBand) => ({ x: b.lines.reduce((s, l) => s + l.cx, 0) / b.lines.length, y: b.lines.reduce((s, l) => s + l.cy, 0) / b.lines.length });
  const c = centre(band);
  const twin = bands.find((b) => b !== band && Math.hypot(centre(b).x - c.x, centre(b).y - c.y) < 3 * band.lines[0].thickness);
  if (!twin) return best;
  const other = readTd3(withChevrons(await mrzLines(ocr, flip ? twin.pngTurned : twin.png), flip ? twin.fillersTurned : twin.fillers));
  if (!other?.valid) return best;
  const r = { ...best.reading };
  if (other.passportNumber !== r.passportNumber) r.numberOk = false;
  if (other.dob !== r.dob) r.dobOk = false;
  if (other.doe !== r.doe) r.doeOk = false;
  if (other.lines[1] !== r.lines[1]) r.compositeOk = r.valid = false;
  return { ...best, reading: r, checks: td3Checks(r), rival: other.lines[1] !== best.reading.lines[1] ? other : undefined };
}

/** A document number as printed in the visual zone: letters and digits, spaces dropped. */
const plain = (s: string) => s.toUpperCase().replace(/[^A-Z0-9]/g, '');

/**
 * The passport number settled by the visual zone's words when the MRZ could not vouch for it (its check
 * passing by chance, or two readings of the band disagreeing): a printed word equal to the MRZ's number,
 * or to a rival reading's, is two independent readings agreeing. Undefined when no word settles it.
 */
export function numberFromPage(mrz: Td3Reading, rival: Td3Reading | undefined, words: { text: string }[]): string | undefined {
  const printed = new Set(words.map((w) => plain(w.text)).filter((w) => w.length >= 6));
  const joined = words.map((w) => plain(w.text)).join('');
  const seen = (n: string | undefined) => !!n && n.length >= 6 && (printed.has(n) || joined.includes(n));
  const mine = seen(mrz.passportNumber);
  const theirs = seen(rival?.passportNumber);
  if (mine && !theirs) return mrz.passportNumber;
  if (theirs && !mine) return rival!.passportNumber;
  return undefined;
}
