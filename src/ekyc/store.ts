import type { Kysely } from 'kysely';
import { serviceDb, type ServiceDb } from '../platform/db/database.js';
import type { Database } from '../platform/db/schema.js';
import type { EkycAttemptRow, EkycFraudMemoryRow, EkycImageRow, EkycSessionRow, EkycTables } from './schema.js';

/** A session as it starts: no side, no selfie yet. */
export function newSessionRow(id: string, appCode: string, deviceType: string, clientUuid: string | null, created: Date, lifetimeMs: number): EkycSessionRow {
  return {
    id,
    app_code: appCode,
    device_type: deviceType,
    client_uuid: clientUuid,
    status: 'open',
    document_type: null,
    front: null,
    back: null,
    id_number: null,
    document_face: null,
    attempts: 0,
    result: null,
    created_time: created.toISOString(),
    expires_time: new Date(created.getTime() + lifetimeMs).toISOString(),
    completed_time: null,
  };
}

export type EkycDb = ServiceDb<EkycTables>;

/** Which sessions a retention cut applies to: one application's, or every one's but those named. */
export interface RetentionScope {
  app?: string;
  exceptApps?: readonly string[];
}

/** The session columns a step may change. */
export type SessionChange = Partial<
  Pick<EkycSessionRow, 'status' | 'document_type' | 'front' | 'back' | 'id_number' | 'document_face' | 'attempts' | 'result' | 'completed_time'>
>;

/** What the eKYC flow keeps. Every method takes the application: nothing reads or touches another's sessions. */
export interface EkycStore {
  createSession(row: EkycSessionRow): Promise<void>;
  session(appCode: string, id: string): Promise<EkycSessionRow | undefined>;
  /**
   * Applies `change` only while the session still has `expect`'s values (two requests racing on one session:
   * one wins, the other sees false and answers from the state the winner left).
   */
  updateSession(appCode: string, id: string, expect: Partial<Pick<EkycSessionRow, 'status' | 'attempts' | 'front' | 'back'>>, change: SessionChange): Promise<boolean>;
  addImage(row: EkycImageRow): Promise<void>;
  /** A refused side, with its image row when it has one (written together). */
  addAttempt(row: EkycAttemptRow, image?: EkycImageRow): Promise<void>;
  /** How many refused sides of the session kept their image. */
  keptAttemptImages(appCode: string, sessionId: string): Promise<number>;
  /** The blob keys of an application's images (purge). */
  imageKeysOfApp(appCode: string): Promise<string[]>;
  /**
   * Sessions started before `before` (retention), of one application or of every application but some: their
   * images' blob keys, then the sessions themselves.
   */
  expiredImageKeys(before: string, limit: number, scope?: RetentionScope): Promise<{ sessionIds: string[]; keys: string[] }>;
  deleteSessions(ids: string[]): Promise<number>;
  remember(row: EkycFraudMemoryRow): Promise<void>;
  /** The memory in force at `now` for an ID number (the newest first). */
  rememberedId(appCode: string, idNumber: string, now: string): Promise<EkycFraudMemoryRow | undefined>;
  /** Every face in force at `now` (a window's worth: few rows). */
  rememberedFaces(appCode: string, now: string): Promise<Pick<EkycFraudMemoryRow, 'session_id' | 'face'>[]>;
  forgetExpired(now: string): Promise<number>;
}

/** The store on the platform's Kysely database (SQLite or PostgreSQL alike). */
export class SqlEkycStore implements EkycStore {
  constructor(readonly db: EkycDb) {}

  static over(db: Kysely<Database>): SqlEkycStore {
    return new SqlEkycStore(serviceDb<EkycTables>(db));
  }

  async createSession(row: EkycSessionRow): Promise<void> {
    await this.db.insertInto('ekyc_sessions').values(row).execute();
  }

