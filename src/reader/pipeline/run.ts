/**
 * The whole ID card pipeline for one image, as a worker thread runs it:
 * decode -> quality -> locate (and refine the outline) -> warp -> OCR of the whole card -> kind and side
 * from its words -> labels as anchors -> values by geometry -> fields -> MRZ cross-check -> confidence.
 * When the whole card says nothing either way up, the older header reading decides the kind.
 */
import sharp from 'sharp';
import { CARD_HEIGHT, CARD_WIDTH, LAYOUTS, type Box, type CardKind, type CardLayout, type IdCardField } from '../layouts.js';
import { classifyHeader, HEADER_BAND } from './classify.js';
import { fieldProbability, overallScore } from './confidence.js';
import { composeStack, encodeStack, GAP, stackBands, turnStack, type RawStack } from './crops.js';
import { decodeImage, type DecodedImage } from './decode.js';
import { ReaderFailure, refusalOf } from './failure.js';
import {
  mergedId,
  normaliseFields,
  normaliseSex,
  rawFromLines,
  readingScore,
  sexSpelled,
  typeLettersBonus,
  voteName,
  weakFields,
  wordsByBand,
  type NormalisedCard,
  type RawField,
} from './fields.js';
import { assignValues, dropTwinLines, findLabels, segmentLines, splitUnderLabels, toCardWords, valuesByShape, type AnchoredValue, type CardWord } from './anchors.js';
import { detectKind, printedTexts, type PrintedTexts } from './kind.js';
import { DOCUMENTS } from '../documents/id-card/model.js';
import { cardShapedImage, cornersCutOff, flatToImage, frameRectangle, locateCard, textCutOff, wordsOnFrame } from './locate.js';
import { findCardByText } from './text-locate.js';
import { CHIP_CARD_MILESTONES, crossCheckMrz, mrzLines, readMrz, type MrzReading } from './mrz.js';
import { refineCorners } from './refine.js';
import type { Point } from '../../platform/vision/card-outline.js';
import type { OcrEngine } from './ocr.js';
import { checkQuality } from './quality.js';
import { clearCardEdge, rotate180, warpCard } from './warp.js';
import { stageTimer } from './timings.js';
import { fold } from './text.js';
import { detectText, turnedProbability, type TextBox } from './detect.js';
import { readLines, turnBoxes } from './lines.js';
import { confirmAgreed, readDigitsAgain } from './digits.js';
import { OnnxLineRecogniser, type LineRecogniser } from './line-recogniser.js';
import { agreementVouches, readNameAgain } from './name-line.js';
import { PLACE_FIELDS, readPlaceStarts, readPlacesAgain, unplacedPlaces } from './place-line.js';
import type { LineReading } from './recognise.js';
import { readCardQr } from './qr.js';
import { applyChipQr, expiryFromCode, guideAddress, parseChipQr } from './chip-qr.js';
import { fieldSpan, onlyRows, spanRows, spliceRows } from './missing-bands.js';

export interface ReadTask {
  image: Uint8Array;
  face: boolean;
  maxPixels: number;
  minCardArea: number;
  /** Enlargement of the field bands before OCR (default DEFAULT_FIELD_SCALE). */
  fieldScale?: number;
  /** Read the distinguishing features of a back (default true; false for applications without the arrangement: the band is not even read). */
  features?: boolean;
  /** Answer the flattened card as a JPEG too (the fraud check's `cropped_idcard`). */
  cropCard?: boolean;
  /**
   * Run the project's line recogniser: the name's line read again, ids and dates nothing else confirms filled in,
   * places the gazetteer cannot place read again (default true; false: Tesseract's and the network's readings alone).
   */
  lineRecogniser?: boolean;
}

export interface ReadCard {
  ok: true;
  kind: CardKind;
  fields: Partial<Record<IdCardField, { value: string; prob: number }>>;
  addressEntities?: { province: string; district: string; ward: string; street: string };
  overall: number;
  /** The chip back's MRZ as read: its fields, whether every check digit passed, and its three TD1 lines (the eKYC flow's `MRZ` item). */
  mrz?: Pick<MrzReading, 'id' | 'dob' | 'doe' | 'sex' | 'valid' | 'lines'>;
  /**
   * The chip front's QR code when read in the card's format: its text unchanged, the issue date it holds
   * (dd/mm/yyyy), and the fields whose printed value, read with confidence, the code contradicts.
   */
  qr?: { text: string; issueDate: string; disagree: IdCardField[] };
  /** JPEG of the portrait, when asked for and the side has one. */
  face?: Uint8Array;
  /** JPEG of the flattened card, upright, when asked for (cropCard). */
  card?: Uint8Array;
  /** A front's headline and title as its OCR read them (the fraud check's presence checks). */
  printed?: PrintedTexts;
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
/** A name's second reading reaches this many letter heights right of the words found. */
const NAME_REACH = 4;
/** The fields that are places (the gazetteer's to confirm). */
const PLACES: IdCardField[] = ['home', 'address', 'pob'];

/**
 * The words of a value's reading (two letters or a digit or more) that its answer does not hold, accents, case
 * and punctuation aside: what normalising dropped as noise, or a misread the gazetteer replaced.
 */
export function droppedWords(words: readonly Pick<CardWord, 'text'>[], answer: string): string[] {
  const key = (t: string) =>
    fold(t)
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '');
  const kept = new Set(answer.split(/[\s,]+/).map(key));
  return words.map((w) => w.text).filter((t) => (key(t).length >= 2 || /\d/.test(t)) && !kept.has(key(t)));
}

