import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ConsoleConfig } from './config.js';
import type { ConsoleSessionStore } from './store.js';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** Compares two secrets in constant time (their hashes have equal length whatever the input). */
export function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(sha256(a), sha256(b));
}

export type SignIn = { ok: true; sessionId: string; csrf: string; expires: Date } | { ok: false; reason: 'disabled' | 'locked' | 'wrong'; retryAfterS?: number };

/**
 * The operator's sign-in: one password from configuration, sessions in the
 * store, and a lock-out per client address after repeated failures (kept in
 * this process's memory: a restart forgives, a balancer multiplies the tries
 * by the process count, which is still a handful).
 */
export class ConsoleSessions {
  private readonly failures = new Map<string, { count: number; first: number; lockedUntil: number }>();

  constructor(
    private readonly store: ConsoleSessionStore,
    private readonly config: ConsoleConfig,
  ) {}

  get enabled(): boolean {
    return this.config.adminPassword !== undefined;
  }

  /** Seconds the address must still wait, or 0. */
  lockedFor(ip: string): number {
    const entry = this.failures.get(ip);
    if (!entry || entry.lockedUntil <= Date.now()) return 0;
    return Math.ceil((entry.lockedUntil - Date.now()) / 1000);
  }

  /** Checks the password (also for scripts that send it as a bearer), counting failures per address. */
  checkPassword(ip: string, password: unknown): { ok: true } | { ok: false; reason: 'disabled' | 'locked' | 'wrong'; retryAfterS?: number } {
    if (!this.config.adminPassword) return { ok: false, reason: 'disabled' };
    const locked = this.lockedFor(ip);
    if (locked > 0) return { ok: false, reason: 'locked', retryAfterS: locked };
    if (typeof password === 'string' && password.length <= 1024 && sameSecret(password, this.config.adminPassword)) {
      this.failures.delete(ip);
      return { ok: true };
    }
    const now = Date.now();
    const windowMs = this.config.lockMinutes * 60_000;
    let entry = this.failures.get(ip);
    if (!entry || now - entry.first > windowMs) entry = { count: 0, first: now, lockedUntil: 0 };
    entry.count += 1;
    if (entry.count >= this.config.maxFailures) entry.lockedUntil = now + windowMs;
    if (this.failures.size > 10_000) this.failures.clear();
    this.failures.set(ip, entry);
    return entry.lockedUntil > now ? { ok: false, reason: 'locked', retryAfterS: Math.ceil(windowMs / 1000) } : { ok: false, reason: 'wrong' };
  }

  async signIn(ip: string, password: unknown): Promise<SignIn> {
    const checked = this.checkPassword(ip, password);
    if (!checked.ok) return checked;
    const sessionId = randomBytes(32).toString('base64url');
    const csrf = randomBytes(24).toString('base64url');
    const now = new Date();
    const expires = new Date(now.getTime() + this.config.sessionHours * 3_600_000);
    await this.store.open({ id_hash: sha256(sessionId).toString('hex'), csrf, created_time: now.toISOString(), expires_time: expires.toISOString() }, now.toISOString());
    return { ok: true, sessionId, csrf, expires };
  }

  /** The session's CSRF token when the cookie's session is live. */
  async find(sessionId: string | undefined): Promise<{ csrf: string } | undefined> {
    if (!sessionId || sessionId.length > 100 || !this.config.adminPassword) return undefined;
    const row = await this.store.find(sha256(sessionId).toString('hex'));
    if (!row || row.expires_time <= new Date().toISOString()) return undefined;
    return { csrf: row.csrf };
  }

  async signOut(sessionId: string | undefined): Promise<void> {
    if (!sessionId) return;
    await this.store.close(sha256(sessionId).toString('hex'));
  }
}
