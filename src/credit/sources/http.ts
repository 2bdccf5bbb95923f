import { guardedFetch, type GuardedResponse } from '../../platform/fetch-guard.js';
import type { HttpSourceSettings } from '../config.js';
import type { Features, FeatureSource, SourceName } from './source.js';

export class SourceUnavailableError extends Error {}

const MAX_FEATURES = 200;
const MAX_BODY = 256 * 1024;

/**
 * A source served by another system over HTTP, configured by the operator
 * (SAOLA_CREDIT_<NAME>_URL). Protocol: GET <url>?phone=84...&decision_time=<unix s>;
 * the answer is `{"features": {"name": number|null, ...}}`, or 404 /
 * `{"features": null}` when it knows nothing about the number. The provider
 * must itself use only data from before decision_time.
 */
export class HttpFeatureSource implements FeatureSource {
  readonly engine: string;

  constructor(
    readonly name: SourceName,
    private readonly settings: HttpSourceSettings,
    private readonly timeoutMs: number,
  ) {
    this.engine = `http ${new URL(settings.url).origin}`;
  }

  async features(_appCode: string, phone: string, decisionTime: Date): Promise<Features | null> {
    const url = new URL(this.settings.url);
    url.searchParams.set('phone', phone);
    url.searchParams.set('decision_time', String(Math.floor(decisionTime.getTime() / 1000)));
    // The operator sets this URL (often an intranet host), so private addresses are allowed; the
    // guard still caps the answer while it streams (a huge answer is never buffered whole), bounds
    // the whole exchange by the timeout and follows no redirect.
    let response: GuardedResponse;
    try {
      response = await guardedFetch(url.href, {
        allowPrivate: true,
        maxRedirects: 0,
        maxBytes: MAX_BODY,
        timeoutMs: this.timeoutMs,
        headers: { accept: 'application/json', ...(this.settings.token ? { authorization: `Bearer ${this.settings.token}` } : {}) },
      });
    } catch (err) {
      throw new SourceUnavailableError(`${this.name}: ${(err as Error).message}`);
    }
    if (response.status === 404) return null;
    if (response.status < 200 || response.status > 299) throw new SourceUnavailableError(`${this.name}: HTTP ${response.status}`);
    const text = response.body.toString('utf8');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new SourceUnavailableError(`${this.name}: answer is not JSON`);
    }
    return parseFeatures(this.name, body);
  }
}

function parseFeatures(name: string, body: unknown): Features | null {
  const features = (body as { features?: unknown } | null)?.features;
  if (features === null) return null;
  if (!features || typeof features !== 'object' || Array.isArray(features)) {
    throw new SourceUnavailableError(`${name}: answer has no "features" object`);
  }
  const entries = Object.entries(features);
  if (entries.length > MAX_FEATURES) throw new SourceUnavailableError(`${name}: more than ${MAX_FEATURES} features`);
  const out: Features = {};
  for (const [key, value] of entries) {
    if (value === null || (typeof value === 'number' && Number.isFinite(value))) out[key] = value;
    else throw new SourceUnavailableError(`${name}: feature "${key}" is not a number or null`);
  }
  return out;
}
