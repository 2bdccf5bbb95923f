/**
 * The reader service: turns an image into the recognition answer. The image
 * work runs in the worker pool; this module shapes the answer as the spec
 * (and docs/api-contract.md#recognition) say, for /vision/idr/vnm and for the legacy /cmt.
 */
import { randomUUID } from 'node:crypto';
import type { BlobStore } from '../platform/blobs/store.js';
import { ServiceError } from '../platform/http/errors.js';
import type { WorkerPool } from '../platform/pool/index.js';
import type { ReaderConfig } from './config.js';
import { REFUSALS } from './errors.js';
import { LAYOUTS, type IdCardField } from './layouts.js';
import { overallScore } from './pipeline/confidence.js';
import { cardFields, idrItem, NA } from './documents/id-card/answer.js';
import type { ReadCard } from './pipeline/run.js';
import type { ReaderSettingsStore } from './store.js';
import type { ReadPassport } from './documents/passport/passport.js';
import type { ReadLicence } from './documents/licence/licence.js';
import { qualityResult, type QualityResult } from './quality-check.js';
import type { FraudMeasures } from './fraud-measures.js';
import { checkingResult, checkQrAgainstBack } from './fraud-check.js';
import { postCheck, type PostCheckResult, type ReadSide } from './post-check.js';
import { wrongAnswer, type OcrEngineName, type ReaderResult, type ReaderTask } from './tasks.js';

/** Returned only to applications with the separate arrangement the spec asks for (distinguishing marks). */
const ARRANGED_FIELDS: readonly IdCardField[] = ['features'];

export class ReaderService {
  constructor(
    private readonly pool: WorkerPool<ReaderTask, ReaderResult>,
    private readonly config: ReaderConfig,
    private readonly engine: OcrEngineName,
    private readonly blobs: BlobStore,
    private readonly settings: ReaderSettingsStore,
  ) {}

  /** Reads the card for `appCode`: fields the application has no arrangement for are already gone. */
  async read(image: Buffer, face: boolean, appCode: string, opts: { cropCard?: boolean } = {}): Promise<ReadCard> {
    const copy = new Uint8Array(image.byteLength);
    copy.set(image);
    // Without the arrangement the worker does not even read the features band.
    const features = await this.settings.featuresArranged(appCode);
    const task: ReaderTask = {
      document: 'idcard',
      image: copy,
      face,
      maxPixels: this.config.maxPixels,
      minCardArea: this.config.minCardArea,
      fieldScale: this.config.fieldScale,
      lineRecogniser: this.config.lineRecogniser,
      engine: this.engine,
      features,
      cropCard: opts.cropCard === true,
    };
    const answer = await this.pool.run(task, { transferList: [copy.buffer] });
    if (answer.document !== 'idcard') throw wrongAnswer(task, answer);
    const result = answer.result;
    if (!result.ok) throw refused(result);
    await this.withholdUnarranged(result, appCode);
    return result;
  }

  /** Reads a passport data page (no arranged fields on a passport). */
  async readPassport(image: Buffer): Promise<ReadPassport> {
    const task: ReaderTask = { ...this.imageTask(image), document: 'passport' };
    const answer = await this.pool.run(task, { transferList: [task.image.buffer] });
    if (answer.document !== 'passport') throw wrongAnswer(task, answer);
    if (!answer.result.ok) throw refused(answer.result);
    return answer.result;
  }

  /** Reads a driving licence, either side, paper or PET. */
  async readLicence(image: Buffer): Promise<ReadLicence> {
    const task: ReaderTask = { ...this.imageTask(image), document: 'licence' };
    const answer = await this.pool.run(task, { transferList: [task.image.buffer] });
    if (answer.document !== 'licence') throw wrongAnswer(task, answer);
    if (!answer.result.ok) throw refused(answer.result);
    return answer.result;
  }

  /** The guide's quality check of an ID photo (quality-check.ts): measured in the worker pool, judged here. */
  async checkQuality(image: Buffer): Promise<QualityResult> {
    const task: ReaderTask = { ...this.imageTask(image), document: 'quality' };
    const answer = await this.pool.run(task, { transferList: [task.image.buffer] });
    if (answer.document !== 'quality') throw wrongAnswer(task, answer);
    if (!answer.result.ok) throw refused(answer.result);
    return qualityResult(answer.result.measures);
  }

  /** The fraud check's image measurements (fraud-measures.ts), in the worker pool. */
  async measureFraud(image: Buffer): Promise<FraudMeasures> {
    const task: ReaderTask = { ...this.imageTask(image), document: 'fraud' };
    const answer = await this.pool.run(task, { transferList: [task.image.buffer] });
    if (answer.document !== 'fraud') throw wrongAnswer(task, answer);
    if (!answer.result.ok) throw refused(answer.result);
    return answer.result.measures;
  }

