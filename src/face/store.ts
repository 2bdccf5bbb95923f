import { sql, type Transaction } from 'kysely';
import { uuidv7 } from 'uuidv7';
import { serviceDb, type ServiceDb, type Store } from '../platform/db/database.js';
import type { Database } from '../platform/db/schema.js';
import { EMBEDDING_MODEL } from './engine/similarity.js';
import type { SimilarityMap } from './engine/similarity.js';
import type { FaceCollectionRow, FaceTables, FaceUserRow } from './schema.js';

/** The recogniser a collection's search serves from. */
export function collectionModel(row: Pick<FaceCollectionRow, 'model'>): string {
  return row.model ?? EMBEDDING_MODEL;
}

/** A reindex switched the collection to another recogniser between the analysis and the add: embed again with `model`. */
export class CollectionModelChanged extends Error {
  override name = 'CollectionModelChanged';
  constructor(readonly model: string) {
    super(`the collection now serves ${model}`);
  }
}

export function encodeEmbedding(v: Float32Array): string {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
}

export function decodeEmbedding(text: string): Float32Array {
  const buf = Buffer.from(text, 'base64');
  const out = new Float32Array(buf.length / 4);
  new Uint8Array(out.buffer).set(buf);
  return out;
}

export interface StoredFace {
  id: string;
  /** The face's number in its collection (commit order). */
  seq: number;
  userRowId: string;
  embedding: Float32Array;
}

/** Where a collection's faces stand: the index is current when both match (see migration 0004_face_search_02). */
export interface FacesVersion {
  epoch: number;
  seq: number;
}

/** Persistence of collections, users and face embeddings; every query is scoped by app_code. */
export class FaceStore {
  readonly db: ServiceDb<FaceTables>;

  constructor(store: Store) {
    this.db = serviceDb<FaceTables>(store.db);
  }

  findCollection(appCode: string, name: string): Promise<FaceCollectionRow | undefined> {
    return this.db.selectFrom('face_collections').selectAll().where('app_code', '=', appCode).where('name', '=', name).executeTakeFirst();
  }

  /** The collection, created serving `model` (default: the shipped recogniser) when it does not exist. */
  async ensureCollection(appCode: string, name: string, model = EMBEDDING_MODEL): Promise<FaceCollectionRow> {
    const found = await this.findCollection(appCode, name);
    if (found) return found;
    const row: FaceCollectionRow = {
      id: uuidv7(),
      app_code: appCode,
      name,
      created_at: new Date().toISOString(),
      faces_seq: 0,
      faces_epoch: 0,
      model: model === EMBEDDING_MODEL ? null : model,
    };
    try {
      await this.db.insertInto('face_collections').values(row).execute();
      return row;
    } catch (err) {
      // A concurrent create won the race: use its row.
      const again = await this.findCollection(appCode, name);
      if (again) return again;
      throw err;
    }
  }