/** Fields besides the name always read a second time: they are kept sure only when both readings agree. */
const CHECKED_TWICE: IdCardField[] = ['id', 'dob', 'doe'];
/** In that taller window only a date printed as one counts. */
const STRICT_DATE = /\b\d{2}\s?[/.-]\s?\d{2}\s?[/.-]\s?\d{4}\b/;

async function classify(ocr: OcrEngine, gray: Buffer, psm = 6): Promise<CardKind | undefined> {
  // Flattened like the fields: unflattened, 2 of 240 backs were not recognised (code 3) on the
  // held-out set against none, for roughly 0.05 s more CPU per card (noisy measurements).
  const stack = await stackBands(gray, [HEADER_BAND], HEADER_SCALE);
  const words = await ocr.recognize(stack.image, { lang: 'vie', psm });
  return classifyHeader(words, HEADER_SCALE);
}

/** Enlargement of the whole card for its OCR call (letters 18-30 px tall on the 1000 px card). */
const CARD_SCALE = 1.2;

/**
 * OCR of the whole flat card, background flattened like the bands, upright or turned by 180 degrees, or of some
 * of its rows only; words back in card pixels. The card is evened out once: the turned reading turns the prepared image.
 */
export function wholeCardReader(ocr: OcrEngine, upright: Buffer): (way: 'up' | 'down', rows?: readonly Box[]) => Promise<CardWord[]> {
  let prepared: RawStack | undefined;
  return async (way, rows) => {
    prepared ??= composeStack(upright, [{ x: 0, y: 0, w: CARD_WIDTH, h: CARD_HEIGHT }]);
    const card = way === 'up' ? prepared : turnStack(prepared);
    // Only some rows of the card (missing-bands.ts), in the card's coordinates the way it is read.
    const stack = await encodeStack(rows ? onlyRows(card, rows, GAP) : card, CARD_SCALE);
    const words = await ocr.recognize(stack.image, { lang: 'vie', psm: CARD_PSM });
    return toCardWords(words, CARD_SCALE, GAP);
  };
}
/** Sparse text: words anywhere on the card, each with its box (block mode joins columns into one line). */
const CARD_PSM = 11;

/** The classifier's mean probability of "turned by 180 degrees" above which the card is read turned. */
const TURNED = 0.5;

/**
 * The card read through the learned text detector: its lines found on the upright card, the way up decided by
 * the direction classifier over the widest lines, each line recognised (lines.ts). Undefined when the detector
 * cannot run (its model missing) or finds no line: the whole-card reading takes over.
 */
export async function detectedReading(
  ocr: OcrEngine,
  gray: Buffer,
  turned: () => { gray: Buffer },
): Promise<{ way: 'up' | 'down'; words: CardWord[]; lines: TextBox[]; turnedProbability?: number } | undefined> {
  let boxes: TextBox[];
  let p: number | undefined;
  try {
    boxes = await detectText(gray, CARD_WIDTH, CARD_HEIGHT);
    if (boxes.length === 0) return undefined;
    p = await turnedProbability(gray, CARD_WIDTH, CARD_HEIGHT, boxes);
  } catch {
    return undefined;
  }
  const way = p !== undefined && p > TURNED ? 'down' : 'up';
  const lines = way === 'up' ? boxes : turnBoxes(boxes);
  const words = await readLines(ocr, way === 'up' ? gray : turned().gray, lines);
  return { way, words, lines, turnedProbability: p };
}

/** The values of a card's fields on its words: labels found in their lines, values placed after them. */
export function anchorValues(words: CardWord[], kind: CardKind): Partial<Record<IdCardField, AnchoredValue>> {
  const model = DOCUMENTS[kind];
  let segments = segmentLines(words);
  let hits = findLabels(segments, model);
  const split = splitUnderLabels(segments, hits, model);
  if (split !== segments) {
    segments = split;
    hits = findLabels(segments, model);
  }
  const anchored = assignValues(segments, hits, model);
  // An id or date of birth whose label was not found: by its shape, when that is unambiguous.
  Object.assign(anchored, valuesByShape(segments, hits, anchored, model, kind.startsWith('cmnd_09') ? 9 : 12));
  return anchored;
}

/** The values another reading found for the fields `missing` from the first one (the first one's kept). */
export function fillMissing(
  first: Partial<Record<IdCardField, AnchoredValue>>,
  other: Partial<Record<IdCardField, AnchoredValue>>,
  missing: readonly IdCardField[],
): Partial<Record<IdCardField, AnchoredValue>> {
  const out = { ...first };
  for (const f of missing) if (other[f] && (!out[f] || (guessedSex(f, out[f]) && other[f].label.segment >= 0))) out[f] = other[f];
  return out;
}

/** A sex taken by its shape alone (no label, anchors.ts valuesByShape) from a word that does not spell it exactly. */
function guessedSex(f: IdCardField, v: AnchoredValue): boolean {
  if (f !== 'sex' || v.label.segment >= 0) return false;
  const text = v.words.map((w) => w.text).join(' ');
  const value = normaliseSex(text);
  return value === undefined || !sexSpelled(text, value);
}

