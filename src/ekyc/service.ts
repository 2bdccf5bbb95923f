/**
 * The full flow: a session, the document's sides, the selfie. Each step runs
 * the other services' stages through their public entries (the reader's
 * quality, reading, fraud measures and post-check; the face engine for the
 * document's portrait; liveness v3 with the portrait as `cmnd`) and keeps the
 * session's state, its images and the fraud memory in its store.
 */
import { randomUUID } from 'node:crypto';
import type { BlobStore } from '../platform/blobs/store.js';
import { ServiceError } from '../platform/http/errors.js';
import type { UploadedFile } from '../platform/http/form.js';
import { uuidv7 } from '../platform/ids.js';
import { cosineToSimilarity, dot, type FaceEngine } from '../face/index.js';
import { renderV3, type LivenessService, type LivenessTrace } from '../liveness/index.js';
import {
  checkingResult,
  idrItem,
  LAYOUTS,
  licenceItem,
  parseDate,
  passportItem,
  postCheck,
  qualityPassed,
  today,
  type QualityResult,
  type ReadCard,
  type ReaderService,
  type ReadSide,
} from '../reader/index.js';
import { DEVICE_TYPES, DOCUMENT_TYPES, type DeviceType, type DocumentType, type EkycConfig } from './config.js';
import { dataItems, type DataItem } from './answer.js';
import { faceSearchAnswer, type FaceSearchStage } from './face-search.js';
import { EkycError, InitErrors, livenessMessage, OcrErrors, postCheckEntry, type EkycEntry, type Lang } from './errors.js';
import type { EkycSessionRow } from './schema.js';
import type { FlowSettings, FlowSettingsSource } from './settings.js';
import { newSessionRow, type EkycStore } from './store.js';

/** The stages of other services the flow runs. */
export interface EkycStages {
  reader: ReaderService;
  faces: FaceEngine;
  liveness: LivenessService;
  /** Face search's collections, for the selfie step's `face_search`. */
  search: FaceSearchStage;
}

export type Side = 'front' | 'back';

/** A session that just ended, as its `session.completed` event tells it. */
export interface EndedSession {
  appCode: string;
  id: string;
  status: 'complete' | 'failed';
  /** The selfie step's code (200 passed). */
  code: string;
  documentType: string | null;
  completedTime: string;
}

/** A side as read: its kind (the reader's) and its fields' values. */
interface DocumentSide {
  kind: string;
  fields: Record<string, string>;
}

/** An accepted side as the session keeps it. */
interface AcceptedSide {
  kind: string;
  items: DataItem[];
  /** The fields as read, for the post-check of both sides. */
  fields: Record<string, string>;
  image: string;
  /** Its checks as they ran (the review desk shows them). */
  checks: SideChecks;
}

/** A side that passed its checks up to the post-check, before it is stored. */
interface ExaminedSide {
  side: Side;
  read: DocumentSide & { item: Record<string, unknown>; idNumber?: string };
  documentFace?: Float32Array;
  image: Buffer;
  checks: SideChecks;
}

/** A side's checks as they ran, by stage (quality, reading, portrait, fraud, fraud_memory, post_check): kept with a refused side. */
type SideChecks = Record<string, { result: 'passed' | 'failed' } & Record<string, unknown>>;

/** Refused sides of one session whose image is kept (their codes and checks are always kept): a client retrying without end fills no disk. */
export const MAX_KEPT_REFUSED = 20;

/** An /ocr refusal: HTTP 200, the code in errorCode. */
const refusal = (entry: EkycEntry, lang: Lang) => ({ data: [], errorCode: entry.code, errorMessage: lang === 'vi' ? entry.vi : entry.message, total_data: [] });

export interface OcrRequest {
  sessionId?: string;
  deviceType?: string;
  documentType?: string;
  sideType?: string;
  lang: Lang;
  files: Buffer[];
}

export interface SelfieRequest {
  sessionId?: string;
  deviceType?: string;
  lang: Lang;
  files: UploadedFile[];
}

