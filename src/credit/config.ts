import { integerSetting, urlSetting, type Env } from '../platform/settings.js';

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
  /** Seconds after which an import that stopped writing (its process died) has its staged rows dropped. */
  importAbandonSeconds: number;
}

function httpSource(env: Env, name: 'BETA' | 'GAMMA'): HttpSourceSettings | undefined {
  const raw = env[`SAOLA_CREDIT_${name}_URL`]?.trim();
  if (!raw) return undefined;
  urlSetting(`SAOLA_CREDIT_${name}_URL`, raw, ['http:', 'https:']);
  const token = env[`SAOLA_CREDIT_${name}_TOKEN`]?.trim();
  return { url: raw, ...(token ? { token } : {}) };
}

export function loadCreditConfig(env: Env = process.env): CreditConfig {
  return {
    clockSkewSeconds: integerSetting(env, 'SAOLA_CREDIT_CLOCK_SKEW_SECONDS', 60, 0, 3600),
    reasonCount: integerSetting(env, 'SAOLA_CREDIT_REASONS', 3, 0, 20),
    beta: httpSource(env, 'BETA'),
    gamma: httpSource(env, 'GAMMA'),
    httpTimeoutMs: integerSetting(env, 'SAOLA_CREDIT_HTTP_TIMEOUT_MS', 2000, 50, 60_000),
    importAbandonSeconds: integerSetting(env, 'SAOLA_CREDIT_IMPORT_ABANDON_SECONDS', 600, 1, 7 * 86_400),
  };
}
