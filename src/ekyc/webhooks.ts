/**
 * Webhooks of the eKYC flow: when a session ends and when a reviewer decides
 * on it, the application's webhook (one URL and secret per application) gets
 * a signed POST. Each event is a delivery row and a job on the platform's
 * queue, retried with the queue's backoff until the receiver answers 2xx or
 * the attempts run out; the row keeps the last outcome for the console.
 *
 * Signature: `X-Saola-Signature: v1=<hex HMAC-SHA256(secret, "<timestamp>.<body>")>`
 * with `X-Saola-Timestamp: <unix seconds>`, so a receiver can refuse replays.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { assertPublicUrl, FetchGuardError, guardedFetch } from '../platform/fetch-guard.js';
import { uuidv7 } from '../platform/ids.js';
import { describeJobError, PermanentJobError, type Job, type JobContext, type JobQueue, type Worker } from '../platform/jobs/queue.js';
import { booleanSetting, integerSetting, type Env } from '../platform/settings.js';
import type { ReviewStore } from './review-store.js';

export const WEBHOOK_QUEUE = 'ekyc-webhook';
export type WebhookEvent = 'session.completed' | 'session.reviewed';

/** SAOLA_EKYC_WEBHOOK_* settings (docs/ekyc.md). */
export interface WebhookConfig {
  /** Deliver to loopback, private and link-local addresses too (a receiver inside the operator's network). */
  allowPrivate: boolean;
  /** Tries per event before its delivery is failed. */
  attempts: number;
  /** Time for one try (connect, redirects, answer), ms. */
  timeoutMs: number;
}

export function loadWebhookConfig(env: Env = process.env): WebhookConfig {
  return {
    allowPrivate: booleanSetting(env, 'SAOLA_EKYC_WEBHOOK_ALLOW_PRIVATE', false),
    attempts: integerSetting(env, 'SAOLA_EKYC_WEBHOOK_ATTEMPTS', 8, 1, 50),
    timeoutMs: integerSetting(env, 'SAOLA_EKYC_WEBHOOK_TIMEOUT_SECONDS', 10, 1, 120) * 1000,
  };
}

/** Why a webhook's settings were refused (the console answers it as its invalid request). */
export class WebhookSettingsError extends Error {
  override name = 'WebhookSettingsError';
}

/** The job's payload: which delivery (the body and the secret stay in the database). */
interface DeliveryJob {
  appCode: string;
  deliveryId: string;
}

const MAX_URL_LENGTH = 2048;
const MIN_SECRET_LENGTH = 16;
const MAX_SECRET_LENGTH = 256;