const NA = 'N/A';
const isDeviceType = (v: string | undefined): v is DeviceType => (DEVICE_TYPES as readonly string[]).includes(v ?? '');
const encodeFace = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
function decodeFace(text: string): Float32Array {
  const bytes = Buffer.from(text, 'base64');
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);
  return new Float32Array(copy.buffer);
}

/** The SDK's settings answered at init: the application's flow settings, `limit` its device type's selfie attempts. */
function sdkConfig(flow: FlowSettings, deviceType: DeviceType) {
  return {
    is_show_ekyc_result: flow.is_show_ekyc_result,
    ekyc_flow: flow.ekyc_flow,
    liveness_type: flow.liveness_type,
    is_skip_nfc: flow.is_skip_nfc,
    limit: flow.retries[deviceType],
  };
}

export class EkycService {
  constructor(
    private readonly store: EkycStore,
    private readonly blobs: BlobStore,
    private readonly stages: EkycStages,
    private readonly cfg: EkycConfig,
    /** Each application's flow settings (its overrides over the deployment's). */
    private readonly settings: FlowSettingsSource,
    private readonly now: () => Date = () => new Date(),
    /** Told once a session ends (complete or failed): the webhook's `session.completed`. */
    private readonly onSessionEnded: (session: EndedSession) => Promise<void> = async () => undefined,
  ) {}

  async init(appCode: string, deviceType: string | undefined, clientUuid: string | undefined): Promise<Record<string, unknown>> {
    if (!isDeviceType(deviceType)) throw new EkycError(InitErrors.deviceType);
    const now = this.now();
    const id = uuidv7();
    const flow = await this.settings.effective(appCode);
    await this.store.createSession(newSessionRow(id, appCode, deviceType, clientUuid ?? null, now, flow.session_minutes * 60_000));
    return { code: '200', message: 'success', 'session-id': id, sdk_config: sdkConfig(flow, deviceType) };
  }

  /** The open session named by the headers, or the guide's refusal. */
  private async openSession(appCode: string, sessionId: string | undefined, deviceType: string | undefined, lang: Lang): Promise<EkycSessionRow> {
    if (!sessionId) throw new EkycError(OcrErrors.sessionMissing, lang);
    if (!isDeviceType(deviceType)) throw new EkycError(OcrErrors.deviceType, lang);
    const session = await this.store.session(appCode, sessionId);
    if (!session) throw new EkycError(OcrErrors.sessionMissing, lang);
    // A session that ended (passed, or out of selfie attempts) takes no more calls, as one past its lifetime.
    if (session.status !== 'open' || session.expires_time <= this.now().toISOString()) throw new EkycError(OcrErrors.sessionExpired, lang);
    return session;
  }

