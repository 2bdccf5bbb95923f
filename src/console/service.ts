import { applicationRecords } from '../platform/auth/app-data.js';
import { originsError, type CorsOrigins } from '../platform/http/cors.js';
import { AuthAdminError, type Credentials } from '../platform/auth/credentials.js';
import type { AppSettingsRegistry } from '../platform/app-settings.js';
import type { BlobStore } from '../platform/blobs/store.js';
import type { Store } from '../platform/db/database.js';
import type { CredentialKind } from '../platform/db/schema.js';
import { ServiceError } from '../platform/http/errors.js';
import type { PlaygroundTools } from '../platform/playground-tools.js';
import { purgeApplication, type PurgeHook } from '../platform/purge.js';
import { utcDay, type Metering } from '../platform/usage/index.js';
import { findCardOutline } from '../platform/vision/card-outline.js';
import { ConsoleErrors } from './errors.js';

export interface ConsoleServiceDeps {
  credentials: Credentials;
  store: Store;
  blobs: BlobStore;
  /** Each service's part of deleting an application (blobs the tables do not hold). */
  purgeHooks: readonly PurgeHook[];
  /** Services a quota can be set on (the service list's metered names). */
  meteredServices: readonly string[];
  metering: Metering;
  appSettings: AppSettingsRegistry;
  /** Functions the services offer the playgrounds (the face engine's boxes). */
  playground: PlaygroundTools;
  /** The origins each application lets browsers call the API from (CORS). */
  corsOrigins: CorsOrigins;
}

/** A quota as the console sends it: a limit is a whole number, a numeric text, or empty/null for none. */
export interface QuotaChange {
  service: string;
  per_minute?: number | string | null;
  per_day?: number | string | null;
}

/** Admin errors from the credentials module are the caller's mistakes: name them in the console's shape. */
async function admin<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof AuthAdminError) {
      const entry = /^No (application|such)/.test(err.message)
        ? ConsoleErrors.notFound
        : /already exists/.test(err.message)
          ? ConsoleErrors.conflict
          : ConsoleErrors.invalid;
      throw new ServiceError(entry, err.message);
    }
    throw err;
  }
}

function limitValue(value: unknown, name: string): number | null {
  if (value === null || value === undefined || value === '') return null;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1_000_000_000) throw new ServiceError(ConsoleErrors.invalid, `${name} must be a whole number from 1, or empty for no limit`);
  return n;
}

/** What the operator does in the console: applications, credentials, quotas, usage, per-application settings, playground helpers. */
export class ConsoleService {
  constructor(private readonly deps: ConsoleServiceDeps) {}

  get meteredServices(): readonly string[] {
    return this.deps.meteredServices;
  }

  /** Live applications first, revoked ones after. */
  async listApps() {
    const apps = await this.deps.credentials.listApps();
    return { applications: apps.filter((a) => !a.revoked).concat(apps.filter((a) => a.revoked)) };
  }

  /** A new application with one API key and one token, whose secrets are shown this once. */
  async createApp(name: string) {
    const { credentials } = this.deps;
    return admin(async () => {
      const app = await credentials.createApp(name);
      const key = await credentials.issue(app.app_code, 'api_key');
      const token = await credentials.issue(app.app_code, 'token');
      return { application: { ...app, api_keys: 1, tokens: 1 }, api_key: key.secret, token: token.secret };
    });
  }

  /** The application named `code` (404 in the console's shape when there is none). */
  async application(code: string) {
    return admin(() => this.deps.credentials.findApp(code));
  }

  async renameApp(code: string, name: string) {
    return { application: await admin(() => this.deps.credentials.renameApp(code, name)) };
  }

  /** What a delete would remove, counted per table. */
  async appRecords(code: string) {
    const app = await admin(() => this.deps.credentials.findApp(code));
    await this.deps.metering.recorder.flush();
    return { application: app, records: await applicationRecords(this.deps.store, app.app_code) };
  }

  /** The same purge as `saola app delete --purge`: rows of every app-scoped table and the services' blobs. */
  async deleteApp(code: string) {
    const { credentials, metering } = this.deps;
    const app = await admin(() => credentials.findApp(code));
    await metering.recorder.flush();
    const { rows: deleted } = await purgeApplication({ store: this.deps.store, blobs: this.deps.blobs }, app.app_code, this.deps.purgeHooks);
    credentials.forgetCached();
    metering.quotas.invalidate();
    return { deleted };
  }

  async listCredentials(code: string) {
    // Last-use times are written with the usage batch: write this process's now.
    await this.deps.metering.recorder.flush();
    return { credentials: await admin(() => this.deps.credentials.listCredentials(code)) };
  }

  async issueCredential(code: string, kind: CredentialKind) {
    return admin(() => this.deps.credentials.issue(code, kind));
  }

  /** By id only: a secret never travels in a console URL. */
  async revokeCredential(id: string) {
    if (!/^[0-9a-f-]{36}$/.test(id)) throw new ServiceError(ConsoleErrors.notFound);
    return { credential: await admin(() => this.deps.credentials.revokeCredential(id)) };
  }

  async quotas(code: string) {
    const app = await admin(() => this.deps.credentials.findApp(code));
    return { quotas: await this.deps.metering.store.quotas(app.app_code), services: this.deps.meteredServices };
  }

