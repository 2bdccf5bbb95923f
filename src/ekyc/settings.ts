/**
 * Per-application flow settings: what /session/init answers in `sdk_config`,
 * selfie attempts per device type, a session's lifetime, retention, the
 * fraud-memory window and the collections face search would look in. An
 * application's row keeps only what it overrides (JSON); the deployment's
 * SAOLA_EKYC_* settings fill the rest. Read per request, so a change made by
 * any process applies to the next session step everywhere.
 */
import type { Kysely } from 'kysely';
import { Type, type Static } from 'typebox';
import Value from 'typebox/value';
import { serviceDb, type ServiceDb } from '../platform/db/database.js';
import { ServiceError } from '../platform/http/errors.js';
import { originsError, type CorsOrigins } from '../platform/http/cors.js';
import type { Database } from '../platform/db/schema.js';
import type { DeviceType, EkycConfig } from './config.js';
import { SettingsErrors } from './errors.js';
import type { EkycTables } from './schema.js';

const Attempts = Type.Integer({ minimum: 1, maximum: 100 });

/** What an application may override; every field optional (absent: the deployment's value). */
export const FlowSettingsSchema = Type.Object(
  {
    is_show_ekyc_result: Type.Optional(Type.Boolean({ description: 'sdk_config: whether the SDK shows the result screen' })),
    ekyc_flow: Type.Optional(Type.Integer({ minimum: 1, maximum: 9, description: 'sdk_config: the SDK flow number' })),
    liveness_type: Type.Optional(Type.Integer({ minimum: 1, maximum: 9, description: 'sdk_config: the SDK liveness type' })),
    is_skip_nfc: Type.Optional(Type.Boolean({ description: 'sdk_config: whether the SDK skips reading the chip' })),
    retries: Type.Optional(
      Type.Object(
        { android: Type.Optional(Attempts), ios: Type.Optional(Attempts), 'web-sdk': Type.Optional(Attempts), api: Type.Optional(Attempts) },
        { additionalProperties: false, description: 'selfie attempts per session, by device type (sdk_config.limit)' },
      ),
    ),
    session_minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 24 * 60, description: "a session's lifetime" })),
    retention_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650, description: 'sessions and their images are deleted this long after they started' })),
    fraud_memory_hours: Type.Optional(Type.Integer({ minimum: 0, maximum: 24 * 365, description: 'how long a fraud or spoof result is remembered (0: not at all)' })),
    face_search_collections: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { maxItems: 20, uniqueItems: true, description: 'face search collections the passed selfie and the document portrait are searched in (face_search)' }),
    ),
    face_search_top_k: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'users answered per collection and face' })),
  },
  { additionalProperties: false },
);
export type FlowSettingsOverrides = Static<typeof FlowSettingsSchema>;

/** Every setting resolved for one application. */
export interface FlowSettings {
  is_show_ekyc_result: boolean;
  ekyc_flow: number;
  liveness_type: number;
  is_skip_nfc: boolean;
  retries: Record<DeviceType, number>;
  session_minutes: number;
  retention_days: number;
  fraud_memory_hours: number;
  face_search_collections: string[];
  face_search_top_k: number;
}

/** The deployment's values (SAOLA_EKYC_*), what an application without overrides gets. */
export function deploymentFlowSettings(cfg: EkycConfig): FlowSettings {
  return {
    is_show_ekyc_result: true,
    ekyc_flow: 1,
    liveness_type: 1,
    is_skip_nfc: true,
    retries: { ...cfg.retries },
    session_minutes: Math.round(cfg.sessionLifetimeMs / 60_000),
    retention_days: Math.round(cfg.retentionMs / 86_400_000),
    fraud_memory_hours: Math.round(cfg.fraudMemoryMs / 3_600_000),
    face_search_collections: [],
    face_search_top_k: 1,
  };
}

export function resolveFlowSettings(defaults: FlowSettings, overrides: FlowSettingsOverrides): FlowSettings {
  const { retries, ...rest } = overrides;
  return { ...defaults, ...rest, retries: { ...defaults.retries, ...retries } };
}

