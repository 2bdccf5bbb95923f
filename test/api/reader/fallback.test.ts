/**
 * The npm fallback engine (tesseract.js + @tesseract.js-data/vie), forced with
 * SAOLA_READER_OCR_ENGINE=js: the same card reads the same, and /readyz says which engine runs (and that the
 * line recogniser reads names beside it).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../../../fixtures/servers/app.js';
import { hasProgram, needsPrograms } from '../../support/programs.js';
import { fixture, postForm, truth } from '../../support/reader/helpers.js';

describe('reader with the tesseract.js fallback', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ env: { SAOLA_READER_OCR_ENGINE: 'js' } });
  });
  after(async () => t.close());

  it('reads the chip card front and reports the engine in /readyz', async () => {
    const ready = (await (await fetch(`${t.url}/readyz`)).json()) as { checks: { reader: { ocr: string; names: string } } };
    assert.match(ready.checks.reader.ocr, /tesseract\.js/);
    assert.equal(ready.checks.reader.names, 'Tesseract and the line recogniser');
    const { body } = await postForm(`${t.url}/vision/idr/vnm`, t.apiKey, { image: fixture('chip-front.jpg') });
    assert.equal(body.errorCode, 0, body.errorMessage);
    const want = truth['chip-front'].fields;
    for (const f of ['id', 'name', 'dob', 'sex', 'nationality', 'home', 'address']) assert.equal(body.data[0][f], want[f], f);
    assert.equal(body.data[0].type, 'chip_front');
  });
});

describe('reader with the native tesseract', { skip: needsPrograms('tesseract') }, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ env: { SAOLA_READER_OCR_ENGINE: 'native' } });
  });
  after(async () => t.close());
  it('reports the Debian program in /readyz', async () => {
    const ready = (await (await fetch(`${t.url}/readyz`)).json()) as { checks: { reader: { ocr: string } } };
    assert.match(ready.checks.reader.ocr, /^tesseract \(Debian/);
  });
});

describe('reader asked for the native tesseract on a machine without it', { skip: hasProgram('tesseract') && 'the tesseract program is installed here' }, () => {
  it('refuses to start, naming the setting, instead of failing every read', async () => {
    await assert.rejects(startTestApp({ env: { SAOLA_READER_OCR_ENGINE: 'native' } }), /SAOLA_READER_OCR_ENGINE=native/);
  });
});