  findUser(appCode: string, collectionId: string, userId: string): Promise<FaceUserRow | undefined> {
    return this.db
      .selectFrom('face_users')
      .selectAll()
      .where('app_code', '=', appCode)
      .where('collection_id', '=', collectionId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
  }

  /** Creates the user, or renames it when it exists (name undefined keeps the current one). */
  async upsertUser(appCode: string, collectionId: string, userId: string, name: string | undefined): Promise<FaceUserRow> {
    const now = new Date().toISOString();
    const found = await this.findUser(appCode, collectionId, userId);
    if (found) {
      if (name !== undefined && name !== found.name) {
        await this.db.updateTable('face_users').set({ name, updated_at: now }).where('id', '=', found.id).where('app_code', '=', appCode).execute();
        return { ...found, name, updated_at: now };
      }
      return found;
    }
    const row: FaceUserRow = { id: uuidv7(), app_code: appCode, collection_id: collectionId, user_id: userId, name: name ?? userId, created_at: now, updated_at: now };
    try {
      await this.db.insertInto('face_users').values(row).execute();
      return row;
    } catch (err) {
      const again = await this.findUser(appCode, collectionId, userId);
      if (again) return again;
      throw err;
    }
  }

  /**
   * Adds a face with the collection's next seq, in one transaction: the
   * collection row's update locks it until commit, so faces of a collection
   * commit in seq order and a reader that sees seq n sees every face up to n.
   */
  async addFace(
    appCode: string,
    collectionId: string,
    userRowId: string,
    embedding: Float32Array,
    model: string,
    crop: { faceId?: string; cropKey?: string } = {},
  ): Promise<{ id: string } & FacesVersion> {
    const id = crop.faceId ?? uuidv7();
    return this.db.transaction().execute(async (trx) => {
      const v = await bumpFacesSeq(trx, appCode, collectionId);
      await insertEmbedding(trx, {
        id,
        appCode,
        collectionId,
        userRowId,
        embedding,
        model,
        createdAt: new Date().toISOString(),
        seq: v.seq,
        cropKey: crop.cropKey ?? null,
      });
      return { id, seq: v.seq, epoch: v.epoch };
    });
  }

  /**
   * Creates or renames the user and adds its face in one transaction, so a
   * process killed half-way leaves neither (a user without its face was seen
   * on PostgreSQL by the crash harness when the two were separate). The
   * collection row is updated first, which serialises adds to the collection,
   * so the user lookup and insert cannot race another add.
   */
  async addUserFace(
    appCode: string,
    collectionId: string,
    userId: string,
    name: string | undefined,
    embedding: Float32Array,
    model: string,
    crop: { faceId?: string; cropKey?: string } = {},
  ): Promise<{ id: string; userRowId: string } & FacesVersion> {
    const id = crop.faceId ?? uuidv7();
    return this.db.transaction().execute(async (trx) => {
      const v = await bumpFacesSeq(trx, appCode, collectionId);
      // Under the collection's row lock: a reindex that switched it meanwhile makes this embedding another recogniser's.
      if (v.model !== model) throw new CollectionModelChanged(v.model);
      const now = new Date().toISOString();
      const found = await trx
        .selectFrom('face_users')
        .selectAll()
        .where('app_code', '=', appCode)
        .where('collection_id', '=', collectionId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      let userRowId: string;
      if (found) {
        userRowId = found.id;
        if (name !== undefined && name !== found.name) {
          await trx.updateTable('face_users').set({ name, updated_at: now }).where('id', '=', found.id).where('app_code', '=', appCode).execute();
        }
      } else {
        userRowId = uuidv7();
        await trx
          .insertInto('face_users')
          .values({ id: userRowId, app_code: appCode, collection_id: collectionId, user_id: userId, name: name ?? userId, created_at: now, updated_at: now })
          .execute();
      }
      await insertEmbedding(trx, { id, appCode, collectionId, userRowId, embedding, model, createdAt: now, seq: v.seq, cropKey: crop.cropKey ?? null });
      return { id, userRowId, seq: v.seq, epoch: v.epoch };
    });
  }

  /** The collection's counters (one primary-key read; findCollection returns them too). */
  async facesVersion(appCode: string, collectionId: string): Promise<FacesVersion | undefined> {
    const row = await this.db
      .selectFrom('face_collections')
      .select(['faces_seq', 'faces_epoch'])
      .where('app_code', '=', appCode)
      .where('id', '=', collectionId)
      .executeTakeFirst();
    return row && { seq: Number(row.faces_seq), epoch: Number(row.faces_epoch) };
  }

  /**
   * A collection's faces in seq order; with `page`, those with
   * afterSeq < seq <= afterSeq + span (a range of the (collection_id, seq)
   * index: the index cache's FacePageLoader). With `model`, only the faces
   * embedded by that model: search never compares two models' vectors.
   */
  async listFaces(appCode: string, collectionId: string, page: { afterSeq?: number; span?: number; model?: string } = {}): Promise<StoredFace[]> {
    const rows = await this.db
      .selectFrom('face_embeddings')
      .select(['id', 'seq', 'user_row_id', 'embedding'])
      .where('collection_id', '=', collectionId)
      .where('app_code', '=', appCode)
      .$if(page.afterSeq !== undefined, (q) => q.where('seq', '>', page.afterSeq!))
      .$if(page.span !== undefined, (q) => q.where('seq', '<=', (page.afterSeq ?? 0) + page.span!))
      .$if(page.model !== undefined, (q) => q.where('model', '=', page.model!))
      .orderBy('collection_id')
      .orderBy('seq')
      .execute();
    return rows.map((r) => ({ id: r.id, seq: Number(r.seq), userRowId: r.user_row_id, embedding: decodeEmbedding(r.embedding) }));
  }

  async usersByRowId(appCode: string, ids: string[]): Promise<Map<string, FaceUserRow>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.selectFrom('face_users').selectAll().where('app_code', '=', appCode).where('id', 'in', ids).execute();
    return new Map(rows.map((r) => [r.id, r]));
  }

  listUsers(appCode: string, collectionId: string, page?: { limit?: number; offset?: number }): Promise<FaceUserRow[]> {
    let q = this.db.selectFrom('face_users').selectAll().where('app_code', '=', appCode).where('collection_id', '=', collectionId).orderBy('id');
    if (page?.limit !== undefined) q = q.limit(page.limit);
    if (page?.offset !== undefined) q = q.offset(page.offset).limit(page.limit ?? 1_000_000_000);
    return q.execute();
  }

  /** Deletes a user's faces and moves the collection's epoch in the same transaction (every process's index then rebuilds); answers their crops' keys. */
  async deleteFaces(appCode: string, collectionId: string, userRowId: string): Promise<string[]> {
    return this.db.transaction().execute(async (trx) => {
      await bumpEpoch(trx, appCode, collectionId);
      const crops = await cropKeysOf(trx, appCode, userRowId);
      await trx.deleteFrom('face_embeddings').where('app_code', '=', appCode).where('user_row_id', '=', userRowId).execute();
      return crops;
    });
  }

  async deleteUser(appCode: string, collectionId: string, userRowId: string): Promise<string[]> {
    return this.db.transaction().execute(async (trx) => {
      await bumpEpoch(trx, appCode, collectionId);
      const crops = await cropKeysOf(trx, appCode, userRowId);
      await trx.deleteFrom('face_embeddings').where('app_code', '=', appCode).where('user_row_id', '=', userRowId).execute();
      await trx.deleteFrom('face_users').where('app_code', '=', appCode).where('id', '=', userRowId).execute();
      return crops;
    });
  }

  async deleteCollection(appCode: string, collectionId: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      // Locks the collection row before any face or user row, as addFace does, so the two cannot deadlock.
      await bumpEpoch(trx, appCode, collectionId);
      await trx.deleteFrom('face_staged_embeddings').where('app_code', '=', appCode).where('collection_id', '=', collectionId).execute();
      await trx.deleteFrom('face_embeddings').where('app_code', '=', appCode).where('collection_id', '=', collectionId).execute();
      await trx.deleteFrom('face_users').where('app_code', '=', appCode).where('collection_id', '=', collectionId).execute();
      await trx.deleteFrom('face_collections').where('app_code', '=', appCode).where('id', '=', collectionId).execute();
    });
  }

  /** Every collection of every application (an operator's reindex), optionally by name. */
  allCollections(name?: string): Promise<FaceCollectionRow[]> {
    return this.db
      .selectFrom('face_collections')
      .selectAll()
      .$if(name !== undefined, (q) => q.where('name', '=', name!))
      .orderBy('app_code')
      .orderBy('name')
      .execute();
  }

  /**
   * Every collection of an application with its counts: faces, users, faces
   * without a kept crop, and faces whose vectors are not the collection's
   * recogniser's (search skips them). One grouped read over the
   * application's faces, for the console.
   */
  async collectionSummaries(appCode: string): Promise<{ name: string; model: string; faces: number; users: number; withoutCrop: number; otherModel: number }[]> {
    const rows = await this.db
      .selectFrom('face_collections as c')
      .leftJoin('face_embeddings as e', (j) => j.onRef('e.collection_id', '=', 'c.id').onRef('e.app_code', '=', 'c.app_code'))
      .select((eb) => [
        'c.name',
        'c.model',
        eb.fn.count('e.id').as('faces'),
        eb
          .selectFrom('face_users as u')
          .select((u) => u.fn.countAll().as('n'))
          .whereRef('u.collection_id', '=', 'c.id')
          .whereRef('u.app_code', '=', 'c.app_code')
          .as('users'),
        sql<number>`sum(case when e.id is not null and e.crop_key is null then 1 else 0 end)`.as('without_crop'),
        sql<number>`sum(case when e.model <> coalesce(c.model, ${EMBEDDING_MODEL}) then 1 else 0 end)`.as('other_model'),
      ])
      .where('c.app_code', '=', appCode)
      .groupBy(['c.id', 'c.name', 'c.model'])
      .orderBy('c.name')
      .execute();
    return rows.map((r) => ({
      name: r.name,
      model: collectionModel(r),
      faces: Number(r.faces),
      users: Number(r.users),
      withoutCrop: Number(r.without_crop ?? 0),
      otherModel: Number(r.other_model ?? 0),
    }));
  }

  /** Faces of a collection without a kept crop (enrolled before crops were kept): their users must enrol again. */
  async facesWithoutCrop(appCode: string, collectionId: string): Promise<{ userId: string; faces: number }[]> {
    const rows = await this.db
      .selectFrom('face_embeddings as e')
      .innerJoin('face_users as u', 'u.id', 'e.user_row_id')
      .select(['u.user_id', (eb) => eb.fn.countAll().as('faces')])
      .where('e.app_code', '=', appCode)
      .where('e.collection_id', '=', collectionId)
      .where('e.crop_key', 'is', null)
      .groupBy('u.user_id')
      .orderBy('u.user_id')
      .execute();
    return rows.map((r) => ({ userId: r.user_id, faces: Number(r.faces) }));
  }

  /** A face whose crop is missing from the blob store: it is then listed with the faces enrolled without one. */
  async forgetCrop(appCode: string, faceId: string): Promise<void> {
    await this.db.updateTable('face_embeddings').set({ crop_key: null }).where('app_code', '=', appCode).where('id', '=', faceId).execute();
  }

  /** Faces with a crop, and how many of them already have a staged embedding by `model`. */
  async reindexProgress(appCode: string, collectionId: string, model: string): Promise<{ faces: number; staged: number }> {
    const faces = await this.db
      .selectFrom('face_embeddings')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('app_code', '=', appCode)
      .where('collection_id', '=', collectionId)
      .where('crop_key', 'is not', null)
      .executeTakeFirstOrThrow();
    const staged = await this.db
      .selectFrom('face_staged_embeddings')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('app_code', '=', appCode)
      .where('collection_id', '=', collectionId)
      .where('model', '=', model)
      .executeTakeFirstOrThrow();
    return { faces: Number(faces.n), staged: Number(staged.n) };
  }

  /** Staged embeddings of another recogniser than `model` (an earlier reindex to another target) are dropped. */
  async dropOtherStaged(appCode: string, collectionId: string, model: string): Promise<void> {
    await this.db.deleteFrom('face_staged_embeddings').where('app_code', '=', appCode).where('collection_id', '=', collectionId).where('model', '<>', model).execute();
  }

  /**
   * The next faces (by seq, after `afterSeq`) with a crop and no staged
   * embedding by `model`. The caller passes the last seq it staged, so each
   * batch starts where the previous one ended (by the `(collection_id, seq)`
   * index) instead of walking every already-staged face again: without the
   * cursor a reindex of n faces read n^2/(2 x batch) rows.
   */
  async facesToReembed(appCode: string, collectionId: string, model: string, limit: number, afterSeq = 0): Promise<{ id: string; seq: number; cropKey: string }[]> {
    const rows = await this.db
      .selectFrom('face_embeddings as e')
      .leftJoin('face_staged_embeddings as s', (j) => j.onRef('s.face_id', '=', 'e.id').on('s.model', '=', model))
      .select(['e.id', 'e.seq', 'e.crop_key'])
      .where('e.app_code', '=', appCode)
      .where('e.collection_id', '=', collectionId)
      .where('e.seq', '>', afterSeq)
      .where('e.crop_key', 'is not', null)
      .where('s.face_id', 'is', null)
      .orderBy('e.seq')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ id: r.id, seq: Number(r.seq), cropKey: r.crop_key! }));
  }

  /** Stages a batch of embeddings by `model` in one transaction (a face deleted meanwhile is skipped). */
  async stageEmbeddings(appCode: string, collectionId: string, model: string, rows: { faceId: string; embedding: Float32Array }[]): Promise<void> {
    if (rows.length === 0) return;
    const now = new Date().toISOString();
    await this.db.transaction().execute(async (trx) => {
      const present = new Set(
        (
          await trx
            .selectFrom('face_embeddings')
            .select('id')
            .where('app_code', '=', appCode)
            .where(
              'id',
              'in',
              rows.map((r) => r.faceId),
            )
            .execute()
        ).map((r) => r.id),
      );
      const values = rows
        .filter((r) => present.has(r.faceId))
        .map((r) => ({ face_id: r.faceId, app_code: appCode, collection_id: collectionId, model, embedding: encodeEmbedding(r.embedding), created_at: now }));
      if (values.length > 0)
        await trx
          .insertInto('face_staged_embeddings')
          .values(values)
          .onConflict((oc) => oc.column('face_id').doNothing())
          .execute();
    });
  }

  /**
   * Switches the collection to `model` in one transaction: its row is locked
   * first (adds wait), and only when every face with a crop has a staged
   * embedding (a face added since is re-embedded first: answers false) are the
   * staged embeddings folded in, the collection's recogniser set and its
   * epoch moved, so every process rebuilds its index from the new vectors.
   * Faces without a crop keep the old recogniser's vectors, which search no longer reads.
   */
  async switchCollection(appCode: string, collectionId: string, model: string): Promise<boolean> {
    const notYet = new Error('faces without a staged embedding');
    try {
      await this.switchNow(appCode, collectionId, model, notYet);
      return true;
    } catch (err) {
      if (err === notYet) return false;
      throw err;
    }
  }

  private async switchNow(appCode: string, collectionId: string, model: string, notYet: Error): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await bumpEpoch(trx, appCode, collectionId);
      const missing = await trx
        .selectFrom('face_embeddings as e')
        .leftJoin('face_staged_embeddings as s', (j) => j.onRef('s.face_id', '=', 'e.id').on('s.model', '=', model))
        .select((eb) => eb.fn.countAll().as('n'))
        .where('e.app_code', '=', appCode)
        .where('e.collection_id', '=', collectionId)
        .where('e.crop_key', 'is not', null)
        .where('s.face_id', 'is', null)
        .executeTakeFirstOrThrow();
      // Thrown to roll back: the epoch must not move when nothing switched.
      if (Number(missing.n) > 0) throw notYet;
      await sql`update face_embeddings set embedding = s.embedding, model = s.model
        from face_staged_embeddings as s
        where s.face_id = face_embeddings.id and s.model = ${model}
          and face_embeddings.collection_id = ${collectionId} and face_embeddings.app_code = ${appCode}`.execute(trx);
      await trx
        .updateTable('face_collections')
        .set({ model: model === EMBEDDING_MODEL ? null : model })
        .where('app_code', '=', appCode)
        .where('id', '=', collectionId)
        .execute();
      await trx.deleteFrom('face_staged_embeddings').where('app_code', '=', appCode).where('collection_id', '=', collectionId).execute();
    });
  }

  /** Calibrated similarity maps by recogniser name. */
  async similarityMaps(): Promise<Map<string, SimilarityMap>> {
    const rows = await this.db.selectFrom('face_similarity_maps').select(['model', 'version', 'knots']).execute();
    return new Map(rows.map((r) => [r.model, { version: r.version, knots: JSON.parse(r.knots) as [number, number][] }]));
  }

  async storeSimilarityMap(model: string, map: SimilarityMap, report: unknown): Promise<void> {
    const row = { model, version: map.version, knots: JSON.stringify(map.knots), report: JSON.stringify(report), fitted_at: new Date().toISOString() };
    await this.db
      .insertInto('face_similarity_maps')
      .values(row)
      .onConflict((oc) => oc.column('model').doUpdateSet({ version: row.version, knots: row.knots, report: row.report, fitted_at: row.fitted_at }))
      .execute();
  }
}

