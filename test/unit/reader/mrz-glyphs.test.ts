/**
 * The MRZ filler told by its shape (pipeline/mrz-glyphs.ts): chevrons found among drawn glyphs (K, C and
 * X beside them are not chevrons), and OCR lines set on the cells (a chevron read as K, or as an added
 * "<K", becomes filler; letters elsewhere stay).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { fillerCells, withFillers } from '../../../src/reader/pipeline/mrz-glyphs.js';

const LETTER = 34;

/** A line of text drawn in a monospaced font, binarised (0 = ink). */
async function drawn(lines: string[]): Promise<{ raw: Buffer; w: number; h: number }> {
  const w = 40 + lines[0].length * 26;
  const h = 30 + lines.length * 56;
  const texts = lines
    .map((l, i) => `<text x="20" y="${60 + i * 56}" font-family="DejaVu Sans Mono" font-size="44" fill="#000">${l.replace(/</g, '&lt;')}</text>`)
    .join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="100%" height="100%" fill="#fff"/>${texts}</svg>`;
  const raw = await sharp(Buffer.from(svg)).greyscale().threshold(128).raw().toBuffer();
  return { raw, w, h };
}

describe('MRZ filler cells', () => {
  it('finds the chevrons of each line and no K, C or X', async () => {
    const lines = ['P<UTOKACK<<XAVIER<CK<<<<<<', 'K12C4<<<X8<<C<<<<<<<<<KK06'];
    const { raw, w, h } = await drawn(lines);
    const cells = fillerCells(raw, w, h, lines[0].length, LETTER);
    assert.equal(cells.length, 2);
    lines.forEach((l, i) =>
      assert.deepEqual(
        cells[i],
        [...l].map((c) => c === '<'),
        l,
      ),
    );
  });

  it('says nothing of a line whose glyphs do not count to the cells', async () => {
    const { raw, w, h } = await drawn(['P<UTOKACK<<XAVIER<CK<<<<<<']);
    assert.deepEqual(fillerCells(raw, w, h, 30, LETTER), [undefined]);
  });

  it('sets an OCR line on the cells: chevrons read as K are filler, an added K beside a filler drops', () => {
    const cells = [...'P<UTOERIKSSON<<ANNA<MARIA<<<<<'].map((c) => c === '<');
    assert.equal(withFillers('P<UTOERIKSSON<K<ANNA<MARIAKKKKK', cells), 'P<UTOERIKSSON<<ANNA<MARIA<<<<<');
    assert.equal(withFillers('P<UTOERIKSSON<<ANNA<KMARIA<<<<<', cells), 'P<UTOERIKSSON<<ANNA<MARIA<<<<<');
    // A K that is a letter stays a letter.
    const kay = [...'P<UTOKAY<<K<<<'].map((c) => c === '<');
    assert.equal(withFillers('P<UTOKAYK<K<<K', kay), 'P<UTOKAY<<K<<<');
  });
});
