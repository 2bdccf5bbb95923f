import { CompiledQuery, sql, type Kysely, type OnConflictBuilder } from 'kysely';
import { serviceDb, type Dialect, type ServiceDb } from '../platform/db/database.js';
import type { Database } from '../platform/db/schema.js';
import type { DataVersionRow, EntityRow, EntitySampleRow, IntentRow, IntentSampleRow, KeywordRow, NluTables, SampleOriginRow, SampleRow } from './schema.js';
import type { EntitySample, Pagination, SampleListItem } from './api-schemas.js';

/**
 * Persistence of the training data. Every method is scoped to one
 * application: no query here can read or touch another application's rows.
 */
export class NluStore {
  constructor(
    private readonly db: ServiceDb<NluTables>,
    /** Only picks the fastest correct SQL where the engines differ. */
    private readonly dialect: Dialect = 'sqlite',
  ) {}

  /**
   * How long a sample batch may wait for the rows its clients are about to send (WriteBatcher's gathering). On
   * PostgreSQL a commit is a WAL flush plus two process wake-ups (milliseconds on a loaded machine), so gathering
   * the rows of 32 clients into one statement instead of two halves the commits each client waits for. On SQLite
   * none: its commit blocks the event loop, so the rows arriving meanwhile gather by themselves.
   */
  get sampleGatherMs(): number {
    return this.dialect === 'postgres' ? SAMPLE_GATHER_MS : 0;
  }

  static over(db: Kysely<Database>, dialect?: Dialect): NluStore {
    return new NluStore(serviceDb<NluTables>(db), dialect);
  }

