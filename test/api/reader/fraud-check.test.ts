/**
 * The guide's fraud check: its measurements on generated images (a colour
 * card against its black-and-white copies; a flat pattern against a screen's
 * periodic grid), the checking_result it builds (N/A where Saola measures
 * nothing) and POST /vision/vnm/id-fraudcheck end to end on the committed
 * synthetic card photos.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { startTestApp, type TestApp } from '../../../fixtures/servers/app.js';
import { checkingMeasures, checkingResult, PHOTOCOPY_SPREAD, RECAPTURE_MOIRE } from '../../../src/reader/fraud-check.js';
import { colourSpread, measureFraudTask, patchMoire } from '../../../src/reader/fraud-measures.js';
import type { ReadCard } from '../../../src/reader/pipeline/run.js';
import { postCheck } from '../../../src/reader/post-check.js';
import { printedTexts } from '../../../src/reader/pipeline/kind.js';
import type { CardWord } from '../../../src/reader/pipeline/anchors.js';
import { fixture, postForm, truth } from '../../support/reader/helpers.js';

const task = (image: Buffer) => ({ image, maxPixels: 40_000_000, minCardArea: 0.12 });

/** A multipart form whose field names may repeat (the two sides as two `image` parts). */
async function postImages(
  url: string,
  apiKey: string,
  images: Buffer[],
): Promise<{ status: number; body: { errorCode: number; errorMessage: string; data: Record<string, any>[] } }> {
  const form = new FormData();
  images.forEach((b, i) => form.append('image', new Blob([new Uint8Array(b)], { type: 'image/jpeg' }), `side${i}.jpg`));
  const res = await fetch(url, { method: 'POST', body: form, headers: { api_key: apiKey } });
  return { status: res.status, body: (await res.json()) as never };
}