  async ocr(appCode: string, req: OcrRequest): Promise<Record<string, unknown>> {
    const { lang } = req;
    if (!req.sessionId) throw new EkycError(OcrErrors.sessionMissing, lang);
    if (!req.documentType) throw new EkycError(OcrErrors.documentTypeMissing, lang);
    const documentType = req.documentType.toLowerCase() as DocumentType;
    if (!(DOCUMENT_TYPES as readonly string[]).includes(documentType)) throw new EkycError(OcrErrors.documentTypeInvalid, lang);
    if (req.sideType !== undefined && req.sideType !== 'front' && req.sideType !== 'back') throw new EkycError(OcrErrors.invalidParameters, lang);
    let session = await this.openSession(appCode, req.sessionId, req.deviceType, lang);
    if (!this.cfg.documentTypes.includes(documentType)) throw new EkycError(OcrErrors.documentTypeUnsupported, lang);
    if (session.document_type !== null && session.document_type !== documentType) throw new EkycError(OcrErrors.documentTypeUnsupported, lang);
    const sides = this.sidesOf(documentType, req.sideType as Side | undefined, req.files.length, session, lang);
    if (req.files.length !== sides.length || req.files.some((f) => f.length === 0)) throw new EkycError(OcrErrors.invalidParameters, lang);
    const examined: ExaminedSide[] = [];
    for (let i = 0; i < sides.length; i++) {
      const checks: SideChecks = {};
      let outcome: ExaminedSide | { refusal: EkycEntry };
      try {
        outcome = await this.examineSide(appCode, session, documentType, sides[i], req.files[i], lang, checks);
      } catch (err) {
        // No document in the image is a check's verdict too (the quality check's or the reading's); an unreadable file is not kept.
        if (err instanceof EkycError && err.entry === OcrErrors.documentNotFound) {
          checks.quality ??= { result: 'failed' };
          await this.keepRefused(appCode, session, sides[i], OcrErrors.documentNotFound, checks, req.files[i]);
        }
        throw err;
      }
      if ('refusal' in outcome) {
        await this.keepRefused(appCode, session, sides[i], outcome.refusal, checks, req.files[i]);
        return refusal(outcome.refusal, lang);
      }
      examined.push(outcome);
    }
    // The post-check sees the sides together: a front sent with its back is checked as a pair (E16, not E01).
    const stored = session.front ? (JSON.parse(session.front) as AcceptedSide) : undefined;
    const post = this.postCheck(documentType, [...(stored ? [{ kind: stored.kind, fields: stored.fields }] : []), ...examined.map((e) => e.read)]);
    if (post) {
      for (const side of examined) await this.keepRefused(appCode, session, side.side, post, { ...side.checks, post_check: { result: 'failed', code: post.code } }, side.image);
      return refusal(post, lang);
    }
    for (const side of examined) {
      const lost = await this.storeSide(appCode, session, documentType, side);
      if (lost) return refusal(lost, lang);
      session = (await this.store.session(appCode, session.id))!;
    }
    // The back's answer carries the front's fields too.
    const data = [session.front, session.back].flatMap((s) => (s ? (JSON.parse(s) as AcceptedSide).items : []));
    return { data, errorCode: '0', errorMessage: '', total_data: [] };
  }

  /** Which sides this request's files are, by the header, the document and what the session already has. */
  private sidesOf(documentType: DocumentType, sideType: Side | undefined, files: number, session: EkycSessionRow, lang: Lang): Side[] {
    if (sideType === 'front') {
      if (session.front) throw new EkycError(OcrErrors.rearNeeded, lang);
      return ['front'];
    }
    if (sideType === 'back') {
      if (!session.front) throw new EkycError(OcrErrors.frontFirst, lang);
      if (documentType === 'passport') throw new EkycError(OcrErrors.wrongSide, lang);
      return ['back'];
    }
    // No side-type: a passport's page, a card's two sides together, or the side the session waits for.
    if (documentType === 'passport' || files < 2) return [session.front ? 'back' : 'front'];
    if (session.front) throw new EkycError(OcrErrors.rearNeeded, lang);
    return ['front', 'back'];
  }

