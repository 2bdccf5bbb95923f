import type { Kysely } from 'kysely';
import { uuidv7 } from 'uuidv7';
import type { Store } from '../platform/db/database.js';
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
  userRowId: string;
  embedding: Float32Array;
}

/** Persistence of collections, users and face embeddings; every query is scoped by app_code. */
export class FaceStore {
  readonly db: Kysely<FaceTables>;

  constructor(store: Store) {
    this.db = store.db.withTables<FaceTables>() as unknown as Kysely<FaceTables>;
  }

  findCollection(appCode: string, name: string): Promise<FaceCollectionRow | undefined> {
    return this.db.selectFrom('face_collections').selectAll().where('app_code', '=', appCode).where('name', '=', name).executeTakeFirst();
  }

  async ensureCollection(appCode: string, name: string): Promise<FaceCollectionRow> {
    const found = await this.findCollection(appCode, name);
    if (found) return found;
    const row: FaceCollectionRow = { id: uuidv7(), app_code: appCode, name, created_at: new Date().toISOString() };
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

  /** Returns the new row's id (UUIDv7: later rows sort after earlier ones). */
  async addFace(appCode: string, collectionId: string, userRowId: string, embedding: Float32Array, model: string): Promise<string> {
    const id = uuidv7();
    await this.db
      .insertInto('face_embeddings')
      .values({
        id,
        app_code: appCode,
        collection_id: collectionId,
        user_row_id: userRowId,
        embedding: encodeEmbedding(embedding),
        model,
        created_at: new Date().toISOString(),
      })
      .execute();
    return id;
  }

  /** "count:last id" of a collection's faces: changes whenever any process adds or deletes one. */
  async facesStamp(appCode: string, collectionId: string): Promise<string> {
    const row = await this.db
      .selectFrom('face_embeddings')
      .select((eb) => [eb.fn.countAll<string | number>().as('n'), eb.fn.max('id').as('last')])
      .where('app_code', '=', appCode)
      .where('collection_id', '=', collectionId)
      .executeTakeFirst();
    return `${Number(row?.n ?? 0)}:${row?.last ?? ''}`;
  }

  async listFaces(appCode: string, collectionId: string): Promise<StoredFace[]> {
    const rows = await this.db
      .selectFrom('face_embeddings')
      .select(['user_row_id', 'embedding'])
      .where('app_code', '=', appCode)
      .where('collection_id', '=', collectionId)
      .orderBy('id')
      .execute();
    return rows.map((r) => ({ userRowId: r.user_row_id, embedding: decodeEmbedding(r.embedding) }));
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

  async deleteFaces(appCode: string, userRowId: string): Promise<void> {
    await this.db.deleteFrom('face_embeddings').where('app_code', '=', appCode).where('user_row_id', '=', userRowId).execute();
  }

  async deleteUser(appCode: string, userRowId: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('face_embeddings').where('app_code', '=', appCode).where('user_row_id', '=', userRowId).execute();
      await trx.deleteFrom('face_users').where('app_code', '=', appCode).where('id', '=', userRowId).execute();
    });
  }

  async deleteCollection(appCode: string, collectionId: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('face_embeddings').where('app_code', '=', appCode).where('collection_id', '=', collectionId).execute();
      await trx.deleteFrom('face_users').where('app_code', '=', appCode).where('collection_id', '=', collectionId).execute();
      await trx.deleteFrom('face_collections').where('app_code', '=', appCode).where('id', '=', collectionId).execute();
    });
  }
}