/** The signature header's value for a body sent at `timestamp` (unix seconds). */
export function webhookSignature(secret: string, timestamp: number, body: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** What the console shows of a webhook: never the secret after it was set, only its first characters. */
export interface WebhookView {
  url: string;
  secret_hint: string;
  created_time: string;
  updated_time: string;
}

export class EkycWebhooks {
  constructor(
    private readonly store: ReviewStore,
    private readonly jobs: JobQueue,
    readonly cfg: WebhookConfig,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async settings(appCode: string): Promise<WebhookView | null> {
    const row = await this.store.webhook(appCode);
    return row ? { url: row.url, secret_hint: `${row.secret.slice(0, 4)}…`, created_time: row.created_time, updated_time: row.updated_time } : null;
  }

  /**
   * Sets the application's webhook; without a secret one is made. Answers the secret (shown this once). A URL
   * naming a loopback, private or link-local address is refused unless SAOLA_EKYC_WEBHOOK_ALLOW_PRIVATE; a host
   * that does not resolve yet is accepted (every try checks again).
   */
  async set(appCode: string, url: string, secret: string | undefined): Promise<WebhookView & { secret: string }> {
    const target = url.trim();
    if (target.length > MAX_URL_LENGTH) throw new WebhookSettingsError(`url is longer than ${MAX_URL_LENGTH} characters`);
    try {
      await assertPublicUrl(target, { allowPrivate: this.cfg.allowPrivate });
    } catch (err) {
      if (!(err instanceof FetchGuardError && err.reason === 'dns')) throw new WebhookSettingsError(`url refused: ${(err as Error).message}`);
    }
    if (secret !== undefined && (secret.length < MIN_SECRET_LENGTH || secret.length > MAX_SECRET_LENGTH)) {
      throw new WebhookSettingsError(`secret must be ${MIN_SECRET_LENGTH} to ${MAX_SECRET_LENGTH} characters (or left out to have one made)`);
    }
    const chosen = secret ?? randomBytes(32).toString('base64url');
    const now = this.now().toISOString();
    const existing = await this.store.webhook(appCode);
    await this.store.setWebhook({ id: appCode, app_code: appCode, url: target, secret: chosen, created_time: existing?.created_time ?? now, updated_time: now });
    return { ...(await this.settings(appCode))!, secret: chosen };
  }

  remove(appCode: string): Promise<boolean> {
    return this.store.deleteWebhook(appCode);
  }

  /** Queues the event for the application's webhook; nothing when it has none. Answers the delivery's id. */
  async emit(appCode: string, sessionId: string, event: WebhookEvent, data: Record<string, unknown>): Promise<string | undefined> {
    const hook = await this.store.webhook(appCode);
    if (!hook) return undefined;
    const id = uuidv7();
    const now = this.now().toISOString();
    const body = JSON.stringify({ id, event, session_id: sessionId, created_time: now, data });
    await this.store.addDelivery({
      id,
      app_code: appCode,
      session_id: sessionId,
      event,
      url: hook.url,
      body,
      status: 'pending',
      attempts: 0,
      response_status: null,
      last_error: null,
      created_time: now,
      updated_time: now,
    });
    const payload: DeliveryJob = { appCode, deliveryId: id };
    await this.jobs.enqueue(WEBHOOK_QUEUE, payload, { appCode, key: id, maxAttempts: this.cfg.attempts });
    return id;
  }

  /**
   * One try of a delivery, to the webhook as the application has it now (a URL or secret changed after a
   * failure applies to the retries). A 2xx answer delivers it; anything else throws so the queue retries.
   */
  async deliver(job: Job<DeliveryJob>, ctx: JobContext): Promise<unknown> {
    const { appCode, deliveryId } = job.payload;
    const delivery = await this.store.delivery(appCode, deliveryId);
    // Its session went (retention, purge): nothing left to send.
    if (!delivery || delivery.status === 'delivered') return { skipped: true };
    const last = job.attempts >= job.maxAttempts;
    const record = async (status: number | null, error: string | null, outcome: 'delivered' | 'pending' | 'failed', url = delivery.url) =>
      this.store.updateDelivery(appCode, deliveryId, {
        status: outcome,
        attempts: job.attempts,
        response_status: status,
        last_error: error,
        updated_time: this.now().toISOString(),
        url,
      });
    const hook = await this.store.webhook(appCode);
    if (!hook) {
      await record(null, 'the application has no webhook any more', 'failed');
      throw new PermanentJobError('the application has no webhook any more');
    }
    const timestamp = Math.floor(this.now().getTime() / 1000);
    let status: number;
    try {
      const res = await guardedFetch(hook.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Saola-Webhook/1',
          'x-saola-event': JSON.parse(delivery.body).event as string,
          'x-saola-delivery': delivery.id,
          'x-saola-timestamp': String(timestamp),
          'x-saola-signature': webhookSignature(hook.secret, timestamp, delivery.body),
        },
        body: delivery.body,
        timeoutMs: this.cfg.timeoutMs,
        allowPrivate: this.cfg.allowPrivate,
        maxBytes: 64 * 1024,
        maxRedirects: 0,
        signal: ctx.signal,
      });
      status = res.status;
    } catch (err) {
      const permanent = err instanceof FetchGuardError && (err.reason === 'invalid_url' || err.reason === 'blocked_address');
      await record(null, describeJobError(err), permanent || last ? 'failed' : 'pending', hook.url);
      throw permanent ? new PermanentJobError(`webhook refused: ${(err as Error).message}`) : err;
    }
    if (status < 200 || status >= 300) {
      await record(status, `the receiver answered HTTP ${status}`, last ? 'failed' : 'pending', hook.url);
      throw new Error(`webhook answered HTTP ${status}`);
    }
    await record(status, null, 'delivered', hook.url);
    return { status };
  }

  /** The worker that sends the deliveries (started where the process runs job workers). */
  start(onError: (error: unknown, job?: Job) => void): Worker {
    return this.jobs.work<DeliveryJob>(WEBHOOK_QUEUE, (job, ctx) => this.deliver(job, ctx), { concurrency: 4, onError });
  }
}
