import { PlatformError, ServiceError } from '../platform/http/errors.js';
import type { FaceCollectionsView, FacesInPhoto, PhotoBox } from '../platform/playground-tools.js';
import type { FaceConfig } from './config.js';
import {
  assessFace,
  cosineToSimilarity,
  similarityToCosine,
  dot,
  isAcceptedImage,
  looksLikeIdCard,
  type AnalyzeResult,
  type FaceEngine,
  type FaceVerdict,
  type PrimaryFace,
} from './engine/index.js';
import type { Box } from './engine/detect.js';
import { MatchErrors, SearchErrors } from './errors.js';
import type { UploadedFile } from '../platform/http/form.js';
import { uuidv7 } from 'uuidv7';
import { cropKey, type FaceCrops } from './crops.js';
import type { RecogniserSpec } from './engine/recogniser.js';
import type { FaceRecognisers } from './recognisers.js';
import { FaceIndexCache } from './search/index-cache.js';
import type { FaceCollectionRow } from './schema.js';
import { CollectionModelChanged, collectionModel, type FaceStore } from './store.js';

const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;

/** "true"/"1" -> true; anything else (absent, "false", "0") -> false. */
export function parseBool(v: string | undefined): boolean {
  return v !== undefined && /^(1|true|yes|on)$/i.test(v.trim());
}

function required(fields: Record<string, string>, name: string, maxLength = 200): string {
  const v = fields[name]?.trim();
  if (!v) throw new ServiceError(SearchErrors.missingField, `${name} is required`);
  if (v.length > maxLength) throw new ServiceError(SearchErrors.wrongFormat, `${name} is longer than ${maxLength} characters`);
  return v;
}

/** A user of a collection found near a face: face search's answer item (similarity on the 0-1 scale). */
export interface SearchHit {
  id: string;
  name: string;
  similarity: number;
}

/** Face search: collections of users with indexed faces, per application. */
export class FaceSearchService {
  constructor(
    private readonly store: FaceStore,
    private readonly engine: FaceEngine,
    private readonly cfg: FaceConfig,
    /** Per-process indexes (index-cache.ts); the composition root gives it the blob store's snapshots. */
    private readonly cache = new FaceIndexCache(),
    /** Where enrolled faces' aligned crops are kept (undefined: not kept). */
    private readonly crops?: FaceCrops,
  ) {}

  private get recognisers(): FaceRecognisers {
    return this.engine.recognisers;
  }

  /** The installed recogniser `model` names; a collection serving one this host lacks cannot be searched here. */
  private recogniser(model: string): RecogniserSpec {
    const spec = this.recognisers.get(model);
    if (!spec) throw new Error(`This collection's faces are embedded by the face recogniser ${model}, which is not installed on this host (saola models list)`);
    return spec;
  }

  async create(appCode: string, fields: Record<string, string>): Promise<string> {
    const collection = required(fields, 'collection');
    const id = required(fields, 'id');
    const name = required(fields, 'name', 500);
    const coll = await this.store.ensureCollection(appCode, collection);
    await this.store.upsertUser(appCode, coll.id, id, name);
    return 'User created/updated';
  }

  /** The one face of an upload, through every quality gate; throws the spec's code otherwise. */
  private async faceOf(file: UploadedFile | undefined, allowIdCard: boolean, embedBy: { recogniser: RecogniserSpec; keepCrop?: boolean }): Promise<PrimaryFace> {
    if (!file || file.data.length === 0) throw new ServiceError(SearchErrors.missingField, 'file is required');
    if (!isAcceptedImage(file.data)) throw new ServiceError(SearchErrors.wrongFormat, 'Wrong format: only jpg, jpeg and png images are accepted');
    const result = await this.engine.analyze(file.data, { checkCard: !allowIdCard, ...embedBy });
    const verdict: FaceVerdict = assessFace(result, this.cfg, { single: true });
    switch (verdict.kind) {
      case 'undecodable':
        throw new ServiceError(SearchErrors.wrongFormat, 'Wrong format: the image cannot be decoded');
      case 'noFace':
        throw new ServiceError(SearchErrors.noFace);
      case 'severalFaces':
        throw new ServiceError(SearchErrors.severalFaces);
      case 'tooSmall':
        throw new ServiceError(SearchErrors.faceTooSmall);
      case 'blurry':
        throw new ServiceError(SearchErrors.faceBlurry);
      case 'occluded':
        throw new ServiceError(SearchErrors.occluded);
      case 'ok':
        break;
    }
    if (!allowIdCard && looksLikeIdCard(result)) throw new ServiceError(SearchErrors.idCard);
    return verdict.face;
  }