  session(appCode: string, id: string): Promise<EkycSessionRow | undefined> {
    return this.db.selectFrom('ekyc_sessions').selectAll().where('app_code', '=', appCode).where('id', '=', id).executeTakeFirst();
  }

  async updateSession(
    appCode: string,
    id: string,
    expect: Partial<Pick<EkycSessionRow, 'status' | 'attempts' | 'front' | 'back'>>,
    change: SessionChange,
  ): Promise<boolean> {
    let query = this.db.updateTable('ekyc_sessions').set(change).where('app_code', '=', appCode).where('id', '=', id);
    for (const [column, value] of Object.entries(expect) as [keyof typeof expect, string | number | null][]) {
      query = value === null ? query.where(column, 'is', null) : query.where(column, '=', value);
    }
    const result = await query.executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async addImage(row: EkycImageRow): Promise<void> {
    await this.db.insertInto('ekyc_images').values(row).execute();
  }

  async addAttempt(row: EkycAttemptRow, image?: EkycImageRow): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      if (image) await tx.insertInto('ekyc_images').values(image).execute();
      await tx.insertInto('ekyc_attempts').values(row).execute();
    });
  }

  async keptAttemptImages(appCode: string, sessionId: string): Promise<number> {
    const row = await this.db
      .selectFrom('ekyc_attempts')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('app_code', '=', appCode)
      .where('session_id', '=', sessionId)
      .where('image_id', 'is not', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async imageKeysOfApp(appCode: string): Promise<string[]> {
    const rows = await this.db.selectFrom('ekyc_images').select('blob_key').where('app_code', '=', appCode).execute();
    return rows.map((r) => r.blob_key);
  }

  async expiredImageKeys(before: string, limit: number, scope: RetentionScope = {}): Promise<{ sessionIds: string[]; keys: string[] }> {
    let query = this.db.selectFrom('ekyc_sessions').select('id').where('created_time', '<', before);
    if (scope.app !== undefined) query = query.where('app_code', '=', scope.app);
    if (scope.exceptApps?.length) query = query.where('app_code', 'not in', scope.exceptApps);
    const sessions = await query.orderBy('created_time').limit(limit).execute();
    const sessionIds = sessions.map((s) => s.id);
    if (sessionIds.length === 0) return { sessionIds, keys: [] };
    const images = await this.db.selectFrom('ekyc_images').select('blob_key').where('session_id', 'in', sessionIds).execute();
    return { sessionIds, keys: images.map((i) => i.blob_key) };
  }

  async deleteSessions(ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    // Attempts and images first: the reference would hold the sessions back on a store without cascades enforced.
    await this.db.deleteFrom('ekyc_attempts').where('session_id', 'in', ids).execute();
    await this.db.deleteFrom('ekyc_images').where('session_id', 'in', ids).execute();
    const result = await this.db.deleteFrom('ekyc_sessions').where('id', 'in', ids).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async remember(row: EkycFraudMemoryRow): Promise<void> {
    await this.db.insertInto('ekyc_fraud_memory').values(row).execute();
  }

  rememberedId(appCode: string, idNumber: string, now: string): Promise<EkycFraudMemoryRow | undefined> {
    return this.db
      .selectFrom('ekyc_fraud_memory')
      .selectAll()
      .where('app_code', '=', appCode)
      .where('id_number', '=', idNumber)
      .where('expires_time', '>', now)
      .orderBy('created_time', 'desc')
      .executeTakeFirst();
  }

  rememberedFaces(appCode: string, now: string): Promise<Pick<EkycFraudMemoryRow, 'session_id' | 'face'>[]> {
    return this.db
      .selectFrom('ekyc_fraud_memory')
      .select(['session_id', 'face'])
      .where('app_code', '=', appCode)
      .where('face', 'is not', null)
      .where('expires_time', '>', now)
      .execute();
  }

  async forgetExpired(now: string): Promise<number> {
    const result = await this.db.deleteFrom('ekyc_fraud_memory').where('expires_time', '<=', now).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
