/**
 * Every code of the guide's /ocr and /face/liveness tables that a stage's
 * verdict decides, reached through the service with the stages' public
 * results driven by fakes (the seam: `EkycStages`). The real post-check,
 * fraud verdict (`checkingResult` on the measures) and liveness rendering
 * (`renderV3`) run on them. The API and system suites reach the codes that
 * generated cards and faces provoke through the real engines.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, beforeEach, describe, it } from 'node:test';
import { loadEkycConfig } from '../../../src/ekyc/config.js';
import { LIVENESS_TEXT } from '../../../src/ekyc/errors.js';
import { ReviewStore } from '../../../src/ekyc/review-store.js';
import { EkycService, MAX_KEPT_REFUSED, type EkycStages } from '../../../src/ekyc/service.js';
import { deploymentFlowSettings, EkycSettingsStore } from '../../../src/ekyc/settings.js';
import { SqlEkycStore } from '../../../src/ekyc/store.js';
import { FsBlobStore } from '../../../src/platform/blobs/fs-store.js';
import { PlatformError, ServiceError } from '../../../src/platform/http/errors.js';
import type { CardKind, QualityResult, ReadCard } from '../../../src/reader/index.js';
import type { LivenessResult } from '../../../src/liveness/index.js';
import { useMigratedStore } from '../../support/store.js';

type Fields = Partial<Record<string, string>>;
type Likelihood = 'likely' | 'unlikely';

/** Each test runs as its own application, so one test's fraud memory never answers another's. */
let tests = 0;
let APP = 'app0';
const IMAGE = Buffer.from('image bytes: the fakes do not decode them');

/** A face embedding pointing along one axis: two of the same axis match, two different axes do not. */
function faceAlong(axis: number): Float32Array {
  const v = new Float32Array(512);
  v[axis] = 1;
  return v;
}

/** A card as the reader answers it, from its kind and fields (prob 99). */
function readCard(kind: CardKind, fields: Fields, mrz?: ReadCard['mrz']): ReadCard {
  const withProb = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, { value: v!, prob: 99 }]));
  return { ok: true, kind, fields: withProb, overall: 99, corners: [], timings: {}, ...(mrz ? { mrz } : {}) };
}

/** A man born 01/01/1990 in Hà Nội (province 001) with a valid citizen card; `over` changes fields. */
const FRONT: Fields = {
  id: '001090000001',
  name: 'NGUYEN VAN A',
  dob: '01/01/1990',
  sex: 'Nam',
  nationality: 'Việt Nam',
  home: 'Hà Nội',
  address: 'Hà Nội',
  doe: '01/01/2030',
};
const BACK: Fields = { features: 'Nốt ruồi', issue_date: '01/06/2015' };
/** A chip back's MRZ as read, valid, naming the number `id`. */
const mrz = (id: string): ReadCard['mrz'] => ({ id, dob: '900101', doe: '300101', sex: 'NAM', valid: true, lines: mrzLines(id) });
/** Made-up TD1 lines naming `id` (the flow answers them as read, never parses them). */
const mrzLines = (id: string) => [`IDVNM${id}0001090${id}<<0`, '9001014M3001013VNM<<<<<<<<<<<8', 'NGUYEN<<VAN<A<<<<<<<<<<<<<<<<<'];
const CHIP_BACK: Fields = { features: 'Nốt ruồi', issue_date: '01/06/2021' };

/** What each fake stage answers next; a test sets the parts it needs. */
interface Script {
  quality: Partial<Record<'lowResolutionLikelihood' | 'havingBrightSpotsLikelihood' | 'blurredLikelihood' | 'badLumimanceLikelihood', Likelihood>>;
  /** The reader's cards, one per side read, in order. */
  cards: ReadCard[];
  passport?: { fields: Fields };
  colourSpread: number;
  moire: number;
  /** The document portrait's embedding; undefined: no face found. */
  documentFace?: Float32Array;
  liveness?: LivenessResult;
  selfieFace?: Float32Array;
  /** What the reader throws instead of answering a card. */
  readError?: Error;
  /** Face search: each collection's hits by the image searched (undefined: no such collection), or what it throws. */
  search?: (collections: readonly string[], image: Buffer) => Map<string, { id: string; name: string; similarity: number }[] | undefined>;
}