  /** Runs one side's checks up to the post-check, noting each in `checks`; answers the side as examined, or the refusal. */
  private async examineSide(
    appCode: string,
    session: EkycSessionRow,
    documentType: DocumentType,
    side: Side,
    image: Buffer,
    lang: Lang,
    checks: SideChecks,
  ): Promise<ExaminedSide | { refusal: EkycEntry }> {
    const quality = await this.readerStep(() => this.stages.reader.checkQuality(image), lang);
    const qualityOk = qualityPassed(quality);
    checks.quality = { result: qualityOk ? 'passed' : 'failed', ...quality };
    if (!qualityOk) return { refusal: qualityEntry(quality) };
    checks.reading = { result: 'failed' };
    const read = await this.readerStep(() => this.readDocument(appCode, documentType, image), lang);
    checks.reading = { result: read.side === side ? 'passed' : 'failed', kind: read.kind, side: read.side };
    if (read.side !== side) return { refusal: OcrErrors.wrongSide };
    const idNumber = read.idNumber;
    let documentFace: Float32Array | undefined;
    if (side === 'front') {
      const analysed = await this.stages.faces.analyze(image, { checkCard: false });
      documentFace = analysed.ok ? analysed.primary?.embedding : undefined;
      checks.portrait = { result: documentFace ? 'passed' : 'failed' };
      if (!documentFace) return { refusal: await this.refuseFraud(appCode, session, OcrErrors.missingFace, idNumber, undefined) };
    }
    if (read.card) {
      const fraud = checkingResult(read.card, await this.readerStep(() => this.stages.reader.measureFraud(image), lang));
      const found = fraudEntry(read.card, fraud);
      checks.fraud = { result: found ? 'failed' : 'passed', ...(found ? { code: found.code } : {}), ...fraud };
      if (found) return { refusal: await this.refuseFraud(appCode, session, found, idNumber, documentFace) };
    }
    const remembered = await this.rememberedFraud(appCode, idNumber, documentFace);
    checks.fraud_memory = { result: remembered ? 'failed' : 'passed', ...(remembered ? { code: remembered.code } : {}) };
    if (remembered) return { refusal: remembered };
    return { side, read, documentFace, image, checks };
  }

  /**
   * Keeps a refused side for the review desk: its code, its checks and (up to `MAX_KEPT_REFUSED` a session) its
   * image, under the session's blob prefix so that retention and the purge take it with the session's.
   */
  private async keepRefused(appCode: string, session: EkycSessionRow, side: Side, entry: EkycEntry, checks: SideChecks, image: Buffer): Promise<void> {
    const now = this.now().toISOString();
    const keepImage = (await this.store.keptAttemptImages(appCode, session.id)) < MAX_KEPT_REFUSED;
    const imageRow = keepImage
      ? { id: uuidv7(), app_code: appCode, session_id: session.id, kind: side, blob_key: `ekyc/${session.id}/refused-${side}-${randomUUID()}.jpg`, created_time: now }
      : undefined;
    if (imageRow) await this.blobs.put(imageRow.blob_key, image, { contentType: 'image/jpeg' });
    await this.store.addAttempt(
      { id: uuidv7(), app_code: appCode, session_id: session.id, side, code: entry.code, checks: JSON.stringify(checks), image_id: imageRow?.id ?? null, created_time: now },
      imageRow,
    );
  }

  /** Keeps a side that passed: its image in the blob store, its fields on the session. Answers the refusal when another request stored it first. */
  private async storeSide(appCode: string, session: EkycSessionRow, documentType: DocumentType, examined: ExaminedSide): Promise<EkycEntry | undefined> {
    const { side, read, documentFace, image, checks } = examined;
    const key = `ekyc/${session.id}/${side}-${randomUUID()}.jpg`;
    await this.blobs.put(key, image, { contentType: 'image/jpeg' });
    await this.store.addImage({ id: uuidv7(), app_code: appCode, session_id: session.id, kind: side, blob_key: key, created_time: this.now().toISOString() });
    const accepted: AcceptedSide = {
      kind: read.kind,
      items: dataItems(documentType, side, read.item),
      fields: read.fields,
      image: key,
      checks: { ...checks, post_check: { result: 'passed' } },
    };
    const change =
      side === 'front'
        ? {
            front: JSON.stringify(accepted),
            document_type: documentType,
            id_number: read.idNumber ?? null,
            document_face: documentFace ? encodeFace(documentFace) : null,
          }
        : { back: JSON.stringify(accepted) };
    // Two requests racing with the same side: the first stored wins, the other is told the side is already in.
    if (!(await this.store.updateSession(appCode, session.id, { status: 'open', [side]: null }, change))) {
      return side === 'front' ? OcrErrors.rearNeeded : OcrErrors.wrongSide;
    }
    return undefined;
  }

