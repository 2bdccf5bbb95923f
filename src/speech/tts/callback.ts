import { FetchGuardError, guardedFetch, assertPublicUrl } from '../../platform/fetch-guard.js';
import { PermanentJobError } from '../../platform/jobs/queue.js';

/** The callback body of the spec: the link on success, the error on failure; `success` is a string. */
export interface CallbackBody {
  message: string;
  success: 'true' | 'false';
}

export interface CallbackJob {
  requestId: string;
  url: string;
  body: CallbackBody;
}

export interface CallbackSettings {
  timeoutMs: number;
  allowPrivate: boolean;
}

const MAX_URL_LENGTH = 2048;

/**
 * Checks a callback_url when the request comes in: http(s), not too long, and
 * (unless allowed) not a loopback, private or link-local host. A host that does
 * not resolve yet is accepted; delivery checks again on every try.
 */
export async function checkCallbackUrl(raw: string, allowPrivate: boolean): Promise<string | undefined> {
  if (raw.length > MAX_URL_LENGTH) return `callback_url is longer than ${MAX_URL_LENGTH} characters`;
  try {
    await assertPublicUrl(raw, { allowPrivate });
    return undefined;
  } catch (err) {
    if (err instanceof FetchGuardError && err.reason === 'dns') return undefined;
    return `callback_url refused: ${(err as Error).message}`;
  }
}

/**
 * One delivery try: POST application/json under the outbound-URL guard. A 2xx
 * answer delivers it; anything else throws so the job queue retries with
 * backoff. A URL the guard refuses will never work: that fails permanently.
 */
export async function deliverCallback(job: CallbackJob, settings: CallbackSettings, signal?: AbortSignal): Promise<{ status: number }> {
  let status: number;
  try {
    const res = await guardedFetch(job.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(job.body),
      timeoutMs: settings.timeoutMs,
      allowPrivate: settings.allowPrivate,
      maxBytes: 64 * 1024,
      maxRedirects: 3,
      signal,
    });
    status = res.status;
  } catch (err) {
    if (err instanceof FetchGuardError && (err.reason === 'invalid_url' || err.reason === 'blocked_address')) {
      throw new PermanentJobError(`callback refused: ${err.message}`);
    }
    throw err;
  }
  if (status < 200 || status >= 300) throw new Error(`callback answered HTTP ${status}`);
  return { status };
}