  async add(appCode: string, fields: Record<string, string>, file: UploadedFile | undefined): Promise<string> {
    const collection = required(fields, 'collection');
    const id = required(fields, 'id');
    const existing = await this.store.findCollection(appCode, collection);
    // A collection is embedded by the recogniser it serves; a new one by the deployment's active recogniser.
    let model = existing ? collectionModel(existing) : this.recognisers.active.name;
    let face = await this.faceOf(file, parseBool(fields.allow_id_card), { recogniser: this.recogniser(model), keepCrop: this.crops !== undefined });
    // An enrolled face is compared with every later query: a face the net reads poorly (short embedding) is refused here only.
    if (this.cfg.minAddQuality > 0 && face.quality < this.cfg.minAddQuality) throw new ServiceError(SearchErrors.lowQuality);
    const coll = existing ?? (await this.store.ensureCollection(appCode, collection, model));
    const faceId = uuidv7();
    const key = face.crop && this.crops ? cropKey(appCode, coll.id, faceId) : undefined;
    // The crop is written first: a committed face always has its crop (a crash in between leaves only an unused blob).
    if (key) await this.crops!.put(key, face.crop!);
    for (let attempt = 0; ; attempt++) {
      try {
        // The user and its face land together (one transaction), or neither does.
        const added = await this.store.addUserFace(appCode, coll.id, id, fields.name?.trim() || undefined, face.embedding, model, { faceId, cropKey: key });
        await this.cache.added({ appCode, collectionId: coll.id }, added.userRowId, face.embedding, added);
        return 'Add photo success';
      } catch (err) {
        // A reindex switched the collection meanwhile: embed the photo again with its new recogniser.
        if (err instanceof CollectionModelChanged && attempt === 0) {
          model = err.model;
          face = await this.faceOf(file, parseBool(fields.allow_id_card), { recogniser: this.recogniser(model) });
          continue;
        }
        if (key) await this.crops!.delete([key]).catch(() => undefined);
        throw err;
      }
    }
  }

  async search(appCode: string, fields: Record<string, string>, file: UploadedFile | undefined): Promise<SearchHit> {
    const collection = required(fields, 'collection');
    let threshold = this.cfg.searchThreshold;
    if (fields.threshold !== undefined && fields.threshold.trim() !== '') {
      threshold = Number(fields.threshold);
      if (!Number.isFinite(threshold) || threshold < 0 || threshold > 1) throw new ServiceError(SearchErrors.wrongFormat, 'threshold must be a number from 0 to 1');
    }
    const coll = await this.store.findCollection(appCode, collection);
    // The query is embedded by the recogniser the collection serves (the photo's own errors still come before "not found").
    const model = coll ? collectionModel(coll) : this.recognisers.active.name;
    const face = await this.faceOf(file, parseBool(fields.allow_id_card), { recogniser: this.recogniser(model) });
    if (!coll) throw new ServiceError(SearchErrors.notFound);
    const [best] = await this.nearest(appCode, coll, face.embedding, 1, threshold);
    if (!best) throw new ServiceError(SearchErrors.notFound);
    return best;
  }

  /**
   * Several collections searched for the subject face of a photo another
   * service already accepted (the eKYC flow's selfie and document portrait):
   * no quality gate (that service's own checks passed it), the face embedded
   * once per recogniser the collections serve, and each collection's `topK`
   * users at or above the search threshold (`SAOLA_FACE_SEARCH_THRESHOLD`),
   * best first. A name with no collection answers undefined; a photo with no
   * face, an empty list.
   */
  async searchCollections(appCode: string, collections: readonly string[], image: Buffer, topK: number): Promise<Map<string, SearchHit[] | undefined>> {
    const out = new Map<string, SearchHit[] | undefined>();
    const faces = new Map<string, Promise<Float32Array | undefined>>();
    for (const name of collections) {
      const coll = await this.store.findCollection(appCode, name);
      if (!coll) {
        out.set(name, undefined);
        continue;
      }
      const model = collectionModel(coll);
      if (!faces.has(model)) {
        const recogniser = this.recogniser(model);
        faces.set(
          model,
          this.engine.analyze(image, { checkCard: false, recogniser }).then((r) => (r.ok ? r.primary?.embedding : undefined)),
        );
      }
      const embedding = await faces.get(model)!;
      out.set(name, embedding ? await this.nearest(appCode, coll, embedding, topK, this.cfg.searchThreshold) : []);
    }
    return out;
  }