/** The MRZ's band: where the whole card's words with '<' runs are, else the chip back's usual place. */
function mrzBand(words: CardWord[]): Box {
  const rows = words.filter((w) => (w.text.match(/</g) ?? []).length >= 2 && w.top > CARD_HEIGHT * 0.45);
  if (rows.length === 0) return LAYOUTS.cccd_chip_back.mrz!;
  const top = Math.max(0, Math.min(...rows.map((w) => w.top)) - 25);
  const bottom = Math.min(CARD_HEIGHT, Math.max(...rows.map((w) => w.top + w.height)) + 25);
  return { x: 20, y: top, w: CARD_WIDTH - 40, h: bottom - top };
}

async function readMrzBand(ocr: OcrEngine, gray: Buffer, band: Box = LAYOUTS.cccd_chip_back.mrz!): Promise<MrzReading | undefined> {
  const stack = await stackBands(gray, [band]);
  return readMrz(await mrzLines(ocr, stack.image));
}

/**
 * How much wider an id's second reading must look when the first found fewer digits than the number has:
 * the missing digits at the width of those read (OCR lost the number's end to a neighbouring line or the
 * artwork: "0400909123" of 040090912354), plus one digit's margin.
 */
export function missingDigitsWidth(a: Pick<AnchoredValue, 'lines'>, length: number): number {
  const words = a.lines.flat().filter((w) => /\d/.test(w.text));
  const digits = words.reduce((n, w) => n + w.text.replace(/\D/g, '').length, 0);
  if (digits === 0 || digits >= length) return 0;
  const width = words.reduce((n, w) => n + w.width, 0) / words.reduce((n, w) => n + w.text.length, 0);
  return (length - digits + 1) * width;
}

type Fields = Partial<Record<IdCardField, RawField>>;
type Anchored = Partial<Record<IdCardField, AnchoredValue>>;
/** The flat card, upright or turned (`rgb` only when the face or the card's image is asked for). */
type Flat = { gray: Buffer; rgb?: Buffer };

/** Where the card is: its corners, and whether it was read without an outline (the card fills the frame). */
export interface Placed {
  corners: [Point, Point, Point, Point];
  withoutOutline: boolean;
  /** A card-shaped outline ran off the frame: a card is there, so an unreadable one is cut off (2), not missing (3). */
  outlineCut: boolean;
}

/** The card's outline, refined; a card running off the frame is read as far as the photo holds it. */
export async function placeCard(image: DecodedImage, minCardArea: number): Promise<Placed> {
  const located = await locateCard(image.gray, image.width, image.height, minCardArea, { readWithoutOutline: true });
  const corners = located.whole ? located.corners : refineCorners(image.gray, image.width, image.height, located.corners);
  // A card running off the frame: what of it the photo holds is read, and its words say whether text is cut off.
  if (!located.whole && cornersCutOff(corners, image.width, image.height)) {
    // An image of a card's shape is the card cropped to itself (the outline found was something on it).
    const cropped = cardShapedImage(image.width, image.height);
    const frame = [
      { x: 0, y: 0 },
      { x: image.width - 1, y: image.height - 1 },
    ];
    return { corners: frameRectangle(cropped ? frame : corners, image.width, image.height), withoutOutline: !cropped, outlineCut: !cropped };
  }
  return { corners, withoutOutline: located.withoutOutline === true, outlineCut: false };
}

/** The card recognised: its kind, the flat card the right way up, its words, and how they were read. */
interface Recognised {
  kind: CardKind | undefined;
  flat: Flat;
  words: CardWord[];
  detected?: Awaited<ReturnType<typeof detectedReading>>;
  /** The whole card's sparse-text reading, or of some of its rows only. */
  readWhole: (way: 'up' | 'down', rows?: readonly Box[]) => Promise<CardWord[]>;
  /** The chip back's MRZ when it was what named the card. */
  mrz?: MrzReading;
}

/**
 * Which card it is and its words: the learned detector's lines first, read the way up the direction
 * classifier says; else the whole card in one sparse-text call, upright then turned; else the header.
 */
async function recogniseCard(ocr: OcrEngine, upright: Flat, turned: () => Flat, lap: (name: string) => void): Promise<Recognised> {
  const detected = await detectedReading(ocr, upright.gray, turned);
  lap('detect');
  const readWhole = wholeCardReader(ocr, upright.gray);
  const out: Recognised = { kind: undefined, flat: upright, words: [], detected, readWhole };
  const kind = detected && detectKind(detected.words)?.kind;
  if (detected && kind) Object.assign(out, { kind, flat: detected.way === 'up' ? upright : turned(), words: detected.words });
  const read: Partial<Record<'up' | 'down', CardWord[]>> = {};
  for (const way of ['up', 'down'] as const) {
    if (out.kind) break;
    read[way] = await readWhole(way);
    const k = detectKind(read[way]!)?.kind;
    if (k) Object.assign(out, { kind: k, flat: way === 'up' ? upright : turned(), words: read[way]! });
  }
  lap('ocr');
  if (!out.kind) {
    Object.assign(out, await classifyByHeader(ocr, upright, turned, read));
    lap('classify');
  }
  return out;
}

