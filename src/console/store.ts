import { serviceDb, type ServiceDb, type Store } from '../platform/db/database.js';
import type { ConsoleSessionRow, ConsoleTables } from './schema.js';

/** The console's sessions, keyed by the SHA-256 of the cookie (the cookie itself is never stored). */
export class ConsoleSessionStore {
  private readonly db: ServiceDb<ConsoleTables>;

  constructor(store: Store) {
    this.db = serviceDb<ConsoleTables>(store.db);
  }

  /** Adds a session after removing those expired by `now`. */
  async open(row: ConsoleSessionRow, now: string): Promise<void> {
    await this.db.deleteFrom('console_sessions').where('expires_time', '<', now).execute();
    await this.db.insertInto('console_sessions').values(row).execute();
  }

  async find(idHash: string): Promise<Pick<ConsoleSessionRow, 'csrf' | 'expires_time'> | undefined> {
    return this.db.selectFrom('console_sessions').select(['csrf', 'expires_time']).where('id_hash', '=', idHash).executeTakeFirst();
  }

  async close(idHash: string): Promise<void> {
    await this.db.deleteFrom('console_sessions').where('id_hash', '=', idHash).execute();
  }
}
