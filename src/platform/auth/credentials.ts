import * as crypto from 'node:crypto';
import { createHash, randomBytes } from 'node:crypto';
import { uuidv7 } from 'uuidv7';
import type { Store } from '../db/database.js';
import type { CredentialKind } from '../db/schema.js';

export interface Application {
  app_code: string;
  name: string;
  created_time: string;
  revoked: boolean;
  api_keys: number;
  tokens: number;
}

export interface IssuedCredential {
  id: string;
  app_code: string;
  kind: CredentialKind;
  /** The secret: shown once, never stored. */
  secret: string;
  prefix: string;
  created_time: string;
}

export interface CredentialInfo {
  id: string;
  kind: CredentialKind;
  prefix: string;
  created_time: string;
  revoked_time: string | null;
  /** Written with the usage counters (every few seconds), so up to that much behind. */
  last_used_time?: string | null;
}

export class AuthAdminError extends Error {}

const SECRET_PREFIX: Record<CredentialKind, string> = { api_key: 'sk_', token: 'st_' };

/** Node's one-shot digest (20.12 and later): a third of createHash's cost, for every look-up that misses the cache. */
const oneShotHash = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;

/** Secrets are 256 random bits, so one sha256 is enough (no password stretching needed). */
export function hashSecret(secret: string): string {
  return oneShotHash ? oneShotHash('sha256', secret, 'hex') : createHash('sha256').update(secret, 'utf8').digest('hex');
}

/**
 * Applications and their credentials. API keys authenticate the `api_key`
 * services, bearer tokens the /api/v3 service. Both are stored hashed.
 */
export class Credentials {
  /**
   * Answers of recent look-ups, keyed by the kind and the secret itself (this process's memory only, never
   * stored or logged), so that a cached request pays no hash; the entry keeps the hash for the use record.
   */
  private readonly cache = new Map<string, { appCode: string | null; hash: string; expires: number }>();
  /** Secret hashes that authenticated since the last drain, with when: written in batches by the usage recorder. */
  private used = new Map<string, number>();

  constructor(
    private readonly store: Store,
    private readonly cacheSeconds = 5,
  ) {}

  async createApp(name: string): Promise<Application> {
    const clean = name.trim();
    if (!clean || clean.length > 200) throw new AuthAdminError('An application name must have 1 to 200 characters');
    const existing = await this.store.db.selectFrom('applications').select('code').where('name', '=', clean).executeTakeFirst();
    if (existing) throw new AuthAdminError(`An application named "${clean}" already exists`);
    const row = { code: uuidv7(), name: clean, created_time: new Date().toISOString(), revoked_time: null };
    await this.store.db.insertInto('applications').values(row).execute();
    return { app_code: row.code, name: row.name, created_time: row.created_time, revoked: false, api_keys: 0, tokens: 0 };
  }

  /** Finds an application by its code or its name. */
  async findApp(codeOrName: string): Promise<Application> {
    const row = await this.store.db
      .selectFrom('applications')
      .selectAll()
      .where((eb) => eb.or([eb('code', '=', codeOrName), eb('name', '=', codeOrName)]))
      .executeTakeFirst();
    if (!row) throw new AuthAdminError(`No application "${codeOrName}"`);
    const counts = await this.countCredentials([row.code]);
    return this.toApplication(row, counts.get(row.code));
  }

  async listApps(): Promise<Application[]> {
    const rows = await this.store.db.selectFrom('applications').selectAll().orderBy('created_time').execute();
    const counts = await this.countCredentials(rows.map((r) => r.code));
    return rows.map((r) => this.toApplication(r, counts.get(r.code)));
  }

  async renameApp(codeOrName: string, name: string): Promise<Application> {
    const app = await this.findApp(codeOrName);
    const clean = name.trim();
    if (!clean || clean.length > 200) throw new AuthAdminError('An application name must have 1 to 200 characters');
    const taken = await this.store.db.selectFrom('applications').select('code').where('name', '=', clean).where('code', '<>', app.app_code).executeTakeFirst();
    if (taken) throw new AuthAdminError(`An application named "${clean}" already exists`);
    await this.store.db.updateTable('applications').set({ name: clean }).where('code', '=', app.app_code).execute();
    return { ...app, name: clean };
  }

  /** Forgets cached lookups (after an application was deleted elsewhere). */
  forgetCached(): void {
    this.cache.clear();
  }

  /** Revokes an application and every credential it has. Its records stay, unreachable. */
  async revokeApp(codeOrName: string): Promise<Application> {
    const app = await this.findApp(codeOrName);
    const now = new Date().toISOString();
    await this.store.db.transaction().execute(async (trx) => {
      await trx.updateTable('applications').set({ revoked_time: now }).where('code', '=', app.app_code).execute();
      await trx.updateTable('credentials').set({ revoked_time: now }).where('app_code', '=', app.app_code).where('revoked_time', 'is', null).execute();
    });
    this.cache.clear();
    return { ...app, revoked: true };
  }

