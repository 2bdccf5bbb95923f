/**
 * Readers of SAOLA_* environment variables, shared by the platform's and every
 * service's `config.ts`: each validates, names the variable in its error, and
 * returns the default for an unset or blank value.
 */
export type Env = Record<string, string | undefined>;

export class ConfigError extends Error {}

/** The trimmed value, or undefined when unset or blank. */
export function textSetting(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw ? raw : undefined;
}

export function numberSetting(env: Env, name: string, fallback: number, min: number, max: number, opts: { integer?: boolean } = {}): number {
  const raw = textSetting(env, name);
  if (raw === undefined) return fallback;
  const integer = opts.integer ?? true;
  const value = Number(raw);
  if (!Number.isFinite(value) || (integer && !Number.isInteger(value)) || value < min || value > max) {
    throw new ConfigError(`${name} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

export function integerSetting(env: Env, name: string, fallback: number, min: number, max: number): number {
  return numberSetting(env, name, fallback, min, max, { integer: true });
}

export function booleanSetting(env: Env, name: string, fallback: boolean): boolean {
  const raw = textSetting(env, name);
  if (raw === undefined) return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

export function choiceSetting<T extends string>(env: Env, name: string, fallback: T, allowed: readonly T[]): T {
  const raw = textSetting(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${env[name]}"`);
  }
  return raw as T;
}

/** A URL whose protocol is one of `protocols` (with the colon: 'http:'). */
export function urlSetting(name: string, raw: string, protocols: readonly string[]): string {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL: "${raw}"`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
  }
  return raw;
}
