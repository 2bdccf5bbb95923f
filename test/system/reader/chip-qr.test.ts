/**
 * The chip front's QR code through the whole pipeline (Tesseract runs): a synthetic card photographed with a
 * real code of its own values answers the code's values and text; a code that names another id than the
 * printed one fails the fraud check's QR check; a printed address word the code spells otherwise takes the code's
 * spelling, without the code's extra register words.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { makeSample, photograph, seededRng } from '../../../fixtures/cards/synth.js';
import { chipQrText, withQr } from '../../../fixtures/cards/qr.js';
import { chooseOcrEngine } from '../../../src/reader/pipeline/ocr.js';
import { readCard, type ReadCard } from '../../../src/reader/pipeline/run.js';
import { checkingResult } from '../../../src/reader/fraud-check.js';
import type { FraudMeasures } from '../../../src/reader/fraud-measures.js';

const ocr = chooseOcrEngine('auto');
after(() => ocr.close());

/** A chip front photographed with a code of `text` printed over its QR area. */
async function photoWithQr(seed: number, text: (truth: Record<string, string>) => string) {
  const sample = await makeSample(seed, 'cccd_chip_front');
  const truth = sample.truth.fields as Record<string, string>;
  const card = await withQr(sample.flat, { x: 822, y: 20, w: 156 }, text(truth));
  const photo = await photograph(card, seededRng(seed + 1));
  return { truth, jpeg: photo.jpeg };
}

async function read(jpeg: Uint8Array): Promise<ReadCard> {
  const r = await readCard({ image: jpeg, face: false, maxPixels: 4e7, minCardArea: 0.12 }, ocr);
  assert.ok(r.ok, 'the card is read');
  return r;
}

const measures: FraudMeasures = { cardFound: true, colourSpread: 40, moire: 0 };

describe('chip front QR code in the pipeline', () => {
  it("answers the code's values, vouched for, and its text; the QR check passes", async () => {
    const { truth, jpeg } = await photoWithQr(7101, (t) => chipQrText({ id: t.id, name: t.name, dob: t.dob, sex: t.sex, address: t.address }));
    const r = await read(jpeg);
    assert.equal(r.kind, 'cccd_chip_front');
    assert.ok(r.qr, 'the code is read');
    assert.equal(r.qr.text.split('|')[0], truth.id);
    assert.deepEqual(r.qr.disagree, []);
    for (const f of ['id', 'name', 'dob', 'sex'] as const) {
      assert.equal(r.fields[f]?.value, truth[f], f);
      assert.ok((r.fields[f]?.prob ?? 0) >= 95, `${f} vouched for`);
    }
    assert.equal(checkingResult(r, measures).check_QRcode_result, 'passed');
  });

  it('a code naming another id than the one printed fails the QR check', async () => {
    const other = (id: string) => id.slice(0, 8) + String((Number(id.slice(8)) + 1111) % 10000).padStart(4, '0');
    const { truth, jpeg } = await photoWithQr(7102, (t) => chipQrText({ id: other(t.id), name: t.name, dob: t.dob, sex: t.sex, address: t.address }));
    const r = await read(jpeg);
    assert.ok(r.qr, 'the code is read');
    assert.equal(r.fields.id?.value, other(truth.id));
    assert.deepEqual(r.qr.disagree, ['id']);
    const checks = checkingResult(r, measures);
    assert.equal(checks.check_QRcode_result, 'failed');
    assert.equal(checks.check_QRcode_prob, '0.00');
  });

  it("spells a printed address word as the code does, adding none of the code's register words", async () => {
    // The code in the register's wording ("Số Nhà", "Đường") and its house number one digit off: as if OCR had
    // misread the printed number, the answer takes the code's and keeps the printed wording.
    const other = (n: string) => String((Number(n) % 10 === 9 ? Number(n) - 1 : Number(n) + 1));
    const register = (address: string) => address.replace(/^Số (\d+) /, (_, n: string) => `Số Nhà ${other(n)} Đường `);
    const { truth, jpeg } = await photoWithQr(7104, (t) => chipQrText({ id: t.id, name: t.name, dob: t.dob, sex: t.sex, address: register(t.address) }));
    const number = /^Số (\d+) /.exec(truth.address)?.[1];
    assert.ok(number, 'the generated address starts with a house number');
    const r = await read(jpeg);
    assert.ok(r.qr, 'the code is read');
    const want = truth.address.replace(`Số ${number} `, `Số ${other(number)} `);
    assert.equal(r.fields.address?.value.replace(/,/g, ''), want.replace(/,/g, ''));
    assert.ok((r.fields.address?.prob ?? 100) < 80, 'the address is not vouched for by the code');
  });
});