  /** A reader refusal (no card, not an image) as the guide's input errors. */
  private async readerStep<T>(step: () => Promise<T>, lang: Lang): Promise<T> {
    try {
      return await step();
    } catch (err) {
      if (err instanceof ServiceError && typeof err.entry.code === 'number') {
        if (err.entry.code === 7 || err.entry.code === 8) throw new EkycError(OcrErrors.invalidImage, lang);
        if (err.entry.code === 2 || err.entry.code === 3) throw new EkycError(OcrErrors.documentNotFound, lang);
      }
      throw err;
    }
  }

  /** The side read by the document type's reader, as the post-check and the answer need it. */
  private async readDocument(
    appCode: string,
    documentType: DocumentType,
    image: Buffer,
  ): Promise<DocumentSide & { side: Side; item: Record<string, unknown>; idNumber?: string; card?: ReadCard }> {
    if (documentType === 'passport') {
      const page = await this.stages.reader.readPassport(image);
      return { kind: 'passport', side: 'front', item: passportItem(page), fields: valuesOf(page.fields), idNumber: page.fields.passport_number?.value };
    }
    if (documentType === 'dlr') {
      const card = await this.stages.reader.readLicence(image);
      return {
        kind: card.kind,
        side: card.kind.endsWith('_back') ? 'back' : 'front',
        item: licenceItem(card),
        fields: valuesOf(card.fields),
        idNumber: card.fields.id?.value,
      };
    }
    const card = await this.stages.reader.read(image, false, appCode);
    // The back's MRZ number goes with its fields for the same-card rule (E30).
    const fields = { ...valuesOf(card.fields), ...(card.mrz?.valid && card.mrz.id ? { mrz_id: card.mrz.id } : {}) };
    // The chip front's QR text and the chip back's MRZ, its three lines as read (check digits passed), as the guide answers them.
    const item: Record<string, unknown> = { ...idrItem(card), ...(card.qr ? { QRcode: card.qr.text } : {}), ...(card.mrz?.valid ? { mrz: card.mrz.lines.join('\n') } : {}) };
    return { kind: card.kind, side: LAYOUTS[card.kind].side, item, fields, idNumber: card.fields.id?.value, card };
  }

  /** The guide's post-check of the sides so far; undefined when it passed. */
  private postCheck(documentType: DocumentType, documentSides: DocumentSide[]): EkycEntry | undefined {
    try {
      if (documentType === 'passport') return passportCheck(documentSides[0].fields);
      if (documentType === 'dlr') return undefined;
      // An ID card's sides: the reader read their kinds.
      const sides = documentSides as ReadSide[];
      const result = postCheck(sides);
      if (result.code !== 'E00') return postCheckEntry(result.code);
      return sameCardCheck(sides) ?? issueDateCheck(sides);
    } catch {
      return postCheckEntry('E-1');
    }
  }

  private async refuseFraud(
    appCode: string,
    session: EkycSessionRow,
    entry: EkycEntry,
    idNumber: string | undefined,
    face: Float32Array | undefined,
  ): Promise<EkycEntry> {
    await this.remember(appCode, session.id, entry.code, idNumber ?? session.id_number ?? undefined, face);
    return entry;
  }

  /** Keeps an ID number and a face of a fraud or spoof result for the fraud-memory window. */
  private async remember(appCode: string, sessionId: string, reason: string, idNumber: string | undefined, face: Float32Array | undefined): Promise<void> {
    if (!idNumber && !face) return;
    const windowMs = (await this.settings.effective(appCode)).fraud_memory_hours * 3_600_000;
    if (windowMs === 0) return;
    const now = this.now();
    await this.store.remember({
      id: uuidv7(),
      app_code: appCode,
      session_id: sessionId,
      id_number: idNumber?.trim() || null,
      face: face ? encodeFace(face) : null,
      reason,
      created_time: now.toISOString(),
      expires_time: new Date(now.getTime() + windowMs).toISOString(),
    });
  }