  async setQuota(code: string, change: QuotaChange) {
    const { metering } = this.deps;
    const app = await admin(() => this.deps.credentials.findApp(code));
    this.checkService(change.service);
    const quota = await metering.store.setQuota(app.app_code, change.service, limitValue(change.per_minute, 'per_minute'), limitValue(change.per_day, 'per_day'));
    metering.quotas.invalidate();
    return { quota, quotas: await metering.store.quotas(app.app_code) };
  }

  /** The last `days` days (1-366) of the application's usage, of one service or all. */
  async usage(code: string, days: number, service: string | undefined) {
    const { metering } = this.deps;
    const app = await admin(() => this.deps.credentials.findApp(code));
    if (service !== undefined) this.checkService(service);
    // This process's counts not yet written, so the page shows the calls just made.
    await metering.recorder.flush();
    return metering.store.report(app.app_code, utcDay(Date.now() - (days - 1) * 86_400_000), utcDay(), service);
  }

  /** The ID card playground draws the card's outline: the platform's finder (the reader's first step). */
  async cardOutline(photo: Buffer) {
    let outline;
    try {
      outline = await findCardOutline(photo);
    } catch {
      throw new ServiceError(ConsoleErrors.invalid, 'The image could not be decoded');
    }
    return { found: outline !== null, ...(outline ? { corners: outline.corners, score: Math.round(outline.score * 100) / 100 } : {}) };
  }

  /**
   * The face match playground boxes the face each photo's subject is (the one compared) and the others the
   * engine saw; the public answer has no boxes, so the face service offers them here through the platform.
   */
  async facesInPhoto(photo: Buffer) {
    const find = this.deps.playground.faceFinder();
    if (!find) throw new ServiceError(ConsoleErrors.unavailable, 'The face service is not running on this server');
    const faces = await find(photo);
    if (!faces) throw new ServiceError(ConsoleErrors.invalid, 'The image could not be decoded');
    return faces;
  }

  /** The face search playground lists the application's collections and the recogniser each is embedded by (the face service offers them). */
  async faceCollections(code: string) {
    const app = await admin(() => this.deps.credentials.findApp(code));
    const list = this.deps.playground.faceCollectionLister();
    if (!list) throw new ServiceError(ConsoleErrors.unavailable, 'The face service is not running on this server');
    return list(app.app_code);
  }

  /** Per-application switches the services offer (the reader's features arrangement...). */
  async appSettings(code: string) {
    const app = await admin(() => this.deps.credentials.findApp(code));
    const settings = await Promise.all(
      this.deps.appSettings.list().map(async (s) => ({ key: s.key, label: s.label, description: s.description, on: await s.get(app.app_code) })),
    );
    return { settings };
  }

  async setAppSetting(code: string, key: string, on: boolean) {
    const app = await admin(() => this.deps.credentials.findApp(code));
    const entry = this.deps.appSettings.find(key);
    if (!entry)
      throw new ServiceError(
        ConsoleErrors.invalid,
        `key must be one of ${
          this.deps.appSettings
            .list()
            .map((s) => s.key)
            .join(', ') || '(none)'
        }`,
      );
    await entry.set(app.app_code, on);
    return { key: entry.key, on: await entry.get(app.app_code) };
  }

  /** Per-application settings documents the services offer (the eKYC flow's...): schema, defaults, overrides. */
  async appSections(code: string) {
    const app = await admin(() => this.deps.credentials.findApp(code));
    const sections = await Promise.all(
      this.deps.appSettings.listSections().map(async (s) => ({
        key: s.key,
        label: s.label,
        description: s.description,
        schema: s.schema,
        defaults: s.defaults,
        values: await s.get(app.app_code),
      })),
    );
    return { sections };
  }

  async setAppSection(code: string, key: string, values: unknown) {
    const app = await admin(() => this.deps.credentials.findApp(code));
    const section = this.deps.appSettings.findSection(key);
    if (!section) {
      const keys = this.deps.appSettings.listSections().map((s) => s.key);
      throw new ServiceError(ConsoleErrors.notFound, `No settings section ${key}; there are: ${keys.join(', ') || '(none)'}`);
    }
    const wrong = section.check(values);
    if (wrong) throw new ServiceError(ConsoleErrors.invalid, wrong);
    await section.set(app.app_code, values as Record<string, unknown>);
    return { key: section.key, values: await section.get(app.app_code) };
  }

  /** The origins browsers may call the API from with this application's key. */
  async appOrigins(code: string) {
    const app = await admin(() => this.deps.credentials.findApp(code));
    return { allowed_origins: await this.deps.corsOrigins.list(app.app_code) };
  }

  async setAppOrigins(code: string, origins: unknown) {
    const app = await admin(() => this.deps.credentials.findApp(code));
    const wrong = originsError(origins);
    if (wrong) throw new ServiceError(ConsoleErrors.invalid, wrong);
    return { allowed_origins: await this.deps.corsOrigins.replace(app.app_code, origins as string[]) };
  }

  private checkService(service: string): void {
    if (!this.deps.meteredServices.includes(service)) throw new ServiceError(ConsoleErrors.invalid, `service must be one of ${this.deps.meteredServices.join(', ')}`);
  }
}