/**
 * Nothing on the card named it either way up: the older header reading, which knows the classic layouts'
 * header positions (a header beside busy artwork can read as nothing), then the chip back's MRZ.
 */
async function classifyByHeader(
  ocr: OcrEngine,
  upright: Flat,
  turned: () => Flat,
  read: Partial<Record<'up' | 'down', CardWord[]>>,
): Promise<Pick<Recognised, 'kind' | 'mrz'> & Partial<Pick<Recognised, 'flat' | 'words'>>> {
  let mrz: MrzReading | undefined;
  const attempts: ((gray: Buffer) => Promise<CardKind | undefined>)[] = [
    (gray) => classify(ocr, gray),
    async (gray) => {
      mrz = await readMrzBand(ocr, gray);
      return mrz ? 'cccd_chip_back' : undefined;
    },
    (gray) => classify(ocr, gray, 11),
    (gray) => classify(ocr, gray, 3),
  ];
  for (const attempt of attempts) {
    for (const way of ['up', 'down'] as const) {
      const candidate = way === 'up' ? upright : turned();
      const kind = await attempt(candidate.gray);
      if (kind) return { kind, mrz, flat: candidate, words: read[way] ?? [] };
    }
  }
  return { kind: undefined, mrz };
}

/**
 * The values anchored to their labels; fields the detected lines left without a value (a label misread, a mark
 * glued onto its first word, a line the detector missed or merged) looked for in a sparse-text reading, the same
 * way up, of the rows where they can be printed (missing-bands.ts), which stands in for the detected lines there.
 * `recovered`: the fields only that reading found.
 */
async function anchorFields(
  card: Recognised & { kind: CardKind },
  wanted: IdCardField[],
  lap: (name: string) => void,
): Promise<{ anchored: Anchored; recovered: IdCardField[] }> {
  const anchored = anchorValues(card.words, card.kind);
  const { detected } = card;
  // Not found, or a sex found only by a word near its spelling ("Nư" with no label): its rows are read again.
  const missing = detected && card.words === detected.words ? wanted.filter((f) => !anchored[f] || guessedSex(f, anchored[f])) : [];
  if (!detected || missing.length === 0) return { anchored, recovered: [] };
  const order = DOCUMENTS[card.kind].fields.map((s) => s.field);
  const rows = spanRows(missing.map((f) => fieldSpan(order, anchored, f)));
  const reread = spliceRows(card.words, await card.readWhole(detected.way, rows), rows);
  Object.assign(anchored, fillMissing(anchored, anchorValues(reread, card.kind), missing));
  // A place found only in the rows' reading may hold a line the first reading gave the place above it.
  dropTwinLines(anchored, DOCUMENTS[card.kind]);
  lap('whole');
  return { anchored, recovered: missing.filter((f) => anchored[f]) };
}

/** Each wanted field's raw reading from its anchored words. */
function rawReadings(wanted: IdCardField[], anchored: Anchored): Fields {
  const raw: Fields = {};
  for (const f of wanted) {
    const a = anchored[f];
    const r = a && rawFromLines(f, a.lines);
    if (r) raw[f] = a.unsure ? { ...r, unsure: true } : r;
  }
  return raw;
}

/** The fields a second reading is taken of: the weak ones, and the name, id and dates read well (compared, not replaced). */
function fieldsToReadAgain(
  layout: CardLayout,
  wanted: IdCardField[],
  anchored: Anchored,
  raw: Fields,
  normal: NormalisedCard,
): { weak: IdCardField[]; vote: IdCardField[] } {
  // Missing after their label, invalid or unsure.
  const weak = weakFields(layout, normal, raw).filter((f) => wanted.includes(f) && anchored[f]);
  // A place read from words its answer dropped may have lost its start (a street glued to the label's end and
  // garbled): its lines are read again on their own, after the label.
  for (const f of PLACES)
    if (wanted.includes(f) && anchored[f] && normal.fields[f] && !weak.includes(f) && droppedWords(anchored[f].words, normal.fields[f].value).length > 0) weak.push(f);
  // A name is always read twice: the two readings' tone marks are compared (voteName).
  // So are an id and the dates: a digit misread into another real code or date passes every check (3 read as 5 in
  // the province code), and only a second reading that disagrees shows it.
  const vote = (['name', ...CHECKED_TWICE] as IdCardField[]).filter((f) => wanted.includes(f) && raw[f] && anchored[f] && !weak.includes(f));
  return { weak, vote };
}