  /** The DB check: the number or a face of a recent fraud or spoof result. */
  private async rememberedFraud(appCode: string, idNumber: string | undefined, ...faces: (Float32Array | undefined)[]): Promise<EkycEntry | undefined> {
    const now = this.now().toISOString();
    if (idNumber?.trim() && (await this.store.rememberedId(appCode, idNumber.trim(), now))) return OcrErrors.knownFraudId;
    const present = faces.filter((f): f is Float32Array => f !== undefined);
    if (present.length === 0) return undefined;
    for (const row of await this.store.rememberedFaces(appCode, now)) {
      const known = decodeFace(row.face!);
      if (present.some((f) => cosineToSimilarity(dot(f, known)) * 100 >= this.cfg.fraudFaceSimilarity)) return OcrErrors.knownFraudFace;
    }
    return undefined;
  }

  async selfie(appCode: string, req: SelfieRequest): Promise<Record<string, unknown>> {
    const { lang } = req;
    const session = await this.openSession(appCode, req.sessionId, req.deviceType, lang);
    if (!session.front) throw new EkycError(OcrErrors.frontFirst, lang);
    // A card's back comes before the selfie; a passport has none, a licence's back is optional.
    if (session.document_type === 'idr' && !session.back) throw new EkycError(OcrErrors.rearNeeded, lang);
    const front = JSON.parse(session.front) as AcceptedSide;
    const portrait = await streamToBuffer(await this.blobs.read(front.image));
    const selfies = req.files.filter((f) => f.field === 'selfies' || f.field === 'selfies[]');
    const trace: LivenessTrace = {};
    const result = await this.stages.liveness.check(3, [...selfies, { field: 'cmnd', filename: 'document.jpg', mimetype: 'image/jpeg', data: portrait }], trace, appCode);
    const body = renderV3(result) as { code: string; message: string; liveness: Record<string, string>; face_match: Record<string, string> };
    let code = body.code;
    // The document's portrait was found at /ocr; its match here is on face match's threshold.
    const selfieFace = trace.analysis?.embedding;
    const documentFace = session.document_face ? decodeFace(session.document_face) : undefined;
    if (code === '301' || code === '302') {
      await this.remember(appCode, session.id, code, session.id_number ?? undefined, selfieFace);
      if (documentFace) await this.remember(appCode, session.id, code, undefined, documentFace);
    } else if (code === '200') {
      const known = await this.rememberedFraud(appCode, undefined, selfieFace);
      if (known) code = known.code;
    }
    const attempts = session.attempts + 1;
    const passed = code === '200';
    const flow = await this.settings.effective(appCode);
    const complete = passed || code.startsWith('DB') || attempts >= flow.retries[session.device_type as DeviceType];
    const answer: Record<string, unknown> = {
      code,
      message:
        livenessMessage(code, lang) ??
        (code === OcrErrors.knownFraudFace.code ? (lang === 'vi' ? OcrErrors.knownFraudFace.vi : OcrErrors.knownFraudFace.message) : body.message),
      liveness: { ...body.liveness, error_frame_url: NA },
      face_match: body.face_match,
      video_face_url: NA,
      compared_face_url: NA,
    };
    // As the guide shows it: only on a passed selfie, and only for an application that names collections.
    const selfie = selfies.find((f) => f.data.length > 0);
    if (passed && selfie && flow.face_search_collections.length > 0) {
      answer.face_search = await faceSearchAnswer(this.stages.search, appCode, flow.face_search_collections, flow.face_search_top_k, {
        selfie: selfie.data,
        document: portrait,
        documentType: session.document_type ?? 'idr',
      });
    }
    answer.is_complete_session = complete;
    const now = this.now().toISOString();
    for (const f of selfies.filter((s) => s.data.length > 0)) {
      const key = `ekyc/${session.id}/selfie-${randomUUID()}.jpg`;
      await this.blobs.put(key, f.data, { contentType: f.mimetype || 'image/jpeg' });
      await this.store.addImage({ id: uuidv7(), app_code: appCode, session_id: session.id, kind: 'selfie', blob_key: key, created_time: now });
    }
    const change = {
      attempts,
      result: JSON.stringify(answer),
      ...(complete ? { status: passed ? ('complete' as const) : ('failed' as const), completed_time: now } : {}),
    };
    // Another selfie of the same session counted meanwhile: this one ended nothing; the session decides on its own count.
    if (!(await this.store.updateSession(appCode, session.id, { status: 'open', attempts: session.attempts }, change))) {
      throw new EkycError(OcrErrors.sessionExpired, lang);
    }
    if (complete) await this.onSessionEnded({ appCode, id: session.id, status: change.status!, code, documentType: session.document_type, completedTime: now });
    return answer;
  }
}

