import { serviceDb, type ServiceDb, type Store } from '../../platform/db/database.js';
import type { TtsRequestRow, TtsTables } from './schema.js';

/** Persistence of synthesis requests. Every read by a client filters by app_code. */
export class TtsStore {
  private readonly db: ServiceDb<TtsTables>;

  constructor(store: Store) {
    this.db = serviceDb<TtsTables>(store.db);
  }

  async insert(row: TtsRequestRow): Promise<void> {
    await this.db.insertInto('tts_requests').values(row).execute();
  }

  /** Requests neither ready nor failed, of every application: the synthesis backlog. */
  async countUnfinished(): Promise<number> {
    const r = await this.db
      .selectFrom('tts_requests')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('ready_time', 'is', null)
      .where('failed_time', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  async setJob(id: string, jobId: string): Promise<void> {
    await this.db.updateTable('tts_requests').set({ job_id: jobId }).where('id', '=', id).execute();
  }

  async get(id: string, appCode: string): Promise<TtsRequestRow | undefined> {
    return this.db.selectFrom('tts_requests').selectAll().where('id', '=', id).where('app_code', '=', appCode).executeTakeFirst();
  }

  /** For the job worker, which acts for whichever app owns the request. */
  async getForWorker(id: string): Promise<TtsRequestRow | undefined> {
    return this.db.selectFrom('tts_requests').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** For the public link: the token is the capability, there is no api_key. */
  async getByToken(token: string): Promise<TtsRequestRow | undefined> {
    return this.db.selectFrom('tts_requests').selectAll().where('link_token', '=', token).executeTakeFirst();
  }

  async markReady(id: string, audio: { bytes: number; ms: number }): Promise<void> {
    await this.db
      .updateTable('tts_requests')
      .set({ ready_time: new Date().toISOString(), audio_bytes: audio.bytes, audio_ms: audio.ms, error: null, failed_time: null })
      .where('id', '=', id)
      .execute();
  }

  async markFailed(id: string, error: string): Promise<void> {
    await this.db.updateTable('tts_requests').set({ failed_time: new Date().toISOString(), error }).where('id', '=', id).execute();
  }

  /**
   * Requests a crash cut off between their row and their job (the client got no answer, and the
   * text lived only in the job): no job will ever finish them, so they are forgotten once older than
   * `before`, instead of answering "queued" forever. Answers how many.
   */
  async deleteOrphansBefore(before: Date): Promise<number> {
    const result = await this.db
      .deleteFrom('tts_requests')
      .where('job_id', 'is', null)
      .where('ready_time', 'is', null)
      .where('failed_time', 'is', null)
      .where('created_time', '<', before.toISOString())
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Retention: forgets finished requests created before `before`; answers how many. */
  async deleteFinishedBefore(before: Date): Promise<number> {
    const result = await this.db
      .deleteFrom('tts_requests')
      .where('created_time', '<', before.toISOString())
      .where((eb) => eb.or([eb('ready_time', 'is not', null), eb('failed_time', 'is not', null)]))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
