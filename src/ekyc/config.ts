import { ConfigError, integerSetting, textSetting, type Env } from '../platform/settings.js';

export const DEVICE_TYPES = ['android', 'ios', 'web-sdk', 'api'] as const;
export type DeviceType = (typeof DEVICE_TYPES)[number];

export const DOCUMENT_TYPES = ['idr', 'dlr', 'passport'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

/** The eKYC flow's settings, read from SAOLA_EKYC_* variables (docs/ekyc.md). */
export interface EkycConfig {
  /** How long a session accepts calls after /session/init, ms; then 403 "Session expired". */
  sessionLifetimeMs: number;
  /** Sessions, their images and results are deleted this long after they started, ms. */
  retentionMs: number;
  /** How long an ID number or a face of a fraud or spoof result is remembered, ms. */
  fraudMemoryMs: number;
  /** Selfie attempts a session gets before it ends, per device type (sdk_config.limit). */
  retries: Record<DeviceType, number>;
  /** Document types the flow accepts; another answers E102. */
  documentTypes: readonly DocumentType[];
  /** Similarity (0-100, face match's scale) at which a face counts as a remembered one. */
  fraudFaceSimilarity: number;
}

export function loadEkycConfig(env: Env = process.env): EkycConfig {
  const retries = Object.fromEntries(DEVICE_TYPES.map((d) => [d, integerSetting(env, `SAOLA_EKYC_RETRIES_${d.replace('-', '_').toUpperCase()}`, 5, 1, 100)])) as Record<
    DeviceType,
    number
  >;
  return {
    sessionLifetimeMs: integerSetting(env, 'SAOLA_EKYC_SESSION_MINUTES', 30, 1, 24 * 60) * 60_000,
    retentionMs: integerSetting(env, 'SAOLA_EKYC_RETENTION_DAYS', 30, 1, 3650) * 86_400_000,
    fraudMemoryMs: integerSetting(env, 'SAOLA_EKYC_FRAUD_MEMORY_HOURS', 6, 0, 24 * 365) * 3_600_000,
    retries,
    documentTypes: documentTypesSetting(env),
    fraudFaceSimilarity: integerSetting(env, 'SAOLA_EKYC_FRAUD_FACE_SIMILARITY', 80, 50, 100),
  };
}

/** SAOLA_EKYC_DOCUMENT_TYPES: a comma-separated subset of idr, dlr, passport (default all three). */
function documentTypesSetting(env: Env): readonly DocumentType[] {
  const raw = textSetting(env, 'SAOLA_EKYC_DOCUMENT_TYPES');
  if (raw === undefined) return DOCUMENT_TYPES;
  const names = raw
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const wrong = names.filter((n) => !(DOCUMENT_TYPES as readonly string[]).includes(n));
  if (wrong.length > 0 || names.length === 0) throw new ConfigError(`SAOLA_EKYC_DOCUMENT_TYPES must list some of ${DOCUMENT_TYPES.join(', ')}; got "${raw}"`);
  return names as DocumentType[];
}