describe('fraud check measurements', () => {
  it('colour spread: the card has colour, its grey copy none, also under a tinted light', async () => {
    const card = fixture('chip-front.jpg');
    const colour = await measureFraudTask(task(card));
    assert.ok(colour.ok && colour.measures.colourSpread > PHOTOCOPY_SPREAD, JSON.stringify(colour));
    assert.equal(checkingMeasures(colour.measures).photocopied.result, '0');
    for (const copy of [await sharp(card).greyscale().jpeg().toBuffer(), await sharp(card).greyscale().tint({ r: 255, g: 225, b: 185 }).jpeg().toBuffer()]) {
      const grey = await measureFraudTask(task(copy));
      assert.ok(grey.ok && grey.measures.colourSpread < PHOTOCOPY_SPREAD, JSON.stringify(grey));
      assert.equal(checkingMeasures(grey.measures).photocopied.result, '1');
    }
  });

  it('colourSpread counts only the masked pixels', () => {
    // Left half grey, right half a saturated red: the mask decides what is measured.
    const w = 10;
    const h = 4;
    const rgb = new Uint8Array(w * h * 3);
    for (let i = 0; i < w * h; i++) {
      const red = i % w >= 5;
      rgb.set(red ? [220, 30, 30] : [128, 128, 128], i * 3);
    }
    const left = new Uint8Array(w * h).map((_, i) => (i % w < 5 ? 1 : 0));
    assert.equal(colourSpread(rgb, w, h, left), 0);
    assert.equal(colourSpread(rgb, w, h), 190 - 0, 'whole: the top 5% red (190) over a grey median (0)');
  });

  it('moiré: a periodic grid is an isolated spectral peak; noise and a smooth gradient are not', () => {
    const n = 128;
    const grid = new Float64Array(n * n);
    const noise = new Float64Array(n * n);
    const gradient = new Float64Array(n * n);
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let y = 0; y < n; y++) {
      for (let x = 0; x < n; x++) {
        // A screen's grid seen slightly turned: a plane wave at about 0.3 cycles/pixel, plus some sensor noise.
        grid[y * n + x] = 128 + 60 * Math.cos(2 * Math.PI * (0.29 * x + 0.07 * y)) + 10 * (rand() - 0.5);
        noise[y * n + x] = 128 + 40 * (rand() - 0.5);
        gradient[y * n + x] = x + y;
      }
    }
    assert.ok(patchMoire(grid) > RECAPTURE_MOIRE, String(patchMoire(grid)));
    assert.ok(patchMoire(noise) < RECAPTURE_MOIRE, String(patchMoire(noise)));
    assert.ok(patchMoire(gradient) < RECAPTURE_MOIRE, String(patchMoire(gradient)));
    assert.equal(checkingMeasures({ cardFound: true, colourSpread: 50, moire: RECAPTURE_MOIRE * 2 }).recaptured.result, '1');
    assert.equal(checkingMeasures({ cardFound: true, colourSpread: 50, moire: RECAPTURE_MOIRE / 2 }).recaptured.result, '0');
  });

  it('printed texts: the headline lines and the side title found in OCR words, a slip allowed; backs have none', () => {
    const words = (text: string) => text.split(' ').map((w) => ({ text: w }) as CardWord);
    const chip = printedTexts(
      words('CỘNG HOÀ XÃ HỘI CHỦ NGHĨA VIỆT NAM Độc lập - Tự do - Hạnh phúc CĂN CƯỚC CÔNG DÂN Citizen Identity Card Số / No.'),
      'cccd_chip_front',
    );
    assert.deepEqual(chip, { headline: [true, true], title: [true, true] });
    const covered = printedTexts(words('CỘNG HÒA XÃ HỘI CHU NGHIA VIET NAM Số Họ và tên'), 'cccd_12_front');
    assert.deepEqual(covered, { headline: [true, false], title: [false, undefined] });
    assert.equal(printedTexts(words('CỘNG HÒA XÃ HỘI CHỦ NGHĨA VIỆT NAM'), 'cccd_chip_back'), undefined);
  });

  it('checking_result: measured checks carry their score, the others N/A; low scores and the MRZ from the reading', () => {
    const card = {
      ok: true,
      kind: 'cccd_chip_back',
      fields: { issue_date: { value: '10/05/2021', prob: 95 }, features: { value: 'Nốt ruồi', prob: 62 } },
      overall: 80,
      mrz: { id: '', dob: '', doe: '', sex: '', valid: true },
      corners: [],
      timings: {},
    } as unknown as ReadCard;
    const r = checkingResult(card, { cardFound: true, colourSpread: 40, moire: 0.5 });
    assert.equal(r.check_photocopied_result, '0');
    assert.equal(r.check_photocopied_prob, (PHOTOCOPY_SPREAD / (PHOTOCOPY_SPREAD + 40)).toFixed(2));
    assert.equal(r.recaptured_result, '0');
    assert.equal(r.check_mrz_result, 'passed');
    assert.deepEqual(r.low_score_result, ['features']);
    for (const k of [
      'edited',
      'check_emblem',
      'check_title',
      'check_headline',
      'check_QRcode',
      'check_chip',
      'check_fingerprint',
      'check_stamp',
      'check_covering',
      'corner_cut',
    ])
      assert.equal(r[`${k}_result`], 'N/A', k);
    const front = checkingResult({ ...card, kind: 'cccd_chip_front', mrz: undefined, printed: { headline: [true, false], title: [true, true] } } as ReadCard, {
      cardFound: true,
      colourSpread: 40,
      moire: 0.5,
    });
    assert.equal(front.check_mrz_result, 'N/A', 'a front has no MRZ');
    assert.deepEqual([front.check_headline_result, front.check_headline_prob], ['passed', '0.50'], "one headline line read: enough on a chip card (the guide's 0.1)");
    const barcode = checkingResult({ ...card, kind: 'cccd_12_front', mrz: undefined, printed: { headline: [true, false], title: [true, undefined] } } as ReadCard, {
      cardFound: true,
      colourSpread: 40,
      moire: 0.5,
    });
    assert.deepEqual([barcode.check_headline_result, barcode.check_headline_prob], ['failed', '0.50'], 'not on the others (0.7)');
    assert.deepEqual([front.check_title_result, front.check_title_prob], ['passed', ['1.00', '1.00']]);
    const old = checkingResult({ ...card, kind: 'cmnd_09_front', mrz: undefined, printed: { headline: [true, true], title: [false, undefined] } } as ReadCard, {
      cardFound: true,
      colourSpread: 40,
      moire: 0.5,
    });
    assert.deepEqual([old.check_headline_result, old.check_title_result, old.check_title_prob], ['passed', 'failed', ['0.00']]);
  });
});

