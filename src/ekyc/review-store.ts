import type { Kysely } from 'kysely';
import { serviceDb, type ServiceDb } from '../platform/db/database.js';
import type { Database } from '../platform/db/schema.js';
import type { DocumentType } from './config.js';
import type { EkycAuditRow, EkycReviewRow, EkycReviewTables, EkycWebhookDeliveryRow, EkycWebhookRow, ReviewDecision } from './review-schema.js';
import type { EkycAttemptRow, EkycFraudMemoryRow, EkycImageRow, EkycSessionRow, EkycTables, SessionStatus } from './schema.js';

type DeskDb = ServiceDb<EkycTables & EkycReviewTables>;

/** Which sessions the desk lists: all of one application's, narrowed by these. */
export interface SessionFilter {
  status?: SessionStatus;
  /** Ended (complete or failed) and not decided yet. */
  needsReview?: boolean;
  documentType?: DocumentType;
  /** Started at or after / before these ISO times. */
  from?: string;
  to?: string;
  /** Keyset paging: sessions started before this session (ids are UUIDv7, so they sort by creation). */
  beforeId?: string;
  limit: number;
}

/** A line of the desk's list: the session's state and its decision, if any. */
export type SessionLine = Pick<EkycSessionRow, 'id' | 'device_type' | 'status' | 'document_type' | 'attempts' | 'result' | 'created_time' | 'completed_time'> & {
  decision: ReviewDecision | null;
};

export type DeliveryChange = Partial<Pick<EkycWebhookDeliveryRow, 'status' | 'attempts' | 'response_status' | 'last_error' | 'url' | 'updated_time'>>;

/** The review desk's and the webhooks' rows. Every method takes the application: nothing reads another's. */
export class ReviewStore {
  constructor(readonly db: DeskDb) {}

  static over(db: Kysely<Database>): ReviewStore {
    return new ReviewStore(serviceDb<EkycTables & EkycReviewTables>(db));
  }

  async sessions(appCode: string, filter: SessionFilter): Promise<SessionLine[]> {
    let query = this.db
      .selectFrom('ekyc_sessions as s')
      .leftJoin('ekyc_reviews as r', (join) => join.onRef('r.session_id', '=', 's.id').onRef('r.app_code', '=', 's.app_code'))
      .select(['s.id', 's.device_type', 's.status', 's.document_type', 's.attempts', 's.result', 's.created_time', 's.completed_time', 'r.decision'])
      .where('s.app_code', '=', appCode);
    if (filter.status) query = query.where('s.status', '=', filter.status);
    if (filter.needsReview) query = query.where('s.status', 'in', ['complete', 'failed']).where('r.decision', 'is', null);
    if (filter.documentType) query = query.where('s.document_type', '=', filter.documentType);
    if (filter.from) query = query.where('s.created_time', '>=', filter.from);
    if (filter.to) query = query.where('s.created_time', '<', filter.to);
    if (filter.beforeId) query = query.where('s.id', '<', filter.beforeId);
    return query.orderBy('s.id', 'desc').limit(filter.limit).execute();
  }

  session(appCode: string, id: string): Promise<EkycSessionRow | undefined> {
    return this.db.selectFrom('ekyc_sessions').selectAll().where('app_code', '=', appCode).where('id', '=', id).executeTakeFirst();
  }

  images(appCode: string, sessionId: string): Promise<EkycImageRow[]> {
    return this.db
      .selectFrom('ekyc_images')
      .selectAll()
      .where('app_code', '=', appCode)
      .where('session_id', '=', sessionId)
      .orderBy('created_time')
      .orderBy('id')
      .execute();
  }

  image(appCode: string, sessionId: string, imageId: string): Promise<EkycImageRow | undefined> {
    return this.db.selectFrom('ekyc_images').selectAll().where('app_code', '=', appCode).where('session_id', '=', sessionId).where('id', '=', imageId).executeTakeFirst();
  }