/** The bands of the second reading: each value line of `fields` found on the card, a little wider and taller. */
function retryBands(layout: CardLayout, anchored: Anchored, fields: IdCardField[]): { field: IdCardField; box: Box }[] {
  const bands: { field: IdCardField; box: Box }[] = [];
  for (const f of fields) {
    const a = anchored[f] as AnchoredValue;
    const date = layout.fields.includes(f) && ['dob', 'doe', 'issue_date'].includes(f);
    for (const b of a.lineBoxes) {
      // The value's own box, a little wider and taller; on the label's row never reaching back over the label.
      const l = a.label.box;
      const onLabelRow = b.y < l.y + l.h && b.y + b.h > l.y;
      // Under its label a value starts where the label does: a first word the whole card's reading lost
      // ("ĐỖ" of ĐỖ QUANG MINH PHONG) is still in the band.
      const start = !onLabelRow && b === a.lineBoxes[0] && b.y > l.y ? Math.min(b.x, l.x) : b.x;
      const left = Math.min(start, Math.max(start - 6, onLabelRow ? l.x + l.w + 2 : 0));
      const pad = date ? RETRY_REACH * b.h : 0.25 * b.h;
      // An id read short looks further right by the digits it lacks; a name by a few letters (a last word
      // the whole card's reading lost: "PHAN THỊ" of PHAN THỊ TUYẾT).
      const extra = f === 'id' ? missingDigitsWidth(a, layout.kind.startsWith('cmnd_09') ? 9 : 12) : f === 'name' ? NAME_REACH * b.h : 0;
      const right = Math.min(CARD_WIDTH, b.x + b.w + 16 + extra);
      bands.push({ field: f, box: { x: left, y: b.y - pad, w: Math.max(8, right - left), h: b.h + 2 * pad } });
    }
  }
  return bands;
}

/** The second reading's raw values (a date only when printed as one) and every word it found per field. */
async function readAgain(
  ocr: OcrEngine,
  gray: Buffer,
  bands: { field: IdCardField; box: Box }[],
  fields: IdCardField[],
): Promise<{ second: Fields; secondWords: Partial<Record<IdCardField, readonly { text: string }[]>> }> {
  const retryStack = await stackBands(
    gray,
    bands.map((b) => b.box),
    RETRY_SCALE,
  );
  const retryWords = await ocr.recognize(retryStack.image, { lang: 'vie', psm: 6 });
  const byBand = wordsByBand(retryWords, retryStack.spans);
  const second: Fields = {};
  /** Every word the second reading found for a field, before any was dropped as noise. */
  const secondWords: Partial<Record<IdCardField, readonly { text: string }[]>> = {};
  for (const f of fields) {
    const lines = bands.map((b, i) => (b.field === f ? byBand[i] : undefined)).filter((x): x is NonNullable<typeof x> => !!x);
    second[f] = rawFromLines(f, lines);
    secondWords[f] = lines.flat();
    // A taller window may hold other numbers: only a date printed as one counts there.
    if (['dob', 'doe', 'issue_date'].includes(f) && !STRICT_DATE.test(second[f]!.text)) delete second[f];
  }
  return { second, secondWords };
}

/**
 * The readings kept after the second one: a weak field's better reading, an id merged from both, an id or
 * date marked unsure when the two disagree, the name with the other reading's tone marks voted in.
 * `placeWords` gets the words each place was read from when its second reading was taken.
 */
function chooseReadings(
  layout: CardLayout,
  anchored: Anchored,
  first: { raw: Fields; normal: NormalisedCard },
  again: { second: Fields; secondWords: Partial<Record<IdCardField, readonly { text: string }[]>> },
  { weak, vote }: { weak: IdCardField[]; vote: IdCardField[] },
  placeWords: Partial<Record<IdCardField, readonly { text: string }[]>>,
): Fields {
  const { raw, normal } = first;
  const { second, secondWords } = again;
  const both = { ...raw, ...second };
  const mixed = normaliseFields(layout, both);
  const chosen = { ...raw };
  // A place that keeps every word it was read from is the better of two readings otherwise equal.
  const kept = (f: IdCardField, n: typeof normal, words: readonly { text: string }[] | undefined) =>
    PLACES.includes(f) && n.fields[f] && droppedWords(words ?? [], n.fields[f].value).length === 0 ? 0.5 : 0;
  for (const f of weak) {
    if (!second[f]) continue;
    const before = readingScore(f, normal, raw) + kept(f, normal, anchored[f]?.words);
    const [typeFirst, typeSecond] = PLACES.includes(f) ? typeLettersBonus(raw[f]?.text, second[f].text) : [0, 0];
    if (readingScore(f, mixed, both) + kept(f, mixed, secondWords[f]) + typeSecond > before + typeFirst) {
      chosen[f] = second[f];
      placeWords[f] = secondWords[f];
    }
  }
  // An id each reading got part of: their merge, when only it passes the id's cross-checks.
  const merged = weak.includes('id') ? mergedId(raw.id, second.id, layout.kind.startsWith('cmnd_09') ? 9 : 12) : undefined;
  if (merged && !normaliseFields(layout, chosen).fields.id?.valid && normaliseFields(layout, { ...chosen, id: merged }).fields.id?.valid) chosen.id = merged;
  // An id or date read twice: kept when both readings give the same value, else marked unsure (under 80).
  for (const f of vote) {
    if (f === 'name' || !chosen[f]) continue;
    if (!second[f] || mixed.fields[f]?.value !== normal.fields[f]?.value) chosen[f] = { ...chosen[f], unsure: true };
  }
  // The name: the reading kept, with the other's tone marks voted in (or marked unsure when they disagree).
  if (chosen.name) {
    const other = chosen.name === second.name ? raw.name : second.name;
    chosen.name = voteName(chosen.name, other);
  }
  return chosen;
}