  async issue(codeOrName: string, kind: CredentialKind): Promise<IssuedCredential> {
    const app = await this.findApp(codeOrName);
    if (app.revoked) throw new AuthAdminError(`Application "${codeOrName}" is revoked`);
    const secret = SECRET_PREFIX[kind] + randomBytes(32).toString('base64url');
    const row = {
      id: uuidv7(),
      app_code: app.app_code,
      kind,
      secret_hash: hashSecret(secret),
      prefix: secret.slice(0, 10),
      created_time: new Date().toISOString(),
      revoked_time: null,
      last_used_time: null,
    };
    await this.store.db.insertInto('credentials').values(row).execute();
    return { id: row.id, app_code: row.app_code, kind, secret, prefix: row.prefix, created_time: row.created_time };
  }

  async listCredentials(codeOrName: string): Promise<CredentialInfo[]> {
    const app = await this.findApp(codeOrName);
    return this.store.db
      .selectFrom('credentials')
      .select(['id', 'kind', 'prefix', 'created_time', 'revoked_time', 'last_used_time'])
      .where('app_code', '=', app.app_code)
      .orderBy('created_time')
      .execute();
  }

  /** Revokes one credential by its id or by the secret itself. */
  async revokeCredential(idOrSecret: string): Promise<CredentialInfo> {
    const row = await this.store.db
      .selectFrom('credentials')
      .select(['id', 'kind', 'prefix', 'created_time', 'revoked_time'])
      .where((eb) => eb.or([eb('id', '=', idOrSecret), eb('secret_hash', '=', hashSecret(idOrSecret))]))
      .executeTakeFirst();
    if (!row) throw new AuthAdminError('No such key or token');
    const now = new Date().toISOString();
    await this.store.db.updateTable('credentials').set({ revoked_time: now }).where('id', '=', row.id).execute();
    this.cache.clear();
    return { ...row, revoked_time: row.revoked_time ?? now };
  }

  /** The application a secret belongs to, or null. Cached briefly: every request asks. */
  async authenticate(secret: string, kind: CredentialKind): Promise<string | null> {
    return this.authenticateSoon(secret, kind);
  }

  /**
   * `authenticate`, answered without a promise when the cache holds the secret (the request hooks then call
   * no promise machinery per request); a promise when the store must be asked.
   */
  authenticateSoon(secret: string, kind: CredentialKind): string | null | Promise<string | null> {
    if (!secret || secret.length > 200) return null;
    const now = Date.now();
    const hit = this.cache.get(kind + secret);
    if (hit && hit.expires > now) {
      if (hit.appCode) this.noteUse(hit.hash, now);
      return hit.appCode;
    }
    return this.lookUp(secret, kind, now);
  }

  private async lookUp(secret: string, kind: CredentialKind, now: number): Promise<string | null> {
    const hash = hashSecret(secret);
    const row = await this.store.db
      .selectFrom('credentials')
      .innerJoin('applications', 'applications.code', 'credentials.app_code')
      .select('credentials.app_code')
      .where('credentials.secret_hash', '=', hash)
      .where('credentials.kind', '=', kind)
      .where('credentials.revoked_time', 'is', null)
      .where('applications.revoked_time', 'is', null)
      .executeTakeFirst();
    const appCode = row?.app_code ?? null;
    if (appCode) this.noteUse(hash, now);
    if (this.cacheSeconds > 0) {
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(kind + secret, { appCode, hash, expires: now + this.cacheSeconds * 1000 });
    }
    return appCode;
  }

  private noteUse(hash: string, at: number): void {
    if (this.used.size < 100_000) this.used.set(hash, at);
  }

  /** Hands over the uses noted since the last call (hash -> epoch ms) and starts a new list. */
  drainUses(): Map<string, number> {
    const out = this.used;
    this.used = new Map();
    return out;
  }

  /** Writes credentials' last use (a few rows every few seconds: one per credential that was used). */
  async recordUses(uses: Map<string, number>): Promise<void> {
    for (const [hash, at] of uses) {
      await this.store.db
        .updateTable('credentials')
        .set({ last_used_time: new Date(at).toISOString() })
        .where('secret_hash', '=', hash)
        .execute();
    }
  }

  private async countCredentials(appCodes: string[]): Promise<Map<string, { api_key: number; token: number }>> {
    const counts = new Map<string, { api_key: number; token: number }>();
    if (appCodes.length === 0) return counts;
    const rows = await this.store.db
      .selectFrom('credentials')
      .select(['app_code', 'kind', (eb) => eb.fn.countAll<number>().as('n')])
      .where('app_code', 'in', appCodes)
      .where('revoked_time', 'is', null)
      .groupBy(['app_code', 'kind'])
      .execute();
    for (const r of rows) {
      const c = counts.get(r.app_code) ?? { api_key: 0, token: 0 };
      c[r.kind] = Number(r.n);
      counts.set(r.app_code, c);
    }
    return counts;
  }

  private toApplication(
    row: { code: string; name: string; created_time: string; revoked_time: string | null },
    counts?: { api_key: number; token: number },
  ): Application {
    return {
      app_code: row.code,
      name: row.name,
      created_time: row.created_time,
      revoked: row.revoked_time !== null,
      api_keys: counts?.api_key ?? 0,
      tokens: counts?.token ?? 0,
    };
  }
}