  /** Runs `work` in one transaction: all of it lands or none of it does. */
  transaction<T>(work: (store: NluStore) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) => work(new NluStore(trx, this.dialect)));
  }

  /**
   * A write to training data: `work` and the bump of each application's data version in one transaction, so
   * another process sees the new rows and the new version together (a `work` that throws writes nothing).
   */
  write<T>(apps: string[], work: (store: NluStore) => Promise<T>): Promise<T> {
    return this.transaction(async (store) => {
      const result = await work(store);
      await store.bumpDataVersion(apps);
      return result;
    });
  }

  // Data version

  /** The application's training-data version (0 before its first write). */
  async dataVersion(app: string): Promise<number> {
    const row = await this.db.selectFrom('nlu_data_versions').select('version').where('app_code', '=', app).executeTakeFirst();
    return row === undefined ? 0 : Number(row.version);
  }

  /**
   * Bumps the training-data version of each application: call it in the transaction of the write, after the
   * write (the row stays locked until the commit, so the later the shorter), so the new version and the new
   * rows are seen together. Applications in a fixed order, so two batches never wait on each other crosswise.
   */
  async bumpDataVersion(apps: Iterable<string>): Promise<void> {
    const rows = versionRows(apps);
    if (rows.length > 0) await this.db.insertInto('nlu_data_versions').values(rows).onConflict(bumpOnConflict).execute();
  }

  /**
   * Samples (of one or more applications) and the bump of their applications' versions, all or nothing. On
   * PostgreSQL one statement (the insert as a data-modifying WITH), so a batch costs one round trip as before.
   */
  async insertSamplesAndBump(rows: SampleRow[]): Promise<void> {
    const versions = versionRows(rows.map((r) => r.app_code));
    if (this.dialect === 'postgres') {
      // Building and compiling this statement in Kysely cost more CPU per created sample than the rest of our code
      // (bench nlu, postgres). Its text depends only on the numbers of rows and applications: built once per shape,
      // later batches bind their values in the order the built statement takes them.
      const shape = `${rows.length}:${versions.length}`;
      const values = [...rows.flatMap((r) => [r.code, r.app_code, r.content, r.created_time]), ...versions.flatMap((v) => [v.app_code, v.version, v.updated_time])];
      const text = sampleBatchSql.get(shape);
      if (text !== undefined) {
        await this.db.executeQuery(CompiledQuery.raw(text, values));
        return;
      }
      const built = this.db
        .with('added', (db) => db.insertInto('nlu_samples').values(rows.map(({ code, app_code, content, created_time }) => ({ code, app_code, content, created_time }))))
        .insertInto('nlu_data_versions')
        .values(versions)
        .onConflict(bumpOnConflict)
        .compile();
      // Kept only when it binds exactly `values` (a Kysely that orders them otherwise builds every batch, as before).
      if (sampleBatchSql.size < SAMPLE_BATCH_SHAPES && sameValues(built.parameters, values)) sampleBatchSql.set(shape, built.sql);
      await this.db.executeQuery(built);
      return;
    }
    await this.transaction(async (store) => {
      await store.insertSamples(rows);
      await store.bumpDataVersion(versions.map((v) => v.app_code));
    });
  }

  // Samples

  /** Several samples in one statement: all land or none does. */
  insertSamples(rows: SampleRow[]): Promise<unknown> {
    return this.db.insertInto('nlu_samples').values(rows).execute();
  }

  /** Any number of samples, `IN_CHUNK` rows a statement (in the caller's transaction: all land or none does). */
  async insertManySamples(rows: SampleRow[]): Promise<void> {
    for (const part of chunks(rows)) await this.insertSamples(part);
  }

  findSample(app: string, code: string): Promise<SampleRow | undefined> {
    return this.db.selectFrom('nlu_samples').selectAll().where('app_code', '=', app).where('code', '=', code).executeTakeFirst();
  }

  /** The samples whose content is one of `contents`, oldest first, read `IN_CHUNK` contents a query. */
  async samplesByContents(app: string, contents: string[]): Promise<SampleRow[]> {
    const out: SampleRow[] = [];
    for (const part of chunks(contents)) {
      out.push(...(await this.db.selectFrom('nlu_samples').selectAll().where('app_code', '=', app).where('content', 'in', part).execute()));
    }
    return out.sort((a, b) => (a.created_time < b.created_time ? -1 : a.created_time > b.created_time ? 1 : a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
  }

  async updateSampleContent(app: string, code: string, content: string): Promise<void> {
    await this.db.updateTable('nlu_samples').set({ content }).where('app_code', '=', app).where('code', '=', code).execute();
  }

  /** Deletes samples and every link to them. */
  async deleteSamples(app: string, codes: string[]): Promise<number> {
    if (codes.length === 0) return 0;
    let deleted = 0;
    // Chunked: SQLite caps bound parameters per statement.
    for (const chunk of chunks(codes)) {
      await this.db.deleteFrom('nlu_entity_samples').where('app_code', '=', app).where('sample_code', 'in', chunk).execute();
      await this.db.deleteFrom('nlu_intent_samples').where('app_code', '=', app).where('sample_code', 'in', chunk).execute();
      const result = await this.db.deleteFrom('nlu_samples').where('app_code', '=', app).where('code', 'in', chunk).executeTakeFirst();
      deleted += Number(result.numDeletedRows);
    }
    return deleted;
  }

  /** Samples in list form, oldest first; only those tagged with `onlyEntity` when given. */
  async listSamples(app: string, page: Pagination, onlyEntity?: string): Promise<SampleListItem[]> {
    let query = this.db
      .selectFrom('nlu_samples as s')
      .leftJoin('nlu_intent_samples as m', 'm.sample_code', 's.code')
      .leftJoin('nlu_intents as i', 'i.code', 'm.intent_code')
      .select(['s.code', 's.app_code', 's.content', 's.created_time', 'i.label as intent_label', 'i.type as intent_type'])
      .where('s.app_code', '=', app)
      .orderBy('s.created_time')
      .orderBy('s.code');
    if (onlyEntity !== undefined) {
      query = query.where('s.code', 'in', (eb) =>
        eb.selectFrom('nlu_entity_samples').select('sample_code').where('app_code', '=', app).where('entity_code', '=', onlyEntity),
      );
    }
    const rows = await paginate(query, page).execute();
    if (rows.length === 0) return [];

    let tagQuery = this.db
      .selectFrom('nlu_entity_samples as es')
      .innerJoin('nlu_entities as e', 'e.code', 'es.entity_code')
      .select(['es.sample_code', 'e.label'])
      .where('es.app_code', '=', app)
      .orderBy('es.sample_code')
      .orderBy('es.start');
    // A page asks only for its own samples' tags; a full listing reads them all in one pass.
    const paged = page.limit !== undefined || page.offset !== undefined || onlyEntity !== undefined;
    if (paged && rows.length <= 500)
      tagQuery = tagQuery.where(
        'es.sample_code',
        'in',
        rows.map((r) => r.code),
      );
    const labels = new Map<string, string[]>();
    for (const tag of await tagQuery.execute()) {
      const list = labels.get(tag.sample_code);
      if (!list) labels.set(tag.sample_code, [tag.label]);
      else if (!list.includes(tag.label)) list.push(tag.label);
    }
    return rows.map((r) => ({
      code: r.code,
      app_code: r.app_code,
      content: r.content,
      created_time: r.created_time,
      intent_label: r.intent_label ?? '',
      intent_type: r.intent_type ?? 0,
      entities: labels.get(r.code) ?? [],
    }));
  }

  async sampleCodesOfEntity(app: string, entityCode: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('nlu_entity_samples')
      .select('sample_code')
      .distinct()
      .where('app_code', '=', app)
      .where('entity_code', '=', entityCode)
      .execute();
    return rows.map((r) => r.sample_code);
  }

  // Entities

  insertEntity(row: EntityRow): Promise<unknown> {
    return this.db.insertInto('nlu_entities').values(row).execute();
  }

  findEntityByLabel(app: string, label: string): Promise<EntityRow | undefined> {
    return this.db.selectFrom('nlu_entities').selectAll().where('app_code', '=', app).where('label', '=', label).executeTakeFirst();
  }

  /** The entities whose label is one of `labels`. */
  async entitiesByLabels(app: string, labels: string[]): Promise<EntityRow[]> {
    const out: EntityRow[] = [];
    for (const part of chunks(labels))
      out.push(...(await this.db.selectFrom('nlu_entities').selectAll().where('app_code', '=', app).where('label', 'in', part).execute()));
    return out;
  }

  /** Several entities, `IN_CHUNK` rows a statement (in the caller's transaction). */
  async insertEntities(rows: EntityRow[]): Promise<void> {
    for (const part of chunks(rows)) await this.db.insertInto('nlu_entities').values(part).execute();
  }

  findEntity(app: string, code: string): Promise<EntityRow | undefined> {
    return this.db.selectFrom('nlu_entities').selectAll().where('app_code', '=', app).where('code', '=', code).executeTakeFirst();
  }

  listEntities(app: string, page: Pagination): Promise<EntityRow[]> {
    const query = this.db.selectFrom('nlu_entities').selectAll().where('app_code', '=', app).orderBy('created_time').orderBy('code');
    return paginate(query, page).execute();
  }

  async updateEntityDescription(app: string, code: string, description: string): Promise<void> {
    await this.db.updateTable('nlu_entities').set({ description }).where('app_code', '=', app).where('code', '=', code).execute();
  }

  async deleteEntity(app: string, code: string): Promise<void> {
    await this.db.deleteFrom('nlu_entity_keywords').where('app_code', '=', app).where('entity_code', '=', code).execute();
    await this.db.deleteFrom('nlu_entity_samples').where('app_code', '=', app).where('entity_code', '=', code).execute();
    await this.db.deleteFrom('nlu_entities').where('app_code', '=', app).where('code', '=', code).execute();
  }

  // Intents

  insertIntent(row: IntentRow): Promise<unknown> {
    return this.db.insertInto('nlu_intents').values(row).execute();
  }

  findIntent(app: string, code: string): Promise<IntentRow | undefined> {
    return this.db.selectFrom('nlu_intents').selectAll().where('app_code', '=', app).where('code', '=', code).executeTakeFirst();
  }

  findIntentByLabel(app: string, label: string): Promise<IntentRow | undefined> {
    return this.db.selectFrom('nlu_intents').selectAll().where('app_code', '=', app).where('label', '=', label).executeTakeFirst();
  }

  /** The intents whose label is one of `labels`. */
  async intentsByLabels(app: string, labels: string[]): Promise<IntentRow[]> {
    const out: IntentRow[] = [];
    for (const part of chunks(labels))
      out.push(...(await this.db.selectFrom('nlu_intents').selectAll().where('app_code', '=', app).where('label', 'in', part).execute()));
    return out;
  }

  /** Several intents, `IN_CHUNK` rows a statement (in the caller's transaction: all land or none does). */
  async insertIntents(rows: IntentRow[]): Promise<void> {
    for (const part of chunks(rows)) await this.db.insertInto('nlu_intents').values(part).execute();
  }

  listIntents(app: string, page: Pagination): Promise<IntentRow[]> {
    const query = this.db.selectFrom('nlu_intents').selectAll().where('app_code', '=', app).orderBy('created_time').orderBy('code');
    return paginate(query, page).execute();
  }

  async updateIntent(app: string, code: string, changes: Partial<Pick<IntentRow, 'label' | 'description' | 'type'>>): Promise<void> {
    await this.db.updateTable('nlu_intents').set(changes).where('app_code', '=', app).where('code', '=', code).execute();
  }

  async deleteIntent(app: string, code: string): Promise<void> {
    await this.db.deleteFrom('nlu_intent_samples').where('app_code', '=', app).where('intent_code', '=', code).execute();
    await this.db.deleteFrom('nlu_intents').where('app_code', '=', app).where('code', '=', code).execute();
  }

  // Intent-sample links

  insertIntentSample(row: IntentSampleRow): Promise<unknown> {
    return this.db.insertInto('nlu_intent_samples').values(row).execute();
  }

  findIntentSample(app: string, code: string): Promise<IntentSampleRow | undefined> {
    return this.db.selectFrom('nlu_intent_samples').selectAll().where('app_code', '=', app).where('code', '=', code).executeTakeFirst();
  }

  /** Several links, `IN_CHUNK` rows a statement (in the caller's transaction). */
  async insertIntentSamples(rows: IntentSampleRow[]): Promise<void> {
    for (const part of chunks(rows)) await this.db.insertInto('nlu_intent_samples').values(part).execute();
  }

  /** Of `sampleCodes`, those linked to an intent (as `intentOfSample` finds one), with that intent's code. */
  async intentsOfSamples(app: string, sampleCodes: string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const part of chunks(sampleCodes)) {
      const rows = await this.db
        .selectFrom('nlu_intent_samples as m')
        .innerJoin('nlu_intents as i', 'i.code', 'm.intent_code')
        .select(['m.sample_code', 'm.intent_code'])
        .where('m.app_code', '=', app)
        .where('m.sample_code', 'in', part)
        .execute();
      for (const r of rows) if (!out.has(r.sample_code)) out.set(r.sample_code, r.intent_code);
    }
    return out;
  }

  intentOfSample(app: string, sampleCode: string) {
    return this.db
      .selectFrom('nlu_intent_samples as m')
      .innerJoin('nlu_intents as i', 'i.code', 'm.intent_code')
      .select(['m.code as intent_sample_code', 'm.intent_code', 'm.sample_code', 'i.label as intent_label'])
      .where('m.app_code', '=', app)
      .where('m.sample_code', '=', sampleCode)
      .executeTakeFirst();
  }

  async deleteIntentSample(app: string, code: string): Promise<void> {
    await this.db.deleteFrom('nlu_intent_samples').where('app_code', '=', app).where('code', '=', code).execute();
  }

  // Entity-sample links

  /** Several entity-sample links, `IN_CHUNK` rows a statement (in the caller's transaction). */
  async insertEntitySamples(rows: EntitySampleRow[]): Promise<void> {
    for (const part of chunks(rows)) await this.db.insertInto('nlu_entity_samples').values(part).execute();
  }

  insertEntitySample(row: EntitySampleRow): Promise<unknown> {
    return this.db.insertInto('nlu_entity_samples').values(row).execute();
  }

  findEntitySample(app: string, code: string): Promise<EntitySampleRow | undefined> {
    return this.db.selectFrom('nlu_entity_samples').selectAll().where('app_code', '=', app).where('code', '=', code).executeTakeFirst();
  }

  entitySamplesOfSample(app: string, sampleCode: string): Promise<EntitySampleRow[]> {
    return this.db.selectFrom('nlu_entity_samples').selectAll().where('app_code', '=', app).where('sample_code', '=', sampleCode).orderBy('start').execute();
  }

  /** Tags of a sample joined with their entity's label and type (the detail form). */
  async taggedEntitiesOfSample(app: string, sampleCode: string): Promise<EntitySample[]> {
    const rows = await this.db
      .selectFrom('nlu_entity_samples as es')
      .innerJoin('nlu_entities as e', 'e.code', 'es.entity_code')
      .select(['es.code', 'es.entity_code', 'es.sample_code', 'es.parent_code', 'es.value', 'es.start', 'es.end', 'es.created_time', 'e.label', 'e.type'])
      .where('es.app_code', '=', app)
      .where('es.sample_code', '=', sampleCode)
      .orderBy('es.start')
      .execute();
    return rows.map((r) => ({
      entity_sample_code: r.code,
      entity_code: r.entity_code,
      sample_code: r.sample_code,
      parent_code: r.parent_code,
      value: r.value,
      start: r.start,
      end: r.end,
      created_time: r.created_time,
      label: r.label,
      Type: r.type,
    }));
  }

  async moveEntitySample(app: string, code: string, span: { start: number; end: number }): Promise<void> {
    await this.db.updateTable('nlu_entity_samples').set(span).where('app_code', '=', app).where('code', '=', code).execute();
  }

  async deleteEntitySample(app: string, code: string): Promise<void> {
    await this.db.deleteFrom('nlu_entity_samples').where('app_code', '=', app).where('code', '=', code).execute();
  }

  // Keyword lists of entities (training data: a write bumps the data version like any other)

  keywordsOfApp(app: string): Promise<KeywordRow[]> {
    return this.db.selectFrom('nlu_entity_keywords').selectAll().where('app_code', '=', app).orderBy('created_time').orderBy('code').execute();
  }

  keywordsOfEntity(app: string, entityCode: string): Promise<KeywordRow[]> {
    return this.db
      .selectFrom('nlu_entity_keywords')
      .selectAll()
      .where('app_code', '=', app)
      .where('entity_code', '=', entityCode)
      .orderBy('created_time')
      .orderBy('code')
      .execute();
  }

  /** Adds a value or replaces its synonyms. */
  async upsertKeyword(row: KeywordRow): Promise<void> {
    await this.db
      .insertInto('nlu_entity_keywords')
      .values(row)
      .onConflict((oc) => oc.columns(['entity_code', 'value']).doUpdateSet({ synonyms: row.synonyms }))
      .execute();
  }

  async deleteKeyword(app: string, entityCode: string, value: string): Promise<number> {
    const result = await this.db
      .deleteFrom('nlu_entity_keywords')
      .where('app_code', '=', app)
      .where('entity_code', '=', entityCode)
      .where('value', '=', value)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  // Where samples came from

  async insertSampleOrigins(rows: SampleOriginRow[]): Promise<void> {
    if (rows.length > 0) await this.db.insertInto('nlu_sample_origins').values(rows).execute();
  }

  sampleOrigin(app: string, sampleCode: string): Promise<SampleOriginRow | undefined> {
    return this.db.selectFrom('nlu_sample_origins').selectAll().where('app_code', '=', app).where('sample_code', '=', sampleCode).executeTakeFirst();
  }

  /** Every row of an application, for export. */
  async everything(app: string) {
    const [intents, entities, samples, intentLinks, entityLinks] = await Promise.all([
      this.db.selectFrom('nlu_intents').selectAll().where('app_code', '=', app).orderBy('created_time').orderBy('code').execute(),
      this.db.selectFrom('nlu_entities').selectAll().where('app_code', '=', app).orderBy('created_time').orderBy('code').execute(),
      this.db.selectFrom('nlu_samples').selectAll().where('app_code', '=', app).orderBy('created_time').orderBy('code').execute(),
      this.db.selectFrom('nlu_intent_samples').selectAll().where('app_code', '=', app).execute(),
      this.db.selectFrom('nlu_entity_samples').selectAll().where('app_code', '=', app).orderBy('start').execute(),
    ]);
    return { intents, entities, samples, intentLinks, entityLinks };
  }

  /** Deletes an application's whole training set (import with mode=replace). */
  async deleteEverything(app: string): Promise<void> {
    await this.db.deleteFrom('nlu_entity_samples').where('app_code', '=', app).execute();
    await this.db.deleteFrom('nlu_intent_samples').where('app_code', '=', app).execute();
    await this.db.deleteFrom('nlu_samples').where('app_code', '=', app).execute();
    await this.db.deleteFrom('nlu_entity_keywords').where('app_code', '=', app).execute();
    await this.db.deleteFrom('nlu_entities').where('app_code', '=', app).execute();
    await this.db.deleteFrom('nlu_intents').where('app_code', '=', app).execute();
  }
}

/** Measured with 2 and 4 (bench nlu, postgres, docs/nlu.md): 2 was the better. A client that sends one sample at a time never waits (one row expected). */
const SAMPLE_GATHER_MS = 2;

/** PostgreSQL text of a sample batch by shape (`rows:applications`); a batch holds at most 200 rows. */
const sampleBatchSql = new Map<string, string>();
const SAMPLE_BATCH_SHAPES = 2000;

function sameValues(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** An application that has a version moves it up by one. */
const bumpOnConflict = <DB, TB extends keyof DB>(oc: OnConflictBuilder<DB, TB>) =>
  oc.column('app_code' as never).doUpdateSet({ version: sql`nlu_data_versions.version + 1`, updated_time: sql`excluded.updated_time` } as never);

/** One row per application, in a fixed order (two batches never wait on each other crosswise). */
function versionRows(apps: Iterable<string>): DataVersionRow[] {
  const updated_time = new Date().toISOString();
  return [...new Set(apps)].sort().map((app_code) => ({ app_code, version: 1, updated_time }));
}

function paginate<Q extends { limit(n: number): Q; offset(n: number): Q }>(query: Q, page: Pagination): Q {
  let q = query;
  if (page.limit !== undefined) q = q.limit(page.limit);
  if (page.offset !== undefined) {
    if (page.limit === undefined) q = q.limit(Number.MAX_SAFE_INTEGER);
    q = q.offset(page.offset);
  }
  return q;
}

/**
 * Rows or values a bulk statement takes at most: PostgreSQL binds at most 65,535 parameters a statement and
 * SQLite 32,766; 500 rows of the widest table here (entity-sample links, 9 columns) bind 4,500.
 */
const IN_CHUNK = 500;

function* chunks<T>(items: T[]): Generator<T[]> {
  for (let i = 0; i < items.length; i += IN_CHUNK) yield items.slice(i, i + IN_CHUNK);
}