/**
 * A place the gazetteer accounts for whole, but read from more words than it kept: what was dropped may be
 * the street or a unit OCR garbled ("Khu 9" read as "t<h 9", glued to the label): not sure.
 */
function markDroppedPlaces(normal: NormalisedCard, anchored: Anchored, placeWords: Partial<Record<IdCardField, readonly { text: string }[]>>): void {
  for (const f of PLACES) {
    const v = normal.fields[f];
    const words = placeWords[f] ?? anchored[f]?.words;
    if (v && words && droppedWords(words, v.value).length > 0) v.unsure = true;
  }
}

/** JPEGs of the portrait and of the flat card, when asked for. */
async function cardImages(task: ReadTask, layout: CardLayout, flat: Flat): Promise<{ face?: Uint8Array; card?: Uint8Array }> {
  let face: Uint8Array | undefined;
  if (task.face && layout.photo && flat.rgb) {
    const p = layout.photo;
    face = await sharp(flat.rgb, { raw: { width: CARD_WIDTH, height: CARD_HEIGHT, channels: 3 } })
      .extract({ left: p.x, top: p.y, width: p.w, height: p.h })
      .jpeg({ quality: 90 })
      .toBuffer();
  }
  const card =
    task.cropCard && flat.rgb
      ? await sharp(flat.rgb, { raw: { width: CARD_WIDTH, height: CARD_HEIGHT, channels: 3 } })
          .jpeg({ quality: 88 })
          .toBuffer()
      : undefined;
  return { face, card };
}

/** What the name stage saw: the flat card, its detected lines, the anchored values, Tesseract's and the network's readings. */
export interface NameStageView {
  kind: CardKind;
  gray: Buffer;
  lines: readonly TextBox[];
  anchored: Anchored;
  tesseract: Fields;
  network?: LineReading;
}

/**
 * How `readCard` reads lines beyond Tesseract: another line recogniser than the committed one
 * (evaluations of other builds of the network), and a look at the name stage (evaluations).
 */
export interface ReadOptions {
  lineRecogniser?: LineRecogniser;
  onNameStage?: (view: NameStageView) => void;
}

/** The committed line recogniser, one per thread (its onnxruntime session is made on first use). */
let committedRecogniser: LineRecogniser | undefined;

/** The recogniser the name stage runs for a task: the options' one, else the committed one unless the task says not. */
function lineRecogniserFor(task: ReadTask, options: ReadOptions): LineRecogniser | undefined {
  if (task.lineRecogniser === false) return undefined;
  return options.lineRecogniser ?? (committedRecogniser ??= new OnnxLineRecogniser());
}

export async function readCard(task: ReadTask, ocr: OcrEngine, options: ReadOptions = {}): Promise<ReadResult> {
  const { timings, lap } = stageTimer();
  try {
    const image = await decodeImage(Buffer.from(task.image.buffer, task.image.byteOffset, task.image.byteLength), task.maxPixels);
    lap('decode');
    checkQuality(image.gray, image.width, image.height);
    lap('quality');
    const placed = await placeCard(image, task.minCardArea);
    lap('locate');
    const first = await refusalOf(() => readPlacedCard(task, ocr, options, image, placed, { timings, lap }));
    if (!doubtful(first)) return first;
    // The outline's reading failed or is doubtful: the card found by its text, read, and the better answer kept.
    // Without the detector's model (or a failure in it) the outline's reading stands, as for the text lines.
    const byText = await findCardByText(image.gray, image.width, image.height).catch(() => undefined);
    lap('textLocate');
    if (!byText || sameCard(byText.corners, placed.corners)) return first;
    const second = await refusalOf(() =>
      readPlacedCard(task, ocr, options, image, { corners: byText.corners, withoutOutline: false, outlineCut: false, byText: true }, { timings, lap }),
    );
    return better(second, first) ? second : first;
  } catch (err) {
    if (err instanceof ReaderFailure) return { ok: false, code: err.code, message: err.message };
    throw err;
  }
}

/** Under this many fields at `_prob` >= 80 a reading is doubtful: the card may have been found wrong. */
const SURE_FIELDS = 3;

/**
 * Whether the outline's reading calls for the card to be looked for by its text: it refused (2: the outline runs
 * off the frame, 3: nothing named a card), or few of its fields are sure (an outline of something else, a card cut
 * by a wrong side, the whole image read for want of an outline while the card is a part of it): fewer than three,
 * or than the side can have (a chip back's one). A card read whole with sure fields, or a back whose MRZ passes
 * every check digit, is read well: looking again costs and changes little.
 */
export function doubtful(r: ReadResult): boolean {
  if (!r.ok) return r.code === 2 || r.code === 3;
  // A machine-readable zone read with every check digit passing: the card was found well enough to read it.
  if (r.mrz?.valid) return false;
  return sureFields(r) < Math.min(SURE_FIELDS, canBeSure(r.kind));
}

/**
 * How many fields of a side can be answered at 80 or more: a back's marks are never (read once, confidence.ts),
 * so the 12-digit and chip backs, printing only marks and an issue date, have one.
 */
const canBeSure = (kind: CardKind) => LAYOUTS[kind].fields.filter((f) => f !== 'features').length;

const sureFields = (r: ReadCard) => Object.values(r.fields).filter((f) => f && f.prob >= 80).length;

