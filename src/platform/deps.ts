import type { AppSettingsRegistry } from './app-settings.js';
import type { PlaygroundTools } from './playground-tools.js';
import type { CorsOrigins } from './http/cors.js';
import type { Credentials } from './auth/credentials.js';
import type { BlobStore } from './blobs/store.js';
import type { Config } from './config.js';
import type { Store } from './db/database.js';
import type { JobQueue } from './jobs/queue.js';

type Check = () => Promise<Record<string, unknown>> | Record<string, unknown>;

/**
 * What a service's process owns beyond requests: things to close at shutdown
 * (pools, workers, timers) and facts for /readyz (which engine, queue depth).
 */
export class Lifecycle {
  private readonly closers: { name: string; close: () => Promise<void> | void }[] = [];
  private readonly checks = new Map<string, Check>();

  onClose(name: string, close: () => Promise<void> | void): void {
    this.closers.push({ name, close });
  }

  addReadiness(name: string, check: Check): void {
    this.checks.set(name, check);
  }

  async readiness(): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    for (const [name, check] of this.checks) {
      try {
        out[name] = await check();
      } catch (err) {
        out[name] = { ok: false, error: (err as Error).message };
      }
    }
    return out;
  }

  /** Closes in reverse order of registration: workers before the pools and stores they use. */
  async close(): Promise<void> {
    for (const { close } of this.closers.splice(0).reverse()) {
      try {
        await close();
      } catch {
        /* shutting down: keep closing the rest */
      }
    }
  }
}

/** Every collaborator a service may use, handed over explicitly (tests swap any of them). */
export interface ServiceDeps {
  config: Config;
  store: Store;
  credentials: Credentials;
  blobs: BlobStore;
  jobs: JobQueue;
  lifecycle: Lifecycle;
  /** Per-application switches services offer to the console; buildApp provides it. */
  appSettings?: AppSettingsRegistry;
  /** Functions services offer the console's playgrounds (the face engine's boxes); buildApp provides it. */
  playground?: PlaygroundTools;
  /** The origins each application lets browsers call from (CORS); buildApp provides it. */
  corsOrigins?: CorsOrigins;
}