function valuesOf(fields: Partial<Record<string, { value: string }>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(fields)) if (v) out[k] = v.value;
  return out;
}

/** The first quality criterion that failed, in the guide's order. */
function qualityEntry(q: QualityResult): EkycEntry {
  const r = q.final_result;
  if (r.lowResolutionLikelihood === 'likely') return OcrErrors.lowResolution;
  if (r.havingBrightSpotsLikelihood === 'likely') return OcrErrors.brightSpots;
  if (r.blurredLikelihood === 'likely') return OcrErrors.blurry;
  return OcrErrors.badLuminance;
}

/**
 * The fraud codes the reader's checking_result measures: photocopy (FC01),
 * recapture (FC02), a chip back whose MRZ is not read (FC07). Editing,
 * corner cuts and the QR code are not measured (N/A there), so FC03, FC04
 * and FC06 are never answered; FC05 is the face engine's (EkycService).
 */
function fraudEntry(card: ReadCard, checks: Record<string, unknown>): EkycEntry | undefined {
  if (checks.check_photocopied_result === '1') return OcrErrors.photocopy;
  if (checks.recaptured_result === '1') return OcrErrors.recaptured;
  if ((card.kind === 'cccd_chip_back' || card.kind === 'cccd_2024_back') && checks.check_mrz_result === 'failed') return OcrErrors.missingMrz;
  return undefined;
}

/** E30: a chip card's back MRZ names another number than its front. */
function sameCardCheck(sides: ReadSide[]): EkycEntry | undefined {
  const [front, back] = sides;
  const mrzId = back?.fields.mrz_id;
  if (!front || !back || !mrzId || !front.fields.id) return undefined;
  // The MRZ names the citizen number; its last 9 digits are the check-digit-proven part.
  return front.fields.id.endsWith(mrzId.slice(-9)) ? undefined : postCheckEntry('E30');
}

/** The first day each card was issued: a card issued before its model existed is of another type (E32). */
const FIRST_ISSUE: Partial<Record<string, { year: number; month: number; day: number }>> = {
  cccd_chip_back: { year: 2021, month: 1, day: 1 },
  cccd_2024_back: { year: 2024, month: 7, day: 1 },
};

function issueDateCheck(sides: ReadSide[]): EkycEntry | undefined {
  const back = sides[1];
  const first = back && FIRST_ISSUE[back.kind];
  const issued = back && parseDate(back.fields.issue_date);
  if (!first || !issued) return undefined;
  const before = issued.year * 10000 + issued.month * 100 + issued.day < first.year * 10000 + first.month * 100 + first.day;
  return before ? postCheckEntry('E32') : undefined;
}

/** The passport rules of the guide's post-check: expiry (E23), number (E24), name (E25). */
function passportCheck(fields: Partial<Record<string, string>>): EkycEntry | undefined {
  const doe = parseDate(fields.doe);
  const now = today();
  if (doe && doe.year * 10000 + doe.month * 100 + doe.day < now.year * 10000 + now.month * 100 + now.day) return postCheckEntry('E23');
  if (!/^[A-Z][0-9]{7}$/.test((fields.passport_number ?? '').trim())) return postCheckEntry('E24');
  if (!/^[\p{Lu}][\p{Lu} ]*$/u.test((fields.name ?? '').trim())) return postCheckEntry('E25');
  return undefined;
}

async function streamToBuffer(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}