  /** The sides the flow refused in this session, in the order they came. */
  attempts(appCode: string, sessionId: string): Promise<EkycAttemptRow[]> {
    return this.db
      .selectFrom('ekyc_attempts')
      .selectAll()
      .where('app_code', '=', appCode)
      .where('session_id', '=', sessionId)
      .orderBy('created_time')
      .orderBy('id')
      .execute();
  }

  /** The fraud memory this session left (its fraud and spoof results), newest first. */
  fraudMemory(appCode: string, sessionId: string): Promise<Pick<EkycFraudMemoryRow, 'reason' | 'created_time' | 'expires_time'>[]> {
    return this.db
      .selectFrom('ekyc_fraud_memory')
      .select(['reason', 'created_time', 'expires_time'])
      .where('app_code', '=', appCode)
      .where('session_id', '=', sessionId)
      .orderBy('created_time', 'desc')
      .execute();
  }

  review(appCode: string, sessionId: string): Promise<EkycReviewRow | undefined> {
    return this.db.selectFrom('ekyc_reviews').selectAll().where('app_code', '=', appCode).where('session_id', '=', sessionId).executeTakeFirst();
  }

  /** The session's decision, replacing an earlier one; the audit row in the same transaction. */
  async decide(row: EkycReviewRow, audit: EkycAuditRow): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await tx
        .insertInto('ekyc_reviews')
        .values(row)
        .onConflict((oc) => oc.column('session_id').doUpdateSet({ decision: row.decision, reason: row.reason, reviewer: row.reviewer, decided_time: row.decided_time }))
        .execute();
      await tx.insertInto('ekyc_audit').values(audit).execute();
    });
  }

  async addAudit(row: EkycAuditRow): Promise<void> {
    await this.db.insertInto('ekyc_audit').values(row).execute();
  }

  /** The application's audit trail (or one session's), newest first. */
  audit(appCode: string, sessionId: string | undefined, limit: number): Promise<EkycAuditRow[]> {
    let query = this.db.selectFrom('ekyc_audit').selectAll().where('app_code', '=', appCode);
    if (sessionId !== undefined) query = query.where('session_id', '=', sessionId);
    return query.orderBy('id', 'desc').limit(limit).execute();
  }

  webhook(appCode: string): Promise<EkycWebhookRow | undefined> {
    return this.db.selectFrom('ekyc_webhooks').selectAll().where('app_code', '=', appCode).executeTakeFirst();
  }

  async setWebhook(row: EkycWebhookRow): Promise<void> {
    await this.db
      .insertInto('ekyc_webhooks')
      .values(row)
      .onConflict((oc) => oc.column('id').doUpdateSet({ url: row.url, secret: row.secret, updated_time: row.updated_time }))
      .execute();
  }

  async deleteWebhook(appCode: string): Promise<boolean> {
    const result = await this.db.deleteFrom('ekyc_webhooks').where('app_code', '=', appCode).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async addDelivery(row: EkycWebhookDeliveryRow): Promise<void> {
    await this.db.insertInto('ekyc_webhook_deliveries').values(row).execute();
  }

  delivery(appCode: string, id: string): Promise<EkycWebhookDeliveryRow | undefined> {
    return this.db.selectFrom('ekyc_webhook_deliveries').selectAll().where('app_code', '=', appCode).where('id', '=', id).executeTakeFirst();
  }

  async updateDelivery(appCode: string, id: string, change: DeliveryChange): Promise<void> {
    await this.db.updateTable('ekyc_webhook_deliveries').set(change).where('app_code', '=', appCode).where('id', '=', id).execute();
  }

  /** The application's deliveries (or one session's), newest first. */
  deliveries(appCode: string, sessionId: string | undefined, limit: number): Promise<EkycWebhookDeliveryRow[]> {
    let query = this.db.selectFrom('ekyc_webhook_deliveries').selectAll().where('app_code', '=', appCode);
    if (sessionId !== undefined) query = query.where('session_id', '=', sessionId);
    return query.orderBy('id', 'desc').limit(limit).execute();
  }
}