/**
 * The second reading wins with more sure fields, or as many and a higher overall score; any reading beats a refusal.
 * Of two refusals, one that found the card and saw its text cut off (2) says more than one that found none (3).
 */
export function better(second: ReadResult, first: ReadResult): boolean {
  if (!second.ok) return !first.ok && first.code === 3 && second.code === 2;
  if (!first.ok) return true;
  const [a, b] = [sureFields(second), sureFields(first)];
  return a > b || (a === b && second.overall > first.overall);
}

/**
 * Two placements of the card alike: every corner within 1.5% of the card's width of the other's, in the same order
 * (the same corners the other way up are another reading: the text's placement knows which way up the card reads).
 */
export function sameCard(a: readonly Point[], b: readonly Point[]): boolean {
  const width = Math.hypot(a[1].x - a[0].x, a[1].y - a[0].y);
  return a.every((p, i) => Math.hypot(p.x - b[i].x, p.y - b[i].y) <= 0.015 * width);
}

/**
 * The printed address's words that the chip code's address spells otherwise, corrected (chip-qr.ts guideAddress) and
 * the address made again from the corrected reading (in `normal`, in place). The address keeps its probability's
 * doubts: the code vouches for the words it holds, not for the words OCR may have lost.
 */
function guideAddressByCode(layout: CardLayout, raw: Partial<Record<IdCardField, RawField>>, normal: NormalisedCard, code: string): void {
  const read = raw.address;
  const guided = read && guideAddress(read.text, code);
  if (!guided) return;
  const again = normaliseFields(layout, { ...raw, address: { ...read, text: guided } });
  const before = normal.fields.address;
  const after = again.fields.address;
  if (!after) return;
  normal.fields.address = { ...after, unsure: after.unsure || before?.unsure };
  normal.address = again.address;
}