  /** The users of `coll` nearest a face embedded by the collection's recogniser, at or above `threshold`, best first, at most `k`. */
  private async nearest(appCode: string, coll: FaceCollectionRow, embedding: Float32Array, k: number, threshold: number): Promise<SearchHit[]> {
    const model = collectionModel(coll);
    const { knots } = this.recognisers.similarityMap(model);
    // The collection row carries its version: no count over its faces per search.
    const index = await this.cache.get(
      { appCode, collectionId: coll.id },
      { epoch: Number(coll.faces_epoch), seq: Number(coll.faces_seq) },
      async (afterSeq, span) =>
        (await this.store.listFaces(appCode, coll.id, { afterSeq, span, model })).map((f) => ({ seq: f.seq, owner: f.userRowId, embedding: f.embedding })),
      this.recogniser(model).output.size,
    );
    // The fast scan guarantees every face at or above the threshold is scored exactly.
    const hits = index
      .search(embedding, k, similarityToCosine(threshold, knots))
      .map((h) => ({ owner: h.owner, similarity: cosineToSimilarity(h.cosine, knots) }))
      .filter((h) => h.similarity >= threshold);
    const users = await this.store.usersByRowId(
      appCode,
      hits.map((h) => h.owner),
    );
    return hits.flatMap((h) => {
      const user = users.get(h.owner);
      return user ? [{ id: user.user_id, name: user.name, similarity: round(h.similarity, 4) }] : [];
    });
  }

  async deleteFaces(appCode: string, fields: Record<string, string>): Promise<string> {
    const { coll, user } = await this.user(appCode, fields);
    const crops = await this.store.deleteFaces(appCode, coll.id, user.id);
    this.cache.invalidate(coll.id);
    await this.crops?.delete(crops);
    return 'User faces deleted';
  }

  async deleteUser(appCode: string, fields: Record<string, string>): Promise<string> {
    const { coll, user } = await this.user(appCode, fields);
    const crops = await this.store.deleteUser(appCode, coll.id, user.id);
    this.cache.invalidate(coll.id);
    await this.crops?.delete(crops);
    return 'User deleted';
  }

  private async user(appCode: string, fields: Record<string, string>) {
    const collection = required(fields, 'collection');
    const id = required(fields, 'id');
    const coll = await this.store.findCollection(appCode, collection);
    const user = coll ? await this.store.findUser(appCode, coll.id, id) : undefined;
    if (!coll || !user) throw new ServiceError(SearchErrors.notFound);
    return { coll, user };
  }

  async list(appCode: string, fields: Record<string, string>): Promise<{ id: string; name: string }[]> {
    const collection = required(fields, 'collection');
    const page: { limit?: number; offset?: number } = {};
    for (const key of ['limit', 'offset'] as const) {
      const raw = fields[key]?.trim();
      if (!raw) continue;
      const n = Number(raw);
      if (!Number.isInteger(n) || n < 0 || n > 1_000_000) throw new ServiceError(SearchErrors.wrongFormat, `${key} must be an integer from 0 to 1000000`);
      page[key] = n;
    }
    const coll = await this.store.findCollection(appCode, collection);
    if (!coll) return [];
    return (await this.store.listUsers(appCode, coll.id, page)).map((u) => ({ id: u.user_id, name: u.name }));
  }

  async deleteCollection(appCode: string, fields: Record<string, string>): Promise<string> {
    const collection = required(fields, 'collection');
    const coll = await this.store.findCollection(appCode, collection);
    if (!coll) throw new ServiceError(SearchErrors.notFound);
    await this.store.deleteCollection(appCode, coll.id);
    await this.cache.dropped({ appCode, collectionId: coll.id });
    await this.crops?.deleteCollection(appCode, coll.id);
    return 'Remove collection success';
  }
}

/** The field face match reads its two images from. */
export const MATCH_FIELD = 'file[]';

/**
 * Face match: the subject face of each of two JPEG or PNG photos (chosen by size, centrality,
 * confidence and focus: engine/subject.ts), compared; a photo with a competing second face is refused (407).
 */
export class FaceMatchService {
  constructor(
    private readonly engine: FaceEngine,
    private readonly cfg: FaceConfig,
  ) {}

  async match(files: UploadedFile[]): Promise<{ isMatch: boolean; similarity: number; isBothImgIDCard: boolean }> {
    const images = files.filter((f) => f.field === MATCH_FIELD);
    if (images.length !== 2 || files.length !== 2) throw new ServiceError(MatchErrors.wrongCount);
    if (!images.every((f) => isAcceptedImage(f.data))) throw new ServiceError(MatchErrors.wrongType);
    // Both photos or neither: half a match admitted is work spent on a refusal.
    if (!this.engine.admits(images.length)) throw new PlatformError('busy', 'The face engine is busy; try again shortly');
    const recogniser = this.engine.recognisers.active;
    const results = await Promise.all(images.map((f) => this.engine.analyze(f.data, { checkCard: true, recogniser })));
    const faces: PrimaryFace[] = [];
    for (const r of results) {
      // `single`: a second face comparable in size and focus to the subject is the guide's 407 (docs/face.md: measured refusals of one-person photos).
      const v = assessFace(r, { ...this.cfg, minBlurVariance: 0 }, { single: true });
      // An undecodable image (truncated, corrupt) is refused like a wrong type.
      if (v.kind === 'undecodable') throw new ServiceError(MatchErrors.wrongType, 'The image cannot be decoded as jpg, jpeg or png');
      if (v.kind === 'noFace' || v.kind === 'tooSmall') throw new ServiceError(MatchErrors.noFace);
      if (v.kind === 'severalFaces') throw new ServiceError(MatchErrors.severalFaces);
      if (!r.ok || !r.primary) throw new ServiceError(MatchErrors.noFace);
      faces.push(r.primary);
    }
    const { knots } = this.engine.recognisers.similarityMap(recogniser.name);
    const similarity = round(cosineToSimilarity(dot(faces[0].embedding, faces[1].embedding), knots) * 100, 2);
    return { isMatch: similarity >= this.cfg.matchThreshold, similarity, isBothImgIDCard: results.every((r) => looksLikeIdCard(r)) };
  }
}