  /**
   * The guide's fraud check of one side, or of a card's two sides sent
   * together: per side the /vision/idr/vnm item plus `checking_result` and the
   * flattened card (and the face with `face`); then the post-check's item
   * over all sides (the pair rules need both).
   */
  async fraudCheck(images: Buffer[], face: boolean, appCode: string, publicUrl: string): Promise<Record<string, unknown>[]> {
    const stored = async (jpeg: Uint8Array | undefined): Promise<[string, string]> => {
      if (!jpeg) return [NA, NA];
      const bytes = Buffer.from(jpeg);
      const id = randomUUID();
      await this.blobs.put(faceKey(id), bytes, { contentType: 'image/jpeg' });
      return [`${publicUrl.replace(/\/+$/, '')}/cmt/faces/${id}.jpg`, bytes.toString('base64')];
    };
    const items: Record<string, unknown>[] = [];
    const sides: ReadSide[] = [];
    const cards: ReadCard[] = [];
    for (const image of images) {
      const measures = await this.measureFraud(image);
      const card = await this.read(image, face, appCode, { cropCard: true });
      const item: Record<string, unknown> = { ...this.idrItem(card), checking_result: checkingResult(card, measures) };
      if (face) [item.face, item.face_base64] = await stored(card.face);
      [item.cropped_idcard, item.cropped_idcard_base64] = await stored(card.card);
      items.push(item);
      const values: Record<string, string> = {};
      for (const [k, v] of Object.entries(card.fields)) if (v) values[k] = v.value;
      sides.push({ kind: card.kind, fields: values });
      cards.push(card);
    }
    // A chip front's QR code against its back's MRZ, when both sides came.
    checkQrAgainstBack(
      cards,
      items.map((item) => item.checking_result as Record<string, unknown>),
    );
    const post: { post_check_result: PostCheckResult } = { post_check_result: postCheck(sides) };
    return [...items, post];
  }

  /** What every task holds: a copy of the image (transferred to the worker) and the limits, no card options. */
  private imageTask(image: Buffer): { image: Uint8Array; face: false; maxPixels: number; minCardArea: number; engine: OcrEngineName } {
    const copy = new Uint8Array(image.byteLength);
    copy.set(image);
    return { image: copy, face: false, maxPixels: this.config.maxPixels, minCardArea: this.config.minCardArea, engine: this.engine };
  }

  /**
   * Deletes the fields the application may not have from the card itself, as
   * soon as the worker hands it over, so no later step (answer, log, store)
   * ever holds them; the overall score is then the mean over the fields answered.
   * The worker already skipped them; this guards an arrangement withdrawn meanwhile.
   */
  private async withholdUnarranged(card: ReadCard, appCode: string): Promise<void> {
    const fields = LAYOUTS[card.kind].fields;
    const held = fields.filter((f) => ARRANGED_FIELDS.includes(f));
    if (held.length === 0 || (await this.settings.featuresArranged(appCode))) return;
    for (const f of held) delete card.fields[f];
    card.overall = overallScore(fields.filter((f) => !held.includes(f)).map((f) => card.fields[f]?.prob ?? 0));
  }

  /** The /vision/idr/vnm data item (documents/id-card/answer.ts). */
  idrItem(card: ReadCard): Record<string, unknown> {
    return idrItem(card);
  }

  /** The legacy /cmt data item: no address_entities, no type. */
  async cmtItem(card: ReadCard, face: boolean, publicUrl: string): Promise<Record<string, unknown>> {
    const item = cardFields(card);
    if (face) {
      if (card.face) {
        const jpeg = Buffer.from(card.face);
        const id = randomUUID();
        await this.blobs.put(faceKey(id), jpeg, { contentType: 'image/jpeg' });
        item.face = `${publicUrl.replace(/\/+$/, '')}/cmt/faces/${id}.jpg`;
        item.face_base64 = jpeg.toString('base64');
      } else {
        item.face = NA;
        item.face_base64 = NA;
      }
    }
    return item;
  }
}

/** A worker's refusal (a photo it could not read) as the service's error. */
function refused(refusal: { code: 2 | 3 | 7 | 8; message: string }): ServiceError {
  return new ServiceError(REFUSALS[refusal.code], refusal.message);
}

/** Face crops are capability URLs (a random UUID) kept for FACE_RETENTION_HOURS. */
export const faceKey = (id: string) => `reader/faces/${id}.jpg`;
export const FACE_PREFIX = 'reader/faces/';