function fakeStages(script: () => Script): EkycStages {
  const reader = {
    async checkQuality(): Promise<QualityResult> {
      const q = script().quality;
      const l = (k: keyof Script['quality']): Likelihood => q[k] ?? 'unlikely';
      return {
        bright_spots_score: '0',
        blur_score: '0',
        luminance_score: '0',
        resolution: '1400x900',
        final_result: {
          lowResolutionLikelihood: l('lowResolutionLikelihood'),
          havingBrightSpotsLikelihood: l('havingBrightSpotsLikelihood'),
          blurredLikelihood: l('blurredLikelihood'),
          badLumimanceLikelihood: l('badLumimanceLikelihood'),
        },
      };
    },
    async read(): Promise<ReadCard> {
      const error = script().readError;
      if (error) throw error;
      const card = script().cards.shift();
      if (!card) throw new Error('the script has no card to read');
      return card;
    },
    async readPassport() {
      const fields = script().passport?.fields ?? {};
      return { ok: true, kind: 'passport', overall: 99, timings: {}, fields: Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, { value: v, prob: 99 }])) };
    },
    async readLicence() {
      throw new Error('not in these tests');
    },
    async measureFraud() {
      return { cardFound: true, colourSpread: script().colourSpread, moire: script().moire };
    },
  };
  const faces = {
    async analyze() {
      const embedding = script().documentFace;
      return { ok: true, faces: [], rejected: [], rotation: 0, scale: 1, tiled: false, format: 'jpeg', width: 1, height: 1, ms: 1, primary: embedding && { embedding } };
    },
  };
  const liveness = {
    async check(_v: number, _files: unknown, trace: { analysis?: { embedding?: Float32Array } }) {
      trace.analysis = { embedding: script().selfieFace };
      return script().liveness!;
    },
  };
  const search = {
    async searchCollections(_app: string, collections: readonly string[], image: Buffer) {
      return script().search!(collections, image);
    },
  };
  return { reader, faces, liveness, search } as unknown as EkycStages;
}

const live = (similarity: number): LivenessResult => ({
  entry: { code: 200, message: 'Success', status: 200 },
  detail: '',
  decision: { prob: 0.95, isLive: true, needToReview: false },
  faceMatch: { isMatch: similarity >= 80, similarity },
  warnings: [],
});
const spoof: LivenessResult = { ...live(95), decision: { prob: 0.1, isLive: false, needToReview: false } };

