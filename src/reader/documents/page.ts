/**
 * The stages every non-ID-card document (passport data page, driving licence)
 * shares: decode -> quality -> locate (and refine) -> warp -> whole-page OCR,
 * tried upright then turned by 180 degrees until the page's words say it is
 * the document asked for -> lines by geometry and labels as anchors of the
 * document's model. Built on the ID card reader's own stages (pipeline/*).
 */
import sharp from 'sharp';
import type { DocumentModel } from './model.js';
import { assignValues, findLabels, segmentLines, splitUnderLabels, type AnchoredValue, type CardWord, type LabelHit, type Segment } from '../pipeline/anchors.js';
import { decodeImage, type DecodedImage } from '../pipeline/decode.js';
import { ReaderFailure } from '../pipeline/failure.js';
import { checkCornersInside, locateCard } from '../pipeline/locate.js';
import type { Point } from '../../platform/vision/card-outline.js';
import type { OcrEngine } from '../pipeline/ocr.js';
import { checkQuality } from '../pipeline/quality.js';
import { refineCorners } from '../pipeline/refine.js';
import { detectedReading, wholeCardReader, type ReadTask } from '../pipeline/run.js';
import { clearCardEdge, rotate180, warpCard } from '../pipeline/warp.js';

export interface PageOptions<K> {
  /**
   * Read the page's lines as the ID card reader does (run.ts detectedReading: the text detector's lines, the way up
   * its direction classifier says, each line read on its own), the whole-page sparse reading only when those lines
   * do not name the document or name a kind this does not accept. Sparse reading cuts a slanted or italic line (a
   * licence's issue line) into pieces; the detector's lines lose a lone letter (a paper licence back's class).
   */
  detectedLines?: (kind: K) => boolean;
}

export interface FlatPage<K> {
  /** The flat page (CARD_WIDTH x CARD_HEIGHT gray), the right way up. */
  gray: Buffer;
  words: CardWord[];
  /** What `recognise` said of the words. */
  kind: K;
  /** The page was read turned by 180 degrees from its corners' order. */
  turned: boolean;
}

/** Whether the whole photo, unwarped, says it is the document (asked only when the outline runs off the frame). */
async function photoSays<K>(ocr: OcrEngine, gray: Buffer, width: number, height: number, recognise: (words: CardWord[]) => K | undefined): Promise<boolean> {
  const scale = Math.min(1, 1600 / width);
  const png = await sharp(gray, { raw: { width, height, channels: 1 } })
    .resize(Math.round(width * scale))
    .png()
    .toBuffer();
  const words = await ocr.recognize(png, { lang: 'vie', psm: 11 });
  return recognise(words.map((w) => ({ text: w.text, conf: w.conf, left: w.left, top: w.top, width: w.width, height: w.height }))) !== undefined;
}

/**
 * Finds, flattens and reads the page; `recognise` names the document from its
 * words (undefined: not this document). `decoded`: the photo already decoded (and turned) by the caller. Refusals are ReaderFailures: 3 when no
 * page says it is the document, 2 when it does but its corners are outside the photo.
 */
export async function readFlatPage<K>(
  task: ReadTask,
  ocr: OcrEngine,
  what: string,
  recognise: (words: CardWord[]) => K | undefined,
  lap: (name: string) => void,
  decoded?: DecodedImage,
  options: PageOptions<K> = {},
): Promise<FlatPage<K>> {
  const image = decoded ?? (await decodeImage(Buffer.from(task.image.buffer, task.image.byteOffset, task.image.byteLength), task.maxPixels));
  checkQuality(image.gray, image.width, image.height);
  const located = await locateCard(image.gray, image.width, image.height, task.minCardArea);
  const corners = located.whole ? located.corners : refineCorners(image.gray, image.width, image.height, located.corners);
  if (!located.whole) {
    try {
      checkCornersInside(corners, image.width, image.height);
    } catch (err) {
      // "Corners missing" is only true of a document: a photo whose outline runs off the frame
      // and that says nothing of one anywhere (a face, a room) has no document at all.
      if (err instanceof ReaderFailure && err.code === 2 && !(await photoSays(ocr, image.gray, image.width, image.height, recognise))) {
        throw new ReaderFailure(3, `No ${what} found in the image`);
      }
      throw err;
    }
  }
  lap('locate');
  return readPageAt(image, corners, ocr, what, recognise, lap, options);
}

/**
 * The page at `corners` (clockwise from its top-left, up to 180 degrees) flattened and read, upright then turned,
 * until its words say it is the document; a ReaderFailure (3) when neither way does.
 */
export async function readPageAt<K>(
  image: DecodedImage,
  corners: [Point, Point, Point, Point],
  ocr: OcrEngine,
  what: string,
  recognise: (words: CardWord[]) => K | undefined,
  lap: (name: string) => void,
  options: PageOptions<K> = {},
): Promise<FlatPage<K>> {
  const upright = await warpCard(image, corners, false);
  clearCardEdge(upright.gray);
  lap('warp');
  if (options.detectedLines) {
    let turnedGray: Buffer | undefined;
    const turned = () => ({ gray: (turnedGray ??= rotate180(upright.gray, 1)) });
    const detected = await detectedReading(ocr, upright.gray, turned);
    lap('detect');
    const kind = detected && recognise(detected.words);
    if (detected && kind !== undefined && options.detectedLines(kind)) {
      lap('ocr');
      return { gray: detected.way === 'up' ? upright.gray : turned().gray, words: detected.words, kind, turned: detected.way === 'down' };
    }
  }
  const readWhole = wholeCardReader(ocr, upright.gray);
  for (const way of ['up', 'down'] as const) {
    const words = await readWhole(way);
    const kind = recognise(words);
    if (kind !== undefined) {
      lap('ocr');
      return { gray: way === 'up' ? upright.gray : rotate180(upright.gray, 1), words, kind, turned: way === 'down' };
    }
  }
  throw new ReaderFailure(3, `No ${what} found in the image`);
}

export interface Anchored<F extends string> {
  segments: Segment[];
  hits: LabelHit<F>[];
  values: Partial<Record<F, AnchoredValue<F>>>;
}

/** Labels of the model found among the page's lines, and the value each anchors. */
export function anchorPage<F extends string>(words: CardWord[], model: DocumentModel<F>): Anchored<F> {
  let segments = segmentLines(words);
  let hits = findLabels(segments, model);
  const split = splitUnderLabels(segments, hits);
  if (split !== segments) {
    segments = split;
    hits = findLabels(segments, model);
  }
  return { segments, hits, values: assignValues(segments, hits, model) };
}

/** A value the anchors left unassigned: the text line right under its label, starting where it starts. */
export function lineUnder<F extends string>(a: Anchored<F>, hit: LabelHit<F>): Segment | undefined {
  return a.segments.find(
    (g) =>
      g.top >= hit.box.y + 0.4 * hit.box.h &&
      g.top <= hit.box.y + 3 * hit.box.h &&
      Math.abs(g.left - hit.box.x) <= 30 &&
      !a.hits.some((h) => a.segments[h.segment] === g),
  );
}
