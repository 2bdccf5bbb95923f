/**
 * The name stage in the pipeline: a front is read with the committed line recogniser by default (the name's line
 * read a second time), not when the task turns it off, and the service's setting reaches the task.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { makeSample } from '../../../fixtures/cards/synth.js';
import { chooseOcrEngine } from '../../../src/reader/pipeline/ocr.js';
import { readCard, type NameStageView } from '../../../src/reader/pipeline/run.js';
import { loadReaderConfig } from '../../../src/reader/config.js';

const ocr = chooseOcrEngine('auto');
after(() => ocr.close());

describe('name stage', () => {
  it('reads the name line again with the committed recogniser unless the task says not', async () => {
    const sample = await makeSample(7301, 'cccd_chip_front');
    const task = { image: sample.photo.jpeg, face: false, maxPixels: 4e7, minCardArea: 0.12 };
    let seen: NameStageView | undefined;
    const r = await readCard(task, ocr, { onNameStage: (v) => (seen = v) });
    assert.ok(r.ok, 'the card is read');
    assert.ok(seen, 'the name stage ran');
    assert.ok(seen.network && seen.network.text.length > 0, 'the network read the name line');
    let again = false;
    const off = await readCard({ ...task, lineRecogniser: false }, ocr, { onNameStage: () => (again = true) });
    assert.ok(off.ok);
    assert.equal(again, false, 'no name stage with the recogniser turned off');
  });

  it('SAOLA_READER_LINE_RECOGNISER turns it off; it is on by default', () => {
    assert.equal(loadReaderConfig({}).lineRecogniser, true);
    assert.equal(loadReaderConfig({ SAOLA_READER_LINE_RECOGNISER: 'false' }).lineRecogniser, false);
  });
});