/**
 * A box of the engine's working image back in pixels of the uploaded photo as
 * a viewer shows it: the engine may have turned the photo (clockwise, to find
 * upright faces) and downscaled it, so undo the turn, then the scale.
 */
export function toPhotoBox(box: Box, r: Pick<Extract<AnalyzeResult, { ok: true }>, 'width' | 'height' | 'rotation' | 'scale'>): PhotoBox {
  // (x, y) in the turned image -> the upright working image, whose size is (uw, uh).
  const back = (x: number, y: number): [number, number] => {
    switch (r.rotation) {
      case 90: // upright (u, v) went to (uh - v, u); here uh = turned width
        return [y, r.width - x];
      case 180:
        return [r.width - x, r.height - y];
      case 270: // upright (u, v) went to (v, uw - u); here uw = turned height
        return [r.height - y, x];
      default:
        return [x, y];
    }
  };
  const [ax, ay] = back(box.x1, box.y1);
  const [bx, by] = back(box.x2, box.y2);
  const k = 1 / (r.scale > 0 ? r.scale : 1);
  const px = (v: number) => round(v * k, 1);
  return { x1: px(Math.min(ax, bx)), y1: px(Math.min(ay, by)), x2: px(Math.max(ax, bx)), y2: px(Math.max(ay, by)), score: round(box.score, 3) };
}

/**
 * What face match sees in one photo, for the console's playground: the subject
 * it would compare (with the same gates as match), the other faces and the
 * detections dropped as not faces, in the photo's own pixels.
 */
export async function facesInPhoto(engine: FaceEngine, cfg: FaceConfig, image: Buffer): Promise<FacesInPhoto | null> {
  const r = await engine.analyze(image, { checkCard: false });
  if (!r.ok) return null;
  const verdict = assessFace(r, { ...cfg, minBlurVariance: 0 }, { single: true });
  const turned = r.rotation === 90 || r.rotation === 270;
  const k = r.scale > 0 ? r.scale : 1;
  const [subject, ...others] = r.faces;
  return {
    width: Math.round((turned ? r.height : r.width) / k),
    height: Math.round((turned ? r.width : r.height) / k),
    subject: subject ? toPhotoBox(subject, r) : null,
    verdict: verdict.kind === 'occluded' ? `occluded: ${verdict.reason}` : verdict.kind,
    others: others.map((f) => toPhotoBox(f, r)),
    rejected: r.rejected.map((x) => ({ ...toPhotoBox(x.box, r), reason: x.reason })),
    rotation: r.rotation,
  };
}

/**
 * The console's view of one application's collections: the active
 * recogniser, and for each collection the recogniser its faces are embedded
 * by and whether it is the active one ("current"), another one installed here
 * ("reindex": `saola face reindex` moves it) or one this host lacks
 * ("missing"), with the faces a reindex cannot move (no kept crop) and those
 * search no longer reads (left by a forced reindex): their users enrol again.
 */
export async function faceCollectionsView(store: FaceStore, recognisers: FaceRecognisers, appCode: string): Promise<FaceCollectionsView> {
  const active = recognisers.active;
  const collections = (await store.collectionSummaries(appCode)).map((c) => {
    const installed = recognisers.get(c.model) !== undefined;
    return {
      name: c.name,
      recogniser: c.model,
      similarityMap: installed ? recognisers.similarityMap(c.model).version : null,
      faces: c.faces,
      users: c.users,
      withoutCrop: c.withoutCrop,
      notSearchable: c.otherModel,
      state: !installed ? ('missing' as const) : c.model === active.name ? ('current' as const) : ('reindex' as const),
    };
  });
  return {
    recogniser: { name: active.name, embedding: active.output.size, similarityMap: recognisers.similarityMap(active.name).version, installed: recognisers.names() },
    collections,
  };
}