describe('eKYC codes decided by the stages (fakes at the stage seam)', () => {
  const opened = useMigratedStore('sqlite', 'saola-ekyc-codes-');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-ekyc-codes-blobs-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  let script: Script;
  let service: EkycService;
  /** Face search's settings, over the deployment's (the other settings stay the stores'). */
  let faceSearch: { face_search_collections: string[]; face_search_top_k: number } | undefined;
  const blobs = new FsBlobStore(dir);
  beforeEach(() => {
    APP = `app${++tests}`;
    script = { quality: {}, cards: [], colourSpread: 60, moire: 0, documentFace: faceAlong(0) };
    const cfg = loadEkycConfig({});
    const stored = new EkycSettingsStore(opened().db, deploymentFlowSettings(cfg));
    faceSearch = undefined;
    const settings = { effective: async (app: string) => ({ ...(await stored.effective(app)), ...faceSearch }) };
    service = new EkycService(
      SqlEkycStore.over(opened().db),
      blobs,
      fakeStages(() => script),
      cfg,
      settings,
    );
  });

  const session = async () => (await service.init(APP, 'api', undefined))['session-id'] as string;
  const ocr = (sid: string, files: number, documentType = 'idr', sideType?: string) =>
    service.ocr(APP, { sessionId: sid, deviceType: 'api', documentType, sideType, lang: 'en', files: Array.from({ length: files }, () => IMAGE) });
  const codeOf = async (p: Promise<Record<string, unknown>>) => (await p).errorCode;
  /** A front alone with these fields. */
  const frontCode = async (fields: Fields, kind: CardKind = 'cccd_12_front') => {
    script.cards = [readCard(kind, fields)];
    return codeOf(ocr(await session(), 1, 'idr', 'front'));
  };
  /** A session whose front (this number, this portrait) and back passed: ready for its selfie. */
  const ready = async (id: string, face: number) => {
    script.documentFace = faceAlong(face);
    script.cards = [readCard('cccd_12_front', { ...FRONT, id }), readCard('cccd_12_back', BACK)];
    const sid = await session();
    assert.equal(await codeOf(ocr(sid, 2)), '0');
    return sid;
  };
  /** A front and a back sent together. */
  const pairCode = async (front: Fields, back: Fields, kinds: [CardKind, CardKind] = ['cccd_12_front', 'cccd_12_back'], mrz?: ReadCard['mrz']) => {
    script.cards = [readCard(kinds[0], front), readCard(kinds[1], back, mrz)];
    return codeOf(ocr(await session(), 2));
  };

  it('a valid front and back pass (the fakes are a valid card)', async () => {
    assert.equal(await pairCode(FRONT, BACK), '0');
  });

  it('the quality criteria in the guide order: QC01, QC02, QC03, QC04', async () => {
    const q = ['lowResolutionLikelihood', 'havingBrightSpotsLikelihood', 'blurredLikelihood', 'badLumimanceLikelihood'] as const;
    for (const [i, code] of ['QC01', 'QC02', 'QC03', 'QC04'].entries()) {
      // This criterion and every later one fail: the first is answered.
      script.quality = Object.fromEntries(q.slice(i).map((k) => [k, 'likely']));
      assert.equal(await frontCode(FRONT), code);
    }
  });

  it('E110: the side read is not the side named', async () => {
    assert.equal(await frontCode(BACK, 'cccd_12_back'), 'E110');
  });

  it('fraud: FC01 photocopy, FC02 recapture, FC05 no portrait, FC07 chip back without its MRZ', async () => {
    script.colourSpread = 0;
    assert.equal(await frontCode(FRONT), 'FC01');
    script.colourSpread = 60;
    script.moire = 10;
    assert.equal(await frontCode({ ...FRONT, id: '001090000002' }), 'FC02');
    script.moire = 0;
    script.documentFace = undefined;
    assert.equal(await frontCode({ ...FRONT, id: '001090000003' }), 'FC05');
    script.documentFace = faceAlong(1);
    assert.equal(await pairCode({ ...FRONT, id: '001090000004' }, CHIP_BACK, ['cccd_chip_front', 'cccd_chip_back']), 'FC07');
    script.cards = [readCard('cccd_chip_front', { ...FRONT, id: '001090000005' }), readCard('cccd_chip_back', CHIP_BACK, mrz('090000005'))];
    const passed = await ocr(await session(), 2);
    assert.equal(passed.errorCode, '0');
    // The chip back's MRZ item: its three lines as read.
    const item = (passed.data as { key: string; value: string; score: string }[]).find((d) => d.key === 'MRZ');
    assert.deepEqual(item && [item.value, item.score], [mrzLines('090000005').join('\n'), 'N/A']);
  });

  it('the fraud memory: DB01 for a remembered number, DB02 for a remembered portrait', async () => {
    script.colourSpread = 0;
    script.documentFace = faceAlong(7);
    assert.equal(await frontCode({ ...FRONT, id: '001090000010' }), 'FC01');
    script.colourSpread = 60;
    // The same number on a clean card, another face: DB01.
    script.documentFace = faceAlong(8);
    assert.equal(await frontCode({ ...FRONT, id: '001090000010' }), 'DB01');
    // Another number, the remembered face: DB02.
    script.documentFace = faceAlong(7);
    assert.equal(await frontCode({ ...FRONT, id: '001090000011' }), 'DB02');
  });

  it('the post-check of a front alone: E01-E11', async () => {
    const now = new Date().getFullYear();
    // Born on 1 January of `year`, a man: the id's century digit and year agree (E07, E08 pass).
    const born = (year: number): Fields => ({ dob: `01/01/${year}`, id: `001${year >= 2000 ? 2 : 0}${String(year).slice(2)}000001` });
    const cases: [string, Fields][] = [
      ['E01', { ...FRONT, home: '' }],
      ['E02', { ...FRONT, id: '999090000001' }],
      ['E03', { ...FRONT, dob: '1990-01-01' }],
      ['E04', { ...FRONT, ...born(now + 1) }],
      ['E05', { ...FRONT, ...born(now - 5) }],
      ['E06', { ...FRONT, nationality: 'Lào' }],
      ['E07', { ...FRONT, dob: '01/01/1991' }],
      ['E08', { ...FRONT, sex: 'Nữ' }],
      ['E09', { ...FRONT, doe: '2030-01-01' }],
      ['E10', { ...FRONT, doe: '01/01/2020' }],
      ['E11', { ...FRONT, doe: 'Không thời hạn' }],
    ];
    for (const [code, fields] of cases) assert.equal(await frontCode(fields), code, code);
  });

  it('the post-check of a back and of both sides: E12, E13, E15-E22, E30, E32', async () => {
    const now = new Date().getFullYear();
    const cases: [string, Fields, Fields, [CardKind, CardKind]?, ReadCard['mrz']?][] = [
      ['E12', FRONT, { ...BACK, issue_date: '2015' }],
      ['E13', FRONT, { ...BACK, issue_date: `01/01/${now + 1}` }],
      ['E15', FRONT, BACK, ['cccd_12_front', 'cmnd_09_back']],
      // Sent with its back, a front's blank field is E16.
      ['E16', { ...FRONT, home: '' }, BACK],
      ['E17', FRONT, { ...BACK, issue_date: '01/01/2000' }],
      ['E18', FRONT, BACK, ['cmnd_12_front', 'cmnd_12_back']],
      ['E19', { ...FRONT, doe: '01/01/2030' }, { ...BACK, issue_date: '01/06/2010' }],
      ['E20', { ...FRONT, doe: '01/01/2031' }, BACK],
      ['E21', { ...FRONT, dob: '01/01/1970', id: '001070000001', doe: '01/01/2031' }, BACK],
      ['E22', { ...FRONT, dob: '01/01/1950', id: '001050000001', doe: '01/01/2031' }, { ...BACK, issue_date: '01/06/2015' }],
      ['E30', FRONT, CHIP_BACK, ['cccd_chip_front', 'cccd_chip_back'], mrz('099999999')],
      ['E32', FRONT, { ...CHIP_BACK, issue_date: '01/06/2019' }, ['cccd_chip_front', 'cccd_chip_back'], mrz('090000001')],
    ];
    for (const [code, front, back, kinds, mrz] of cases) {
      // Each case its own number and face, so the fraud memory of one never answers another.
      script.documentFace = faceAlong(100 + Number(code.slice(1)));
      assert.equal(await pairCode({ ...front }, back, kinds, mrz), code, code);
    }
  });

  it('the passport rules: E23, E24, E25; E-1 when the post-check cannot run', async () => {
    const page = { passport_number: 'C1234567', name: 'NGUYEN VAN A', doe: '01/01/2035', dob: '01/01/1990' };
    const passport = async (fields: Fields) => {
      script.passport = { fields };
      return codeOf(ocr(await session(), 1, 'passport'));
    };
    assert.equal(await passport(page), '0');
    assert.equal(await passport({ ...page, doe: '01/01/2020' }), 'E23');
    assert.equal(await passport({ ...page, passport_number: '1234' }), 'E24');
    assert.equal(await passport({ ...page, name: 'nguyen van 4' }), 'E25');
    // A field the post-check cannot read (not text): the check throws, the flow answers E-1.
    assert.equal(await frontCode({ ...FRONT, home: 42 as unknown as string }), 'E-1');
  });

  it("refused sides are kept for the desk: the code, each check's result and measures, the image", async () => {
    const desk = ReviewStore.over(opened().db);
    const sid = await session();
    const front = (id: string) => [readCard('cccd_12_front', { ...FRONT, id })];
    script.quality = { blurredLikelihood: 'likely' };
    script.cards = front('001090000301');
    assert.equal(await codeOf(ocr(sid, 1, 'idr', 'front')), 'QC03');
    script.quality = {};
    script.colourSpread = 0;
    script.documentFace = faceAlong(301);
    script.cards = front('001090000302');
    assert.equal(await codeOf(ocr(sid, 1, 'idr', 'front')), 'FC01');
    script.colourSpread = 60;
    // A pair refused by the post-check: both sides are kept, each with the post-check's code.
    script.documentFace = faceAlong(302);
    script.cards = [readCard('cccd_12_front', { ...FRONT, id: '001090000303', home: '' }), readCard('cccd_12_back', BACK)];
    assert.equal(await codeOf(ocr(sid, 2)), 'E16');
    // A header refusal runs no check: nothing is kept.
    await assert.rejects(ocr(sid, 1, 'idr', 'back'), (err: { entry?: { code: string } }) => err.entry?.code === 'E101');

    const attempts = await desk.attempts(APP, sid);
    assert.deepEqual(
      attempts.map((a) => [a.side, a.code]),
      [
        ['front', 'QC03'],
        ['front', 'FC01'],
        ['front', 'E16'],
        ['back', 'E16'],
      ],
    );
    const checks = attempts.map((a) => JSON.parse(a.checks) as Record<string, Record<string, unknown>>);
    // QC03: the quality check failed with its measures; nothing after it ran.
    assert.deepEqual(Object.keys(checks[0]), ['quality']);
    assert.equal(checks[0].quality.result, 'failed');
    assert.equal((checks[0].quality.final_result as Record<string, string>).blurredLikelihood, 'likely');
    // FC01: quality, reading and portrait passed; the fraud measures failed it, with the reader's checking result.
    assert.deepEqual(Object.keys(checks[1]), ['quality', 'reading', 'portrait', 'fraud']);
    assert.deepEqual([checks[1].quality.result, checks[1].reading.result, checks[1].portrait.result], ['passed', 'passed', 'passed']);
    assert.deepEqual([checks[1].fraud.result, checks[1].fraud.code, checks[1].fraud.check_photocopied_result], ['failed', 'FC01', '1']);
    // E16: every check before the post-check passed.
    for (const c of checks.slice(2)) {
      assert.deepEqual(c.post_check, { result: 'failed', code: 'E16' });
      assert.deepEqual([c.quality.result, c.reading.result, c.fraud.result, c.fraud_memory.result], ['passed', 'passed', 'passed', 'passed']);
    }
    assert.equal(checks[3].reading.kind, 'cccd_12_back');
    // Each image is in the blob store under the session's prefix, as the image row the attempt names.
    for (const a of attempts) {
      const image = await desk.image(APP, sid, a.image_id!);
      assert.equal(image?.kind, a.side);
      assert.ok(image!.blob_key.startsWith(`ekyc/${sid}/`), image!.blob_key);
      const bytes: Buffer[] = [];
      for await (const chunk of await blobs.read(image!.blob_key)) bytes.push(Buffer.from(chunk as Buffer));
      assert.deepEqual(Buffer.concat(bytes), IMAGE);
    }
    // The session is still open and has no side: refused sides never count.
    const row = await desk.session(APP, sid);
    assert.deepEqual([row?.status, row?.front, row?.back], ['open', null, null]);
  });

  it('a session keeps the images of its first MAX_KEPT_REFUSED refused sides, and the codes and checks of all', async () => {
    const desk = ReviewStore.over(opened().db);
    const sid = await session();
    script.quality = { lowResolutionLikelihood: 'likely' };
    for (let i = 0; i < MAX_KEPT_REFUSED + 2; i++) assert.equal(await codeOf(ocr(sid, 1, 'idr', 'front')), 'QC01');
    const attempts = await desk.attempts(APP, sid);
    assert.equal(attempts.length, MAX_KEPT_REFUSED + 2);
    assert.equal(attempts.filter((a) => a.image_id !== null).length, MAX_KEPT_REFUSED);
    assert.deepEqual(
      attempts.slice(MAX_KEPT_REFUSED).map((a) => [a.code, a.image_id]),
      [
        ['QC01', null],
        ['QC01', null],
      ],
    );
    assert.equal((await desk.images(APP, sid)).length, MAX_KEPT_REFUSED);
  });

  it("input error 3 (the reader found no document) and the refusals the API suite does not reach: /ocr's device-type (400), a selfie before the front (E101)", async () => {
    const sid = await session();
    // The reader's own code 3 ("no card in the image"), as its service throws it.
    script.readError = new ServiceError({ code: 3, message: 'Unable to find ID card in the image', status: 400 });
    await assert.rejects(ocr(sid, 1, 'idr', 'front'), (err: { entry?: { code: string; status: number } }) => err.entry?.code === '3' && err.entry.status === 400);
    script.readError = undefined;
    await assert.rejects(
      service.ocr(APP, { sessionId: sid, deviceType: undefined, documentType: 'idr', sideType: 'front', lang: 'en', files: [IMAGE] }),
      (err: { entry?: { code: string; message: string } }) => err.entry?.code === '400' && /device/i.test(err.entry.message),
    );
    await assert.rejects(
      service.selfie(APP, { sessionId: sid, deviceType: 'api', lang: 'en', files: [{ field: 'selfies', filename: 's.jpg', mimetype: 'image/jpeg', data: IMAGE }] }),
      (err: { entry?: { code: string } }) => err.entry?.code === 'E101',
    );
  });

  it("liveness v3's codes reach the selfie's answer with the guide's texts: 406, 407, 408, 409, 410, 411, 412, 413, 422, 423", async () => {
    script.cards = [readCard('cccd_12_front', { ...FRONT, id: '001090000401' }), readCard('cccd_12_back', BACK)];
    script.documentFace = faceAlong(401);
    const sid = await session();
    assert.equal(await codeOf(ocr(sid, 2)), '0');
    const selfie = (lang: 'en' | 'vi' = 'en') =>
      service.selfie(APP, { sessionId: sid, deviceType: 'api', lang, files: [{ field: 'selfies', filename: 's.jpg', mimetype: 'image/jpeg', data: IMAGE }] });
    const outcome = (code: number): LivenessResult => ({ entry: { code, message: 'the liveness reason', status: 200 }, detail: 'the liveness reason', warnings: [] });
    script.selfieFace = faceAlong(402);
    // Four of the five attempts of an api session: the session stays open.
    for (const code of [406, 408, 410, 411]) {
      script.liveness = outcome(code);
      const answer = await selfie();
      assert.deepEqual([answer.code, answer.message, answer.is_complete_session], [String(code), LIVENESS_TEXT[String(code)].message, false]);
    }
    // Each attempt counts: the other codes on fresh sessions.
    for (const [i, code] of [412, 413, 422, 423, 409].entries()) {
      script.cards = [readCard('cccd_12_front', { ...FRONT, id: `00109000041${i}` }), readCard('cccd_12_back', BACK)];
      script.documentFace = faceAlong(410 + i);
      const other = await session();
      assert.equal(await codeOf(ocr(other, 2)), '0');
      script.liveness = outcome(code);
      const answer = await service.selfie(APP, {
        sessionId: other,
        deviceType: 'api',
        lang: 'vi',
        files: [{ field: 'selfies', filename: 's.jpg', mimetype: 'image/jpeg', data: IMAGE }],
      });
      assert.deepEqual([answer.code, answer.message], [String(code), LIVENESS_TEXT[String(code)].vi], String(code));
    }
    // 407: the selfie is live but liveness found no face in the document's portrait.
    script.liveness = { ...live(95), faceMatch: { error: { code: 407, message: 'No faces detected', status: 200 }, detail: '' } };
    const noPortrait = await selfie();
    assert.deepEqual([noPortrait.code, noPortrait.message], ['407', 'No faces detected in document']);
    assert.equal((noPortrait.face_match as Record<string, string>).code, '407');
  });

  it('face_search: each collection searched for the selfie and the portrait; a failed search leaves the selfie passed; busy is busy', async () => {
    faceSearch = { face_search_collections: ['members', 'missing'], face_search_top_k: 2 };
    const selfieBytes = Buffer.from('the selfie');
    const selfie = (sid: string) =>
      service.selfie(APP, { sessionId: sid, deviceType: 'api', lang: 'en', files: [{ field: 'selfies', filename: 's.jpg', mimetype: 'image/jpeg', data: selfieBytes }] });
    script.liveness = live(95);
    script.selfieFace = faceAlong(501);
    // The selfie's bytes find one user, the portrait (the front image) another.
    script.search = (collections, image) =>
      new Map(collections.map((c) => [c, c === 'missing' ? undefined : [{ id: image.equals(selfieBytes) ? 'by-selfie' : 'by-portrait', name: 'N', similarity: 0.9 }]]));
    const found = await selfie(await ready('001090000501', 501));
    assert.deepEqual(found.face_search, {
      members: { selfie: [{ id: 'by-selfie', name: 'N', similarity: 0.9, face_type: 'selfie' }], document: [{ id: 'by-portrait', name: 'N', similarity: 0.9, face_type: 'idr' }] },
      missing: { selfie: [], document: [], error: 'collection not found' },
    });
    script.search = () => {
      throw new Error('This collection is embedded by a recogniser this host lacks');
    };
    const failed = await selfie(await ready('001090000502', 502));
    assert.deepEqual([failed.code, failed.is_complete_session], ['200', true]);
    assert.deepEqual(failed.face_search, {
      members: { selfie: [], document: [], error: 'collection could not be searched' },
      missing: { selfie: [], document: [], error: 'collection could not be searched' },
    });
    // A busy engine: the step's 429, the attempt not counted (the session is still open).
    script.search = () => {
      throw new PlatformError('busy', 'busy');
    };
    const sid = await ready('001090000503', 503);
    await assert.rejects(selfie(sid), (err: unknown) => err instanceof PlatformError);
    const row = await SqlEkycStore.over(opened().db).session(APP, sid);
    assert.deepEqual([row?.status, row?.attempts], ['open', 0]);
    // A spoof answers no face_search.
    script.liveness = spoof;
    script.selfieFace = faceAlong(504);
    assert.equal('face_search' in (await selfie(sid)), false);
  });

  it('the selfie: 301 spoof (remembered), 303 not matching, DB02 for a remembered selfie face, 200 otherwise', async () => {
    const selfie = (sid: string) =>
      service.selfie(APP, { sessionId: sid, deviceType: 'api', lang: 'en', files: [{ field: 'selfies', filename: 's.jpg', mimetype: 'image/jpeg', data: IMAGE }] });
    let sid = await ready('001090000201', 201);
    script.liveness = spoof;
    script.selfieFace = faceAlong(202);
    const spoofed = await selfie(sid);
    assert.equal(spoofed.code, '301');
    assert.equal(spoofed.is_complete_session, false);
    sid = await ready('001090000203', 203);
    script.liveness = live(20);
    script.selfieFace = faceAlong(204);
    assert.equal((await selfie(sid)).code, '303');
    // The spoofed selfie's face again, on a live selfie of a new session: DB02, and the session ends.
    sid = await ready('001090000205', 205);
    script.liveness = live(95);
    script.selfieFace = faceAlong(202);
    const known = await selfie(sid);
    assert.deepEqual([known.code, known.message, known.is_complete_session], ['DB02', 'Face matches a recent fraudulent session', true]);
    sid = await ready('001090000206', 206);
    script.selfieFace = faceAlong(206);
    const passed = await selfie(sid);
    assert.deepEqual([passed.code, passed.is_complete_session], ['200', true]);
  });
});