async function cropKeysOf(trx: ServiceDb<FaceTables>, appCode: string, userRowId: string): Promise<string[]> {
  const rows = await trx.selectFrom('face_embeddings').select('crop_key').where('app_code', '=', appCode).where('user_row_id', '=', userRowId).execute();
  return rows.flatMap((r) => (r.crop_key ? [r.crop_key] : []));
}

/** Taken first, so the collection row is locked before any face row (the order addFace uses too: no deadlock). */
async function bumpEpoch(trx: ServiceDb<FaceTables>, appCode: string, collectionId: string): Promise<void> {
  await trx
    .updateTable('face_collections')
    .set((eb) => ({ faces_epoch: eb('faces_epoch', '+', 1) }))
    .where('id', '=', collectionId)
    .where('app_code', '=', appCode)
    .execute();
}

/**
 * Takes the collection's next face seq. The update locks the collection row until commit, so faces of a
 * collection commit in seq order (and adds to one collection are serialised).
 */
async function bumpFacesSeq(trx: Transaction<Database & FaceTables>, appCode: string, collectionId: string): Promise<FacesVersion & { model: string }> {
  const v = await trx
    .updateTable('face_collections')
    .set((eb) => ({ faces_seq: eb('faces_seq', '+', 1) }))
    .where('id', '=', collectionId)
    .where('app_code', '=', appCode)
    .returning(['faces_seq', 'faces_epoch', 'model'])
    .executeTakeFirstOrThrow();
  return { seq: Number(v.faces_seq), epoch: Number(v.faces_epoch), model: collectionModel(v) };
}

async function insertEmbedding(
  trx: Transaction<Database & FaceTables>,
  face: {
    id: string;
    appCode: string;
    collectionId: string;
    userRowId: string;
    embedding: Float32Array;
    model: string;
    createdAt: string;
    seq: number;
    cropKey: string | null;
  },
): Promise<void> {
  await trx
    .insertInto('face_embeddings')
    .values({
      id: face.id,
      app_code: face.appCode,
      collection_id: face.collectionId,
      user_row_id: face.userRowId,
      embedding: encodeEmbedding(face.embedding),
      model: face.model,
      created_at: face.createdAt,
      seq: face.seq,
      crop_key: face.cropKey,
    })
    .execute();
}
