/**
 * The whole ID card pipeline for one image, as a worker thread runs it:
 * decode -> quality -> locate (and refine the outline) -> warp -> classify -> OCR -> fields -> confidence.
 */
import sharp from 'sharp';
import { CARD_HEIGHT, CARD_WIDTH, LAYOUTS, type CardKind, type IdCardField } from '../layouts.js';
import { classifyHeader, HEADER_BAND } from './classify.js';
import { fieldProbability, overallScore } from './confidence.js';
import { alignBands, stackBands } from './crops.js';
import { decodeImage } from './decode.js';
import { ReaderFailure } from './failure.js';
import { labelWidth, normaliseFields, readingScore, readRawFields, weakFields, wordsByBand } from './fields.js';
import { checkCornersInside, locateCard } from './locate.js';
import { readMrz, type MrzReading } from './mrz.js';
import { refineCorners } from './refine.js';
import type { Point } from '../../platform/vision/card-outline.js';
import type { OcrEngine } from './ocr.js';
import { checkQuality } from './quality.js';
import { clearCardEdge, rotate180, warpCard } from './warp.js';

export interface ReadTask {
  image: Uint8Array;
  face: boolean;
  maxPixels: number;
  minCardArea: number;
  /** Enlargement of the field bands before OCR (default DEFAULT_FIELD_SCALE). */
  fieldScale?: number;
  /** Read the distinguishing features of a back (default true; false for applications without the arrangement: the band is not even read). */
  features?: boolean;
}

export interface ReadCard {
  ok: true;
  kind: CardKind;
  fields: Partial<Record<IdCardField, { value: string; prob: number }>>;
  addressEntities?: { province: string; district: string; ward: string; street: string };
  overall: number;
  mrz?: Pick<MrzReading, 'id' | 'dob' | 'doe' | 'sex' | 'valid'>;
  /** JPEG of the portrait, when asked for and the side has one. */
  face?: Uint8Array;
  /** The card's corners in the image as used for the warp (after refinement), before any 180-degree turn. */
  corners: Point[];
  timings: Record<string, number>;
}

export interface ReadRefusal {
  ok: false;
  code: 2 | 3 | 7 | 8;
  message: string;
}

export type ReadResult = ReadCard | ReadRefusal;

const HEADER_SCALE = 0.7;
/** Field bands are enlarged before OCR by default: Tesseract reads accents better with taller letters. */
export const DEFAULT_FIELD_SCALE = 1.4;
/** The second reading of weak fields: enlarged more; dates in a window this many band heights taller each way. */
const RETRY_SCALE = 1.8;
const RETRY_REACH = 0.7;
/** In that taller window only a date printed as one counts. */
const STRICT_DATE = /\b\d{2}\s?[/.-]\s?\d{2}\s?[/.-]\s?\d{4}\b/;

async function classify(ocr: OcrEngine, gray: Buffer, psm = 6): Promise<CardKind | undefined> {
  // Flattened like the fields: unflattened, 2 of 240 backs were not recognised (code 3) on the
  // held-out set against none, for roughly 0.05 s more CPU per card (noisy measurements).
  const stack = await stackBands(gray, [HEADER_BAND], HEADER_SCALE);
  const words = await ocr.recognize(stack.png, { lang: 'vie', psm });
  return classifyHeader(words, HEADER_SCALE);
}

