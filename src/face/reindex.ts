import fs from 'node:fs';
import sharp from 'sharp';
import { BlobNotFoundError } from '../platform/blobs/store.js';
import type { RgbImage } from './engine/image.js';
import { fileSha256, loadVerifiedModels } from './engine/models.js';
import { embedCrop, recogniserSession, type RecogniserSpec } from './engine/recogniser.js';
import { EMBEDDING_MODEL } from './engine/similarity.js';
import type { FaceCrops } from './crops.js';
import { collectionModel, type FaceStore } from './store.js';

/**
 * `saola face reindex --model NAME`: every collection not yet served by NAME
 * is re-embedded from its faces' kept crops into staged embeddings while
 * search keeps reading the served ones, then switched in one transaction
 * (store.switchCollection). Staged embeddings are committed batch by batch, so
 * a run that stops (crash, kill) continues where it stopped when run again.
 */
export interface ReindexOptions {
  store: FaceStore;
  crops: FaceCrops;
  /** The target recogniser's name and its embedding of one kept crop. */
  model: string;
  embed: (crop: RgbImage) => Promise<Float32Array>;
  /** One collection name (in every application), or all. */
  collection?: string;
  /** Switch collections that hold faces without a crop too (those faces then leave search until enrolled again). */
  force?: boolean;
  /** Faces re-embedded per committed batch. */
  batch?: number;
  /** Progress lines, at most one per `progressMs` per collection, and the outcome of each. */
  report: (line: string) => void;
  progressMs?: number;
}

export interface ReindexOutcome {
  appCode: string;
  collection: string;
  outcome: 'switched' | 'already' | 'held';
  faces: number;
  /** Users whose faces have no crop: they must enrol again. */
  withoutCrop: { userId: string; faces: number }[];
}

async function decodeCrop(png: Buffer): Promise<RgbImage> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height };
}

export async function reindexFaces(o: ReindexOptions): Promise<ReindexOutcome[]> {
  const batch = o.batch ?? 32;
  const progressMs = o.progressMs ?? 2000;
  const outcomes: ReindexOutcome[] = [];
  for (const coll of await o.store.allCollections(o.collection)) {
    const where = `application ${coll.app_code}, collection "${coll.name}"`;
    const withoutCrop = await o.store.facesWithoutCrop(coll.app_code, coll.id);
    if (collectionModel(coll) === o.model) {
      outcomes.push({ appCode: coll.app_code, collection: coll.name, outcome: 'already', faces: 0, withoutCrop: [] });
      o.report(`${where}: already served by ${o.model}\n`);
      continue;
    }
    if (withoutCrop.length > 0 && !o.force) {
      outcomes.push({ appCode: coll.app_code, collection: coll.name, outcome: 'held', faces: 0, withoutCrop });
      o.report(`${where}: not switched: ${withoutCrop.reduce((a, u) => a + u.faces, 0)} face(s) of ${withoutCrop.length} user(s) have no kept photo\n`);
      continue;
    }
    await o.store.dropOtherStaged(coll.app_code, coll.id, o.model);
    const started = Date.now();
    let { faces: total, staged: done } = await o.store.reindexProgress(coll.app_code, coll.id, o.model);
    const resumed = done;
    let lastReport = 0;
    const progress = (force: boolean) => {
      const now = Date.now();
      if (!force && now - lastReport < progressMs) return;
      lastReport = now;
      const rate = ((done - resumed) / Math.max(0.001, (now - started) / 1000)).toFixed(1);
      o.report(`${where}: ${done}/${total} face(s) re-embedded by ${o.model} (${rate}/s)\n`);
    };
    if (resumed > 0) o.report(`${where}: resuming, ${resumed} face(s) already re-embedded\n`);
    // Seqs only grow, so faces after the cursor are the ones not yet looked at; a failed switch looks again from the start.
    let afterSeq = 0;
    for (;;) {
      const next = await o.store.facesToReembed(coll.app_code, coll.id, o.model, batch, afterSeq);
      if (next.length === 0) {
        if (await o.store.switchCollection(coll.app_code, coll.id, o.model)) break;
        // Faces were added since the last batch: re-embed them, then try again.
        total = (await o.store.reindexProgress(coll.app_code, coll.id, o.model)).faces;
        afterSeq = 0;
        continue;
      }
      afterSeq = next[next.length - 1].seq;
      const staged: { faceId: string; embedding: Float32Array }[] = [];
      for (const face of next) {
        let png: Buffer;
        try {
          png = await o.crops.read(face.cropKey);
        } catch (err) {
          if (!(err instanceof BlobNotFoundError)) throw err;
          // The crop is gone from the blob store: the face is listed with those to enrol again.
          await o.store.forgetCrop(coll.app_code, face.id);
          total--;
          continue;
        }
        staged.push({ faceId: face.id, embedding: await o.embed(await decodeCrop(png)) });
      }
      await o.store.stageEmbeddings(coll.app_code, coll.id, o.model, staged);
      done += staged.length;
      progress(false);
    }
    progress(true);
    const left = await o.store.facesWithoutCrop(coll.app_code, coll.id);
    outcomes.push({ appCode: coll.app_code, collection: coll.name, outcome: 'switched', faces: done, withoutCrop: left });
    o.report(`${where}: switched to ${o.model} (${done} face(s) in ${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
  }
  return outcomes;
}

/** The target recogniser's embedding of a kept crop, in this process (its sha256 checked first). */
export async function cropEmbedder(spec: RecogniserSpec, modelDir?: string): Promise<(crop: RgbImage) => Promise<Float32Array>> {
  const bytes = spec.name === EMBEDDING_MODEL ? loadVerifiedModels(modelDir, ['feature'] as const).feature : fs.readFileSync(spec.file);
  if (spec.name !== EMBEDDING_MODEL && fileSha256(spec.file) !== spec.sha256)
    throw new Error(`Face recogniser ${spec.file} does not match its recorded sha256: refusing to load it`);
  const session = await recogniserSession(bytes);
  return (crop) => embedCrop(session, spec, crop);
}
