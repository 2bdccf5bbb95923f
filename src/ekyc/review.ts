/**
 * The review desk: an operator lists an application's sessions, opens one (its
 * images, the fields read with their scores, the checks, liveness and the face
 * match), and approves or rejects it with a reason. Every decision is an audit
 * row (who, when, what) and a `session.reviewed` webhook event. Served by the
 * console behind its sign-in (src/console/ekyc-routes.ts).
 */
import type { BlobStore } from '../platform/blobs/store.js';
import { uuidv7 } from '../platform/ids.js';
import type { DataItem } from './answer.js';
import { DOCUMENT_TYPES, type DocumentType } from './config.js';
import type { EkycAuditRow, EkycWebhookDeliveryRow, ReviewDecision } from './review-schema.js';
import type { ReviewStore, SessionFilter } from './review-store.js';
import type { EkycSessionRow, SessionStatus } from './schema.js';
import type { EkycWebhooks } from './webhooks.js';

export type DeskErrorKind = 'not_found' | 'invalid' | 'conflict';

/** A refusal of the desk; the console renders it in its own error shape. */
export class ReviewDeskError extends Error {
  override name = 'ReviewDeskError';
  constructor(
    readonly kind: DeskErrorKind,
    message: string,
  ) {
    super(message);
  }
}

/** The list's filters as the console's query string has them. */
export interface SessionQuery {
  status?: string;
  needs_review?: string;
  document_type?: string;
  from?: string;
  to?: string;
  before?: string;
  limit?: string;
}

export interface DecisionRequest {
  decision: string;
  reason: string;
  reviewer: string;
}

const STATUSES: readonly SessionStatus[] = ['open', 'complete', 'failed'];
const PAGE = 50;
const MAX_PAGE = 200;
const MAX_REASON = 1000;
const MAX_REVIEWER = 100;

/** An accepted side as the flow stores it (service.ts). */
interface StoredSide {
  kind: string;
  items: DataItem[];
  image: string;
  /** Each check's result and measures, by stage (absent on sides stored before the flow kept them). */
  checks?: StageChecks;
}

type StageChecks = Record<string, { result: string } & Record<string, unknown>>;

/** Each stage's result ("passed", "failed"), for the page's summary line; `details` keeps what each measured. */
const summary = (checks: StageChecks) => Object.fromEntries(Object.entries(checks).map(([stage, c]) => [stage, c.result]));

/** A side accepted before its checks were kept passed all of them: a side is stored only then. */
const ACCEPTED: StageChecks = { quality: { result: 'passed' }, fraud: { result: 'passed' }, post_check: { result: 'passed' } };

function isoTime(value: string | undefined, name: string): string | undefined {
  if (value === undefined || value === '') return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new ReviewDeskError('invalid', `${name} must be a date or an ISO-8601 time`);
  return new Date(ms).toISOString();
}

/** The selfie step's answer (code, liveness, face_match), or null before the selfie. */
function resultOf(session: Pick<EkycSessionRow, 'result'>): Record<string, any> | null {
  return session.result ? (JSON.parse(session.result) as Record<string, any>) : null;
}