/** The first reason `value` is not a valid override document, or undefined. */
export function flowSettingsError(value: unknown): string | undefined {
  if (Value.Check(FlowSettingsSchema, value)) return undefined;
  const first = Value.Errors(FlowSettingsSchema, value).find((e) => e.keyword !== 'boolean') ?? Value.Errors(FlowSettingsSchema, value)[0];
  const where = first.instancePath ? first.instancePath.slice(1).replace(/\//g, '.') : 'settings';
  const extra = first.keyword === 'additionalProperties' ? ` (${(first.params as { additionalProperties?: string[] }).additionalProperties?.join(', ')})` : '';
  return `${where} ${first.message}${extra}`;
}

/** Where the flow reads an application's settings. */
export interface FlowSettingsSource {
  effective(appCode: string): Promise<FlowSettings>;
}

/** An application's settings as the API and the console answer them. */
export interface FlowSettingsView {
  settings: FlowSettings;
  /** What the application overrides; the rest is the deployment's. */
  overrides: FlowSettingsOverrides;
  updated_time: string | null;
}

type SettingsDb = ServiceDb<EkycTables>;

/** `ekyc_app_settings`: one row per application that overrides something. */
export class EkycSettingsStore implements FlowSettingsSource {
  private readonly db: SettingsDb;

  constructor(
    db: Kysely<Database>,
    readonly defaults: FlowSettings,
  ) {
    this.db = serviceDb<EkycTables>(db);
  }

  async overrides(appCode: string): Promise<{ overrides: FlowSettingsOverrides; updated_time: string | null }> {
    const row = await this.db.selectFrom('ekyc_app_settings').selectAll().where('app_code', '=', appCode).executeTakeFirst();
    return { overrides: row ? (JSON.parse(row.settings) as FlowSettingsOverrides) : {}, updated_time: row?.updated_time ?? null };
  }

  /** The application's settings, its overrides over the deployment's (one primary-key lookup). */
  async effective(appCode: string): Promise<FlowSettings> {
    return resolveFlowSettings(this.defaults, (await this.overrides(appCode)).overrides);
  }

  async view(appCode: string): Promise<FlowSettingsView> {
    const { overrides, updated_time } = await this.overrides(appCode);
    return { settings: resolveFlowSettings(this.defaults, overrides), overrides, updated_time };
  }

  /** Replaces the application's overrides (an empty document: the deployment's values again). The caller validated them. */
  async replace(appCode: string, overrides: FlowSettingsOverrides): Promise<FlowSettingsView> {
    const updated = new Date().toISOString();
    const settings = JSON.stringify(overrides);
    await this.db
      .insertInto('ekyc_app_settings')
      .values({ app_code: appCode, settings, updated_time: updated })
      .onConflict((oc) => oc.column('app_code').doUpdateSet({ settings, updated_time: updated }))
      .execute();
    return this.view(appCode);
  }

  /** Applications whose retention differs from the deployment's, with it in ms (the sweep's cuts). */
  async retentionOverrides(): Promise<Map<string, number>> {
    const rows = await this.db.selectFrom('ekyc_app_settings').select(['app_code', 'settings']).execute();
    const out = new Map<string, number>();
    for (const row of rows) {
      const days = (JSON.parse(row.settings) as FlowSettingsOverrides).retention_days;
      if (days !== undefined) out.set(row.app_code, days * 86_400_000);
    }
    return out;
  }
}

/**
 * GET and PUT /session/settings: the flow settings and, beside them, the origins browsers may call the API
 * from (`allowed_origins`, the platform's CORS list of the application: the web SDK is the flow's browser client).
 */
export class FlowSettingsApi {
  constructor(
    private readonly settings: EkycSettingsStore,
    private readonly cors: CorsOrigins | undefined,
  ) {}

  async view(appCode: string): Promise<Record<string, unknown>> {
    return { code: '200', message: 'success', ...(await this.settings.view(appCode)), allowed_origins: (await this.cors?.list(appCode)) ?? [] };
  }

  /** Replaces the overrides; `allowed_origins`, when sent, replaces the application's origins (absent: kept). */
  async replace(appCode: string, body: unknown): Promise<Record<string, unknown>> {
    const { allowed_origins: origins, ...overrides } = (body ?? {}) as Record<string, unknown>;
    const wrong = (typeof body !== 'object' || body === null || Array.isArray(body) ? 'settings must be an object' : undefined) ?? flowSettingsError(overrides);
    if (wrong) throw new ServiceError(SettingsErrors.invalid, wrong);
    if (origins !== undefined) {
      const wrongOrigins = originsError(origins);
      if (wrongOrigins) throw new ServiceError(SettingsErrors.invalid, wrongOrigins);
      if (!this.cors) throw new ServiceError(SettingsErrors.invalid, 'allowed_origins cannot be set on this server');
      await this.cors.replace(appCode, origins as string[]);
    }
    await this.settings.replace(appCode, overrides as FlowSettingsOverrides);
    return this.view(appCode);
  }
}
