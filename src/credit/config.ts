import { ConfigError } from '../platform/config.js';

export interface HttpSourceSettings {
  /** Base URL the adapter asks: GET <url>?phone=84...&decision_time=<unix seconds>. */
  url: string;
  /** Sent as `Authorization: Bearer <token>` when set. */
  token?: string;
}

/** The credit service's own settings, read from SAOLA_CREDIT_* variables. */
export interface CreditConfig {
  /** Seconds a decision_time may lie ahead of our clock (client clocks drift) before it is refused. */
  clockSkewSeconds: number;
  /** Factors listed per source score in `reasons`. */
  reasonCount: number;
  /** HTTP-backed beta and gamma sources; absent means "no data configured" (they answer -1). */
  beta?: HttpSourceSettings;
  gamma?: HttpSourceSettings;
  /** Timeout of one HTTP source call, milliseconds. */
  httpTimeoutMs: number;
}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function httpSource(env: Env, name: 'BETA' | 'GAMMA'): HttpSourceSettings | undefined {
  const raw = env[`SAOLA_CREDIT_${name}_URL`]?.trim();
  if (!raw) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`SAOLA_CREDIT_${name}_URL is not a valid URL: "${raw}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError(`SAOLA_CREDIT_${name}_URL must use http or https, got "${parsed.protocol}"`);
  }
  const token = env[`SAOLA_CREDIT_${name}_TOKEN`]?.trim();
  return { url: raw, ...(token ? { token } : {}) };
}

export function loadCreditConfig(env: Env = process.env): CreditConfig {
  return {
    clockSkewSeconds: integer(env, 'SAOLA_CREDIT_CLOCK_SKEW_SECONDS', 60, 0, 3600),
    reasonCount: integer(env, 'SAOLA_CREDIT_REASONS', 3, 0, 20),
    beta: httpSource(env, 'BETA'),
    gamma: httpSource(env, 'GAMMA'),
    httpTimeoutMs: integer(env, 'SAOLA_CREDIT_HTTP_TIMEOUT_MS', 2000, 50, 60_000),
  };
}