describe('POST /vision/vnm/id-fraudcheck', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());
  const url = () => `${t.url}/vision/vnm/id-fraudcheck`;

  it("replays the guide's sample (image and face=1): the reading with checking_result, the face and the card crop, then the post-check", async () => {
    const { status, body } = await postForm(url(), t.apiKey, { image: fixture('cccd12-front.jpg'), face: '1' });
    assert.equal(status, 200);
    assert.equal(body.errorCode, 0, body.errorMessage);
    assert.equal(body.data.length, 2);
    const [item, post] = body.data as [Record<string, any>, Record<string, any>];
    const want = truth['cccd12-front'];
    assert.equal(item.id, want.fields.id);
    assert.equal(item.type_new, 'cccd_12_front');
    assert.equal(item.checking_result.check_photocopied_result, '0');
    assert.equal(item.checking_result.recaptured_result, '0');
    assert.equal(item.checking_result.edited_result, 'N/A');
    // The synthetic card prints its headline and title, and the reader read them.
    assert.equal(item.checking_result.check_headline_result, 'passed');
    assert.deepEqual([item.checking_result.check_title_result, item.checking_result.check_title_prob], ['passed', ['1.00']]);
    assert.ok(Array.isArray(item.checking_result.low_score_result));
    const crop = await sharp(Buffer.from(item.cropped_idcard_base64, 'base64')).metadata();
    assert.equal(crop.format, 'jpeg');
    assert.ok(crop.width! > crop.height!, 'the card, landscape');
    assert.match(item.cropped_idcard, /\/cmt\/faces\/[0-9a-f-]{36}\.jpg$/);
    const served = await fetch(item.cropped_idcard.replace(/^https?:\/\/[^/]+/, t.url));
    assert.equal(served.status, 200);
    assert.equal((await sharp(Buffer.from(item.face_base64, 'base64')).metadata()).format, 'jpeg');
    // The post-check of what was read equals the rules applied to the card as printed (read correctly).
    assert.deepEqual(post, { post_check_result: postCheck([{ kind: want.kind as never, fields: want.fields }]) });
    assert.deepEqual(post.post_check_result, { result: 'Passed', code: 'E00', message: '' });
  });

  it('a card past its expiry fails the post-check with E10; a grey copy is called photocopied', async () => {
    const { body } = await postForm(url(), t.apiKey, { image: fixture('chip-front.jpg') });
    assert.equal(body.errorCode, 0, body.errorMessage);
    assert.deepEqual((body.data[1] as Record<string, unknown>).post_check_result, { result: 'Failed', code: 'E10', message: 'ID card has been expired' });
    assert.equal(body.data[0].face, undefined, 'no face without face=1');
    const grey = await postForm(url(), t.apiKey, { image: await sharp(fixture('cccd12-front.jpg')).greyscale().jpeg().toBuffer() });
    assert.equal((grey.body.data[0].checking_result as Record<string, string>).check_photocopied_result, '1');
  });

  it("a card's two sides as two image parts: an item per side, then the post-check over both (pair rules, E15)", async () => {
    const front = truth['cccd12-front'];
    const back = truth['cccd12-back-near-edge'];
    const pair = await postImages(url(), t.apiKey, [fixture('cccd12-front.jpg'), fixture('cccd12-back-near-edge.jpg')]);
    assert.equal(pair.body.errorCode, 0, pair.body.errorMessage);
    assert.equal(pair.body.data.length, 3);
    assert.equal(pair.body.data[0].type_new, 'cccd_12_front');
    assert.equal(pair.body.data[1].issue_date, back.fields.issue_date);
    const expected = postCheck([
      { kind: front.kind as never, fields: front.fields },
      { kind: back.kind as never, fields: back.fields },
    ]);
    assert.deepEqual(pair.body.data[2], { post_check_result: expected });
    // The two synthetic cards are different people's: the pair's expiry rule fails, which one side alone cannot show.
    assert.equal(postCheck([{ kind: front.kind as never, fields: front.fields }]).code, 'E00');
    assert.notEqual(expected.code, 'E00');
    const mixed = await postImages(url(), t.apiKey, [fixture('chip-front.jpg'), fixture('cccd12-back-near-edge.jpg')]);
    assert.deepEqual(mixed.body.data[2], {
      post_check_result: { result: 'Failed', code: 'E15', message: 'Please send images of front and back side of same type ID (old or new ID)' },
    });
    const three = await postImages(url(), t.apiKey, [fixture('chip-front.jpg'), fixture('chip-front.jpg'), fixture('chip-front.jpg')]);
    assert.equal(three.body.errorCode, 1);
  });

  it('quality_check=1: a failed check answers only the quality result; refusals keep the recognition codes', async () => {
    const blurred = await sharp(fixture('cccd12-front.jpg')).blur(6).jpeg().toBuffer();
    const { body } = await postForm(`${url()}?quality_check=1`, t.apiKey, { image: blurred });
    assert.equal(body.data.length, 1);
    assert.equal((body.data[0].final_result as Record<string, string>).blurredLikelihood, 'likely');
    const notImage = await postForm(url(), t.apiKey, { image: Buffer.from('no image here, only words') });
    assert.deepEqual(notImage.body, { errorCode: 7, errorMessage: 'The uploaded file is not an image', data: [] });
    const noKey = await postForm(url(), undefined, { image: fixture('cccd12-front.jpg') });
    assert.equal(noKey.status, 401);
  });
});