/** The card read at a placement: warp, text lines, kind, fields, second readings, QR code, confidence. */
async function readPlacedCard(
  task: ReadTask,
  ocr: OcrEngine,
  options: ReadOptions,
  image: DecodedImage,
  { corners, withoutOutline, outlineCut, byText }: Placed & { byText?: boolean },
  { timings, lap }: ReturnType<typeof stageTimer>,
): Promise<ReadCard> {
  const upright = await warpCard(image, corners, task.face || task.cropCard === true);
  clearCardEdge(upright.gray);
  lap('warp');
  // Each reading is tried upright, then turned by 180 degrees (the turned card is made once, when first needed).
  let turnedCard: Flat | undefined;
  const turned = () => (turnedCard ??= { gray: rotate180(upright.gray, 1), rgb: upright.rgb && rotate180(upright.rgb, 3) });
  const card = await recogniseCard(ocr, upright, turned, lap);
  const { kind, flat, words } = card;
  if (!kind && outlineCut) throw new ReaderFailure(2, 'Cropping failed: corners of the card are outside the image');
  if (!kind) throw new ReaderFailure(3, 'No ID card found in the image: the card could not be recognised');
  if (withoutOutline && textCutOff(words, CARD_WIDTH, CARD_HEIGHT))
    throw new ReaderFailure(2, 'Cropping failed: the card runs off the image and printed text is cut off');
  // A card found by its text may run off the frame as well: the same rule, with the frame's sides mapped onto the card.
  if (byText && wordsOnFrame(words, flatToImage(corners, flat !== upright), image.width, image.height))
    throw new ReaderFailure(2, 'Cropping failed: the card runs off the image and printed text is cut off');
  const layout = LAYOUTS[kind];
  const wanted = layout.fields.filter((f) => f !== 'features' || task.features !== false);
  const { anchored, recovered } = await anchorFields({ ...card, kind }, wanted, lap);
  let raw = rawReadings(wanted, anchored);
  let normal = normaliseFields(layout, raw);
  lap('fields');
  // Second reading of the fields that came out weak, and of those always read twice: each value line found
  // on the card, enlarged more, in one more OCR call.
  const again = fieldsToReadAgain(layout, wanted, anchored, raw, normal);
  /** The words each place was finally read from (the second reading's when it was taken). */
  const placeWords: Partial<Record<IdCardField, readonly { text: string }[]>> = {};
  if (again.weak.length + again.vote.length > 0) {
    const fields = [...again.weak, ...again.vote];
    const second = await readAgain(ocr, flat.gray, retryBands(layout, anchored, fields), fields);
    raw = chooseReadings(layout, anchored, { raw, normal }, second, again, placeWords);
    normal = normaliseFields(layout, raw);
    timings.retried = again.weak.length;
    lap('retry');
  }
  // The id and dates read again by the recognition network, and by the line recogniser where neither confirms them (digits.ts).
  const { detected } = card;
  /** The flat card, its detected lines and the anchored values, as the second readers read them. */
  const cardLines = { gray: flat.gray, width: CARD_WIDTH, height: CARD_HEIGHT, lines: detected?.lines ?? [], anchored };
  let agreedDigits: IdCardField[] = [];
  if (detected && words === detected.words) {
    const digits = await readDigitsAgain(cardLines, layout, raw, normal, words, lineRecogniserFor(task, options));
    raw = digits.raw;
    normal = normaliseFields(layout, raw);
    agreedDigits = digits.agreed;
    confirmAgreed(normal.fields, digits.agreed);
    // A field the detected lines missed and only the rows' sparse reading found is a hard case (a wrong
    // tone mark read the same way twice on the same pixels): unsure, unless the network read it the same.
    for (const f of recovered) if (normal.fields[f] && !digits.agreed.includes(f)) normal.fields[f].unsure = true;
    lap('digits');
  }
  // The name read again by the line recogniser on its detected line (name-line.ts).
  const recogniser = lineRecogniserFor(task, options);
  if (detected && words === detected.words && recogniser && anchored.name) {
    const tesseract = raw;
    const named = await readNameAgain(recogniser, cardLines, raw);
    options.onNameStage?.({ kind, gray: flat.gray, lines: detected.lines, anchored, tesseract, network: named.network });
    raw = named.raw;
    // Only the name changes: the other fields keep what the digit stage made of them.
    const name = normaliseFields(layout, raw).fields.name;
    // The two readers agreeing is the independent reading a name's form check needs (confidence.ts), on the cards
    // whose print the recogniser was trained on (name-line.ts).
    const vouched = named.agreed && agreementVouches(kind);
    if (name) normal.fields.name = { ...name, unsure: vouched ? false : name.unsure || recovered.includes('name') || undefined, formOnly: !vouched };
    lap('name');
  }
  // Places the gazetteer could not place from Tesseract's reading, read again by the line recogniser (place-line.ts).
  if (detected && words === detected.words && recogniser) {
    const places = unplacedPlaces(layout, normal, anchored);
    if (places.length > 0) {
      const again = await readPlacesAgain(recogniser, cardLines, layout, raw, places);
      raw = again.raw;
      const renewed = normaliseFields(layout, raw);
      for (const f of again.replaced) normal.fields[f] = { ...renewed.fields[f]!, unsure: true };
      if (again.replaced.includes('address')) normal.address = renewed.address;
      lap('places');
    }
    // A place's start Tesseract lost on its label's row, read by the recogniser with a second witness (place-line.ts).
    const starts = PLACE_FIELDS.filter((f) => layout.fields.includes(f) && anchored[f] && !places.includes(f));
    const begun = await readPlaceStarts(recogniser, cardLines, words, layout, raw, starts);
    if (begun.extended.length > 0) {
      raw = begun.raw;
      const renewed = normaliseFields(layout, raw);
      for (const f of begun.extended) normal.fields[f] = { ...renewed.fields[f]!, unsure: true };
      if (begun.extended.includes('address')) normal.address = renewed.address;
      lap('starts');
    }
  }
  // A back with a machine-readable zone: its check digits confirm or correct what the visual zone printed.
  let mrz = card.mrz;
  if (layout.mrz) {
    mrz ??= await readMrzBand(ocr, flat.gray, mrzBand(words));
    // A field the back prints and the MRZ carries, lost by the visual zone's reading (its label unread), is the MRZ's.
    // The chip card's expiry follows from the age at issue: the MRZ's dates rule out issue dates (mrz.ts).
    if (mrz) crossCheckMrz(normal.fields, mrz, wanted, kind === 'cccd_chip_back' ? CHIP_CARD_MILESTONES : undefined);
  }
  // The 9-digit number has no check digit: two readers of different kinds agreeing is its only confirmation.
  if (normal.fields.id?.value.length === 9 && !(detected && words === detected.words && agreedDigits.includes('id'))) normal.fields.id.unsure = true;
  markDroppedPlaces(normal, anchored, placeWords);
  // The chip front's QR code: exact where OCR guesses, so its values are the answer's (chip-qr.ts).
  let qr: ReadCard['qr'];
  if (kind === 'cccd_chip_front') {
    // The whole photo is looked through only when no outline placed the card (the corner boxes are guesses then).
    const text = await readCardQr({ data: image.gray, width: image.width, height: image.height }, corners, flat !== upright, withoutOutline || byText === true);
    const parsed = text === undefined ? undefined : parseChipQr(text);
    if (parsed) {
      qr = { text: parsed.text, issueDate: parsed.issueDate, disagree: applyChipQr(layout, normal, parsed, fieldProbability) };
      guideAddressByCode(layout, raw, normal, parsed.address);
      expiryFromCode(layout, normal, parsed);
    }
    lap('qr');
  }
  const fields: ReadCard['fields'] = {};
  for (const f of wanted) {
    const v = normal.fields[f];
    if (v) fields[f] = { value: v.value, prob: fieldProbability(v) };
  }
  const probs = wanted.map((f) => fields[f]?.prob ?? 0);
  const images = await cardImages(task, layout, flat);
  lap('answer');
  const a = normal.address;
  return {
    ok: true,
    kind,
    fields,
    addressEntities: layout.fields.includes('address')
      ? { province: a?.province ?? '', district: a?.district ?? '', ward: a?.ward ?? '', street: a?.street ?? '' }
      : undefined,
    overall: overallScore(probs),
    mrz: mrz ? { id: mrz.id, dob: mrz.dob, doe: mrz.doe, sex: mrz.sex, valid: mrz.valid, lines: mrz.lines } : undefined,
    qr,
    face: images.face,
    card: images.card,
    printed: printedTexts(words, kind),
    corners,
    timings,
  };
}
