/** Words of drawn card lines for the anchoring tests: what OCR would hand the reader, without an image. */
import { DOCUMENTS } from '../../../src/reader/documents/id-card/model.js';
import { assignValues, findLabels, segmentLines, type CardWord } from '../../../src/reader/pipeline/anchors.js';

/** Words of one printed line: text split at spaces, laid left to right from x at height y (letters `h` px tall). */
export function line(text: string, x: number, y: number, conf = 95, h = 20): CardWord[] {
  const out: CardWord[] = [];
  let left = x;
  for (const t of text.split(' ')) {
    const width = t.length * 11;
    out.push({ text: t, conf, left, top: y, width, height: h });
    left += width + 7;
  }
  return out;
}

/** Lines, labels and values of a card kind's words, each value as its words' text joined by spaces. */
export function readWords(kind: keyof typeof DOCUMENTS, words: CardWord[]) {
  const segments = segmentLines(words);
  const hits = findLabels(segments, DOCUMENTS[kind]);
  const values = assignValues(segments, hits, DOCUMENTS[kind]);
  const text = Object.fromEntries(Object.entries(values).map(([f, v]) => [f, v!.words.map((w) => w.text).join(' ')]));
  return { segments, hits, values, text };
}