export class ReviewDesk {
  constructor(
    private readonly store: ReviewStore,
    /** Where the session images are (the console sends them from it). */
    readonly blobs: BlobStore,
    private readonly webhooks: EkycWebhooks,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** One page of an application's sessions, newest first; `next_before` pages on. */
  async sessions(appCode: string, query: SessionQuery) {
    const filter: SessionFilter = { limit: PAGE };
    if (query.status) {
      if (!(STATUSES as readonly string[]).includes(query.status)) throw new ReviewDeskError('invalid', `status must be one of ${STATUSES.join(', ')}`);
      filter.status = query.status as SessionStatus;
    }
    if (query.document_type) {
      if (!(DOCUMENT_TYPES as readonly string[]).includes(query.document_type))
        throw new ReviewDeskError('invalid', `document_type must be one of ${DOCUMENT_TYPES.join(', ')}`);
      filter.documentType = query.document_type as DocumentType;
    }
    filter.needsReview = query.needs_review === 'true' || query.needs_review === '1';
    filter.from = isoTime(query.from, 'from');
    // A bare date as `to` means the whole of that day.
    const to = isoTime(query.to, 'to');
    filter.to = to && /^\d{4}-\d{2}-\d{2}$/.test(query.to ?? '') ? new Date(Date.parse(to) + 86_400_000).toISOString() : to;
    if (query.before) filter.beforeId = query.before;
    if (query.limit) {
      const n = Number(query.limit);
      if (!Number.isInteger(n) || n < 1 || n > MAX_PAGE) throw new ReviewDeskError('invalid', `limit must be a whole number from 1 to ${MAX_PAGE}`);
      filter.limit = n;
    }
    const lines = await this.store.sessions(appCode, filter);
    const sessions = lines.map(({ result, ...line }) => {
      const answer = resultOf({ result });
      return { ...line, code: answer?.code ?? null, needs_review: line.decision === null && line.status !== 'open' };
    });
    return { sessions, next_before: lines.length === filter.limit ? lines[lines.length - 1].id : null };
  }

  /** Everything the session page shows. Opening it is an audit row (`view`): a reviewer saw the person's data. */
  async session(appCode: string, id: string, viewer: string) {
    const session = await this.found(appCode, id);
    const [images, attempts, fraud, review, audit, deliveries] = await Promise.all([
      this.store.images(appCode, id),
      this.store.attempts(appCode, id),
      this.store.fraudMemory(appCode, id),
      this.store.review(appCode, id),
      this.store.audit(appCode, id, 100),
      this.store.deliveries(appCode, id, 50),
    ]);
    await this.audit(appCode, id, viewer, 'view', {});
    const imageOf = (key: string) => images.find((i) => i.blob_key === key)?.id ?? null;
    const sides = (['front', 'back'] as const).flatMap((side) => {
      const stored = session[side] ? (JSON.parse(session[side]) as StoredSide) : undefined;
      if (!stored) return [];
      // A side is stored only once its quality, fraud and post-check passed (the flow refuses it otherwise).
      const checks = stored.checks ?? ACCEPTED;
      return [{ side, kind: stored.kind, image_id: imageOf(stored.image), fields: stored.items, checks: summary(checks), details: checks }];
    });
    // The refused sides, with why: the step's code and each check's result and measures.
    const refused = attempts.map((a) => {
      const checks = JSON.parse(a.checks) as StageChecks;
      return { id: a.id, side: a.side, code: a.code, image_id: a.image_id, checks: summary(checks), details: checks, created_time: a.created_time };
    });
    const result = resultOf(session);
    return {
      session: {
        id: session.id,
        status: session.status,
        device_type: session.device_type,
        client_uuid: session.client_uuid,
        document_type: session.document_type,
        attempts: session.attempts,
        created_time: session.created_time,
        expires_time: session.expires_time,
        completed_time: session.completed_time,
      },
      sides,
      refused,
      selfies: images.filter((i) => i.kind === 'selfie').map((i) => ({ image_id: i.id, created_time: i.created_time })),
      result: result && { code: result.code, message: result.message, liveness: result.liveness, face_match: result.face_match },
      fraud_memory: fraud,
      review: review ?? null,
      needs_review: !review && session.status !== 'open',
      audit: audit.map(auditView),
      deliveries: deliveries.map(deliveryView),
    };
  }

  /** The blob key of an image of the session (tenancy: the image must be this application's session's). */
  async imageKey(appCode: string, sessionId: string, imageId: string): Promise<string> {
    const row = await this.store.image(appCode, sessionId, imageId);
    if (!row) throw new ReviewDeskError('not_found', 'No such image in this session');
    return row.blob_key;
  }

  /** Approves or rejects an ended session (a later decision replaces the earlier; the audit keeps both). */
  async decide(appCode: string, id: string, req: DecisionRequest) {
    const decision = ({ approve: 'approved', approved: 'approved', reject: 'rejected', rejected: 'rejected' } as const)[req.decision as 'approve'];
    if (!decision) throw new ReviewDeskError('invalid', 'decision must be approve or reject');
    const reason = req.reason.trim();
    const reviewer = req.reviewer.trim();
    if (!reason || reason.length > MAX_REASON) throw new ReviewDeskError('invalid', `reason must be 1 to ${MAX_REASON} characters`);
    if (!reviewer || reviewer.length > MAX_REVIEWER) throw new ReviewDeskError('invalid', `reviewer must be 1 to ${MAX_REVIEWER} characters`);
    const session = await this.found(appCode, id);
    if (session.status === 'open') throw new ReviewDeskError('conflict', 'The session has not ended yet: decide once it is complete or failed');
    const now = this.now().toISOString();
    const row = { id: uuidv7(), session_id: id, app_code: appCode, decision: decision as ReviewDecision, reason, reviewer, decided_time: now };
    await this.store.decide(row, this.auditRow(appCode, id, reviewer, decision === 'approved' ? 'approve' : 'reject', { reason }, now));
    const delivery = await this.webhooks.emit(appCode, id, 'session.reviewed', { status: session.status, decision, reason, reviewer, decided_time: now });
    return { review: row, delivery_id: delivery ?? null };
  }

  /** The application's audit trail, newest first. */
  async auditTrail(appCode: string, sessionId?: string) {
    return { audit: (await this.store.audit(appCode, sessionId, 200)).map(auditView) };
  }

  /** The application's webhook deliveries, newest first. */
  async deliveries(appCode: string) {
    return { deliveries: (await this.store.deliveries(appCode, undefined, 200)).map(deliveryView) };
  }

  async webhook(appCode: string) {
    return { webhook: await this.webhooks.settings(appCode) };
  }

  async setWebhook(appCode: string, url: string, secret: string | undefined, actor: string) {
    const webhook = await this.webhooks.set(appCode, url, secret);
    await this.audit(appCode, null, actor, 'webhook.set', { url: webhook.url });
    return { webhook };
  }

  async removeWebhook(appCode: string, actor: string) {
    const removed = await this.webhooks.remove(appCode);
    if (removed) await this.audit(appCode, null, actor, 'webhook.remove', {});
    return { removed };
  }

  private async found(appCode: string, id: string): Promise<EkycSessionRow> {
    const session = await this.store.session(appCode, id);
    if (!session) throw new ReviewDeskError('not_found', 'No such session in this application');
    return session;
  }

  private auditRow(appCode: string, sessionId: string | null, actor: string, action: string, detail: object, at = this.now().toISOString()): EkycAuditRow {
    return { id: uuidv7(), app_code: appCode, session_id: sessionId, actor, action, detail: JSON.stringify(detail), created_time: at };
  }

  private audit(appCode: string, sessionId: string | null, actor: string, action: string, detail: object): Promise<void> {
    return this.store.addAudit(this.auditRow(appCode, sessionId, actor, action, detail));
  }
}

function auditView(row: EkycAuditRow) {
  return { id: row.id, session_id: row.session_id, actor: row.actor, action: row.action, detail: JSON.parse(row.detail) as unknown, created_time: row.created_time };
}

/** A delivery as the console shows it: not its body (the event's data is in the session's page). */
function deliveryView(row: EkycWebhookDeliveryRow) {
  const { body: _body, app_code: _app, ...rest } = row;
  return rest;
}
