/** Row types of the review desk's and the webhooks' tables (timestamps ISO-8601 text, ids UUIDv7 text). */

export type ReviewDecision = 'approved' | 'rejected';

/** A reviewer's decision on an ended session: one per session, the latest one (the audit trail keeps each). */
export interface EkycReviewRow {
  id: string;
  app_code: string;
  /** Unique: one review per session. */
  session_id: string;
  decision: ReviewDecision;
  reason: string;
  reviewer: string;
  decided_time: string;
}

/** What happened on the desk: who did what to which session (or to the application's webhook), and when. */
export interface EkycAuditRow {
  id: string;
  app_code: string;
  /** Null for an application-wide action (the webhook's settings). */
  session_id: string | null;
  /** Who: the name the reviewer gave, or `console` for a setting. */
  actor: string;
  /** What: approve, reject, view, webhook.set, webhook.remove. */
  action: string;
  /** The action's details, JSON (a decision's reason, a webhook's URL; never a secret). */
  detail: string;
  created_time: string;
}

/** An application's webhook: where session and review events go, and the secret they are signed with. */
export interface EkycWebhookRow {
  /** The application's code: one webhook per application. */
  id: string;
  app_code: string;
  url: string;
  secret: string;
  created_time: string;
  updated_time: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One event sent (or being sent) to an application's webhook, with the outcome of its last try. */
export interface EkycWebhookDeliveryRow {
  id: string;
  app_code: string;
  session_id: string;
  /** session.completed | session.reviewed */
  event: string;
  url: string;
  /** The JSON body sent on every try (so each try is signed over the same bytes). */
  body: string;
  status: DeliveryStatus;
  attempts: number;
  /** The receiver's last HTTP status, if it answered. */
  response_status: number | null;
  last_error: string | null;
  created_time: string;
  updated_time: string;
}

export type EkycReviewTables = {
  ekyc_reviews: EkycReviewRow;
  ekyc_audit: EkycAuditRow;
  ekyc_webhooks: EkycWebhookRow;
  ekyc_webhook_deliveries: EkycWebhookDeliveryRow;
};