async function readMrzBand(ocr: OcrEngine, gray: Buffer): Promise<MrzReading | undefined> {
  const band = LAYOUTS.cccd_chip_back.mrz!;
  const stack = await stackBands(gray, [band]);
  const words = await ocr.recognize(stack.png, { lang: 'eng', psm: 6, whitelist: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<' });
  const lines = new Map<string, string[]>();
  for (const w of words) lines.set(w.line, [...(lines.get(w.line) ?? []), w.text]);
  return readMrz([...lines.values()].map((l) => l.join('')));
}

export async function readCard(task: ReadTask, ocr: OcrEngine): Promise<ReadResult> {
  const timings: Record<string, number> = {};
  let t = performance.now();
  const lap = (name: string) => {
    const now = performance.now();
    timings[name] = Math.round(now - t);
    t = now;
  };
  try {
    const image = await decodeImage(Buffer.from(task.image.buffer, task.image.byteOffset, task.image.byteLength), task.maxPixels);
    lap('decode');
    checkQuality(image.gray, image.width, image.height);
    lap('quality');
    const located = await locateCard(image.gray, image.width, image.height, task.minCardArea);
    const corners = located.whole ? located.corners : refineCorners(image.gray, image.width, image.height, located.corners);
    if (!located.whole) checkCornersInside(corners, image.width, image.height);
    lap('locate');
    let flat = await warpCard(image, corners, task.face);
    clearCardEdge(flat.gray);
    lap('warp');
    // Each reading is tried upright, then turned by 180 degrees (the turned card is made once, when first needed).
    const upright = flat;
    let turnedCard: typeof flat | undefined;
    const turned = () => (turnedCard ??= { gray: rotate180(upright.gray, 1), rgb: upright.rgb && rotate180(upright.rgb, 3) });
    let kind: CardKind | undefined;
    let mrz: MrzReading | undefined;
    const attempts: ((gray: Buffer) => Promise<CardKind | undefined>)[] = [
      (gray) => classify(ocr, gray),
      // The chip card's back has few header words: its MRZ band decides.
      async (gray) => ((mrz = await readMrzBand(ocr, gray)) ? 'cccd_chip_back' : undefined),
      // Read as one block, a header beside busy artwork (fingerprint boxes) can come out empty: last, as sparse text.
      (gray) => classify(ocr, gray, 11),
      // Last, with Tesseract's own page layout analysis: a 9-digit card's back whose guilloche joins its
      // fingerprint ovals read as nothing in both modes above and was refused (code 3; 1 of 240 held out).
      (gray) => classify(ocr, gray, 3),
    ];
    for (const attempt of attempts) {
      for (const card of [upright, undefined]) {
        if (kind) break;
        const candidate = card ?? turned();
        kind = await attempt(candidate.gray);
        if (kind) flat = candidate;
      }
    }
    lap('classify');
    if (!kind) throw new ReaderFailure(3, 'No ID card found in the image: the card could not be recognised');
    const layout = LAYOUTS[kind];
    const FIELD_SCALE = task.fieldScale ?? DEFAULT_FIELD_SCALE;
    const read = layout.fields.filter((f) => f !== 'features' || task.features !== false);
    const lines = layout.lines.filter((l) => !l.labelOnly && read.includes(l.field));
    const boxes = lines.map((l) => {
      // An id printed after a static "SỐ" may start left of its layout position when the outline is a little off.
      const left = l.style === 'digits' && !l.label ? 40 : 10;
      const box = { x: l.x - left, y: l.y - 3, w: Math.min(l.w + left + 6, CARD_WIDTH - 16 - (l.x - left)), h: l.h + 6 };
      // Dates stand alone on short lines: move the band onto them (measured: doe 73% -> 93%;
      // on text lines the same move hurt, so those keep the layout's position).
      return l.style === 'date' ? alignBands(flat.gray, [box], 10)[0] : box;
    });
    const stack = await stackBands(flat.gray, boxes, FIELD_SCALE);
    const words = await ocr.recognize(stack.png, { lang: 'vie', psm: 6 });
    lap('ocr');
    if (kind === 'cccd_chip_back' && !mrz) mrz = await readMrzBand(ocr, flat.gray);
    // Stack coordinates: band x = line.x - 10 sits at GAP (14); the label starts 4 px into the line.
    const valueStart = (l: { label: string; size: number }) => (l.label ? (14 + 10 + 4 + 0.8 * labelWidth(l.label, l.size)) * FIELD_SCALE : 0);
    let raw = readRawFields(layout, lines, wordsByBand(words, stack.spans), valueStart);
    let normal = normaliseFields(layout, raw);
    // Second reading of the fields that came out missing, invalid or unsure, enlarged more,
    // in one more OCR call.
    const weak = weakFields(layout, normal, raw).filter((f) => read.includes(f));
    if (weak.length > 0) {
      const retryLines = lines.filter((l) => weak.includes(l.field));
      // Dates are looked for in a taller window (the outline may be off by more than the first
      // alignment could move); text lines keep their place (moved, they catch the next line's label).
      const retryBoxes = retryLines.map((l) => {
        const box = boxes[lines.indexOf(l)];
        return l.style === 'date' ? { ...box, y: box.y - RETRY_REACH * box.h, h: box.h * (1 + 2 * RETRY_REACH) } : box;
      });
      const retryStack = await stackBands(flat.gray, retryBoxes, RETRY_SCALE);
      const retryWords = await ocr.recognize(retryStack.png, { lang: 'vie', psm: 6 });
      const retryStart = (l: { label: string; size: number }) => (valueStart(l) / FIELD_SCALE) * RETRY_SCALE;
      const second = readRawFields(layout, retryLines, wordsByBand(retryWords, retryStack.spans), retryStart);
      // A tall window may hold other numbers: only a date printed as one counts there.
      for (const l of retryLines) if (l.style === 'date' && !STRICT_DATE.test(second[l.field]?.text ?? '')) delete second[l.field];
      const both = { ...raw, ...second };
      const mixed = normaliseFields(layout, both);
      const chosen = { ...raw };
      for (const f of weak) if (second[f] && readingScore(f, mixed, both) > readingScore(f, normal, raw)) chosen[f] = second[f];
      raw = chosen;
      normal = normaliseFields(layout, raw);
      timings.retried = weak.length;
      lap('retry');
    }
    const fields: ReadCard['fields'] = {};
    for (const f of read) {
      const v = normal.fields[f];
      if (v) fields[f] = { value: v.value, prob: fieldProbability(v) };
    }
    const probs = read.map((f) => fields[f]?.prob ?? 0);
    let face: Uint8Array | undefined;
    if (task.face && layout.photo && flat.rgb) {
      const p = layout.photo;
      face = await sharp(flat.rgb, { raw: { width: CARD_WIDTH, height: CARD_HEIGHT, channels: 3 } })
        .extract({ left: p.x, top: p.y, width: p.w, height: p.h })
        .jpeg({ quality: 90 })
        .toBuffer();
    }
    lap('fields');
    const a = normal.address;
    return {
      ok: true,
      kind,
      fields,
      addressEntities: layout.side === 'front' ? { province: a?.province ?? '', district: a?.district ?? '', ward: a?.ward ?? '', street: a?.street ?? '' } : undefined,
      overall: overallScore(probs),
      mrz: mrz ? { id: mrz.id, dob: mrz.dob, doe: mrz.doe, sex: mrz.sex, valid: mrz.valid } : undefined,
      face,
      corners,
      timings,
    };
  } catch (err) {
    if (err instanceof ReaderFailure) return { ok: false, code: err.code, message: err.message };
    throw err;
  }
}
