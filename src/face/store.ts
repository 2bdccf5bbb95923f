import type { Transaction } from 'kysely';
import { uuidv7 } from 'uuidv7';
import { serviceDb, type ServiceDb, type Store } from '../platform/db/database.js';
import type { Database } from '../platform/db/schema.js';
import type { FaceCollectionRow, FaceTables, FaceUserRow } from './schema.js';

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

  async ensureCollection(appCode: string, name: string): Promise<FaceCollectionRow> {
    const found = await this.findCollection(appCode, name);
    if (found) return found;
    const row: FaceCollectionRow = { id: uuidv7(), app_code: appCode, name, created_at: new Date().toISOString(), faces_seq: 0, faces_epoch: 0 };
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
  async addFace(appCode: string, collectionId: string, userRowId: string, embedding: Float32Array, model: string): Promise<{ id: string } & FacesVersion> {
    const id = uuidv7();
    return this.db.transaction().execute(async (trx) => {
      const v = await bumpFacesSeq(trx, appCode, collectionId);
      await insertEmbedding(trx, { id, appCode, collectionId, userRowId, embedding, model, createdAt: new Date().toISOString(), seq: v.seq });
      return { id, ...v };
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
  ): Promise<{ id: string; userRowId: string } & FacesVersion> {
    const id = uuidv7();
    return this.db.transaction().execute(async (trx) => {
      const v = await bumpFacesSeq(trx, appCode, collectionId);
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
      await insertEmbedding(trx, { id, appCode, collectionId, userRowId, embedding, model, createdAt: now, seq: v.seq });
      return { id, userRowId, ...v };
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

  /**
   * Faces per (application, collection, embedding model), for `saola face
   * reindex`; an operator's command across applications, optionally one
   * collection name.
   */
  async facesPerModel(collection?: string): Promise<{ appCode: string; collection: string; model: string; faces: number }[]> {
    const rows = await this.db
      .selectFrom('face_embeddings as e')
      .innerJoin('face_collections as c', (j) => j.onRef('c.id', '=', 'e.collection_id').onRef('c.app_code', '=', 'e.app_code'))
      .select(['e.app_code', 'c.name', 'e.model', (eb) => eb.fn.countAll().as('faces')])
      .$if(collection !== undefined, (q) => q.where('c.name', '=', collection!))
      .groupBy(['e.app_code', 'c.name', 'e.model'])
      .orderBy('e.app_code')
      .orderBy('c.name')
      .orderBy('e.model')
      .execute();
    return rows.map((r) => ({ appCode: r.app_code, collection: r.name, model: r.model, faces: Number(r.faces) }));
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

  /** Deletes a user's faces and moves the collection's epoch in the same transaction (every process's index then rebuilds). */
  async deleteFaces(appCode: string, collectionId: string, userRowId: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await bumpEpoch(trx, appCode, collectionId);
      await trx.deleteFrom('face_embeddings').where('app_code', '=', appCode).where('user_row_id', '=', userRowId).execute();
    });
  }

  async deleteUser(appCode: string, collectionId: string, userRowId: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await bumpEpoch(trx, appCode, collectionId);
      await trx.deleteFrom('face_embeddings').where('app_code', '=', appCode).where('user_row_id', '=', userRowId).execute();
      await trx.deleteFrom('face_users').where('app_code', '=', appCode).where('id', '=', userRowId).execute();
    });
  }

  async deleteCollection(appCode: string, collectionId: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      // Locks the collection row before any face or user row, as addFace does, so the two cannot deadlock.
      await bumpEpoch(trx, appCode, collectionId);
      await trx.deleteFrom('face_embeddings').where('app_code', '=', appCode).where('collection_id', '=', collectionId).execute();
      await trx.deleteFrom('face_users').where('app_code', '=', appCode).where('collection_id', '=', collectionId).execute();
      await trx.deleteFrom('face_collections').where('app_code', '=', appCode).where('id', '=', collectionId).execute();
    });
  }
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
async function bumpFacesSeq(trx: Transaction<Database & FaceTables>, appCode: string, collectionId: string): Promise<FacesVersion> {
  const v = await trx
    .updateTable('face_collections')
    .set((eb) => ({ faces_seq: eb('faces_seq', '+', 1) }))
    .where('id', '=', collectionId)
    .where('app_code', '=', appCode)
    .returning(['faces_seq', 'faces_epoch'])
    .executeTakeFirstOrThrow();
  return { seq: Number(v.faces_seq), epoch: Number(v.faces_epoch) };
}

async function insertEmbedding(
  trx: Transaction<Database & FaceTables>,
  face: { id: string; appCode: string; collectionId: string; userRowId: string; embedding: Float32Array; model: string; createdAt: string; seq: number },
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
    })
    .execute();
}
