import { uuidv7 } from '../platform/ids.js';
import { isUniqueViolation } from '../platform/db/database.js';
import { WriteBatcher } from '../platform/db/write-batcher.js';
import type { EntityRow, EntitySampleRow, IntentRow, IntentSampleRow, SampleRow } from './schema.js';
import { ServiceError } from '../platform/http/errors.js';
import { NluErrors } from './errors.js';
import type {
  Entity,
  EntitySample,
  ImportResult,
  Intent,
  IntentSample,
  Pagination,
  SampleCreated,
  SampleDetail,
  SampleListItem,
  TrainingSet,
  TrainingSetImportResult,
} from './api-schemas.js';
import { SampleListCache } from './list-cache.js';
import type { NluStore } from './store.js';

const LABEL = /^[a-z0-9_]+$/;
const MAX_LABEL = 100;
const MAX_CONTENT = 10_000;

export interface ImportRow {
  intent?: unknown;
  sample?: unknown;
}

function now(): string {
  return new Date().toISOString();
}

/** Positions count Unicode code points, as Python and wit.ai clients count them; end is exclusive. */
function slice(content: string, start: number, end: number): string {
  return Array.from(content).slice(start, end).join('');
}

function sameText(a: string, b: string): boolean {
  return a === b || a.normalize('NFC') === b.normalize('NFC');
}

function checkLabel(label: string): void {
  if (!LABEL.test(label) || label.length > MAX_LABEL) {
    throw new ServiceError(NluErrors.invalidLabel, `Invalid label "${label}": only a-z, 0-9 and _ are allowed (1-${MAX_LABEL} characters)`);
  }
}

function checkEntityType(type: number): void {
  if (![1, 2, 3].includes(type)) throw new ServiceError(NluErrors.invalidEntityType, `Entity type must be 1, 2 or 3, got ${type}`);
}

function cleanContent(content: string): string {
  const text = content.trim();
  if (!text) throw new ServiceError(NluErrors.emptyContent);
  if (text.length > MAX_CONTENT) {
    throw new ServiceError(NluErrors.invalidRequest, `Sample content is limited to ${MAX_CONTENT} characters`);
  }
  return text;
}

/** The checks of a whole training set, before anything is written (every one passes or nothing is). */
function checkTrainingSet(set: TrainingSet): void {
  set.intents.forEach((i) => checkLabel(i.label));
  set.entities.forEach((e) => {
    checkLabel(e.label);
    checkEntityType(e.type);
  });
  set.samples.forEach((s, n) => {
    cleanContent(s.content);
    if (s.intent && !LABEL.test(s.intent)) checkLabel(s.intent);
    for (const tag of s.entities) {
      const length = Array.from(s.content.trim()).length;
      if (tag.start < 0 || tag.end > length || tag.start >= tag.end || !sameText(slice(s.content.trim(), tag.start, tag.end), tag.value)) {
        throw new ServiceError(NluErrors.invalidSpan, `samples[${n}]: tag "${tag.entity}" at ${tag.start}-${tag.end} does not match "${tag.value}"`);
      }
    }
  });
}

/**
 * Writes a training set into the application's (in the caller's transaction): intents and entities created when
 * missing, a sample skipped when the same text is already a sample with the same intent. Answers the counts and,
 * per sample of the set, the code of the sample created (undefined when skipped).
 */
async function mergeTrainingSet(store: NluStore, app: string, set: TrainingSet): Promise<{ result: TrainingSetImportResult; sampleCodes: (string | undefined)[] }> {
  const declaredIntents = new Set(set.intents.map((i) => i.label));
  const declaredEntities = new Set(set.entities.map((e) => e.label));
  const result: TrainingSetImportResult = { intents_created: 0, entities_created: 0, samples_created: 0, samples_skipped: 0, entity_links_created: 0 };
  const sampleCodes: (string | undefined)[] = new Array<string | undefined>(set.samples.length).fill(undefined);
  // Read and written in bulk, as the intent-sample import is (see there); the same decisions, row by row.
  const sampleIntents = set.samples.map((x) => x.intent).filter(Boolean);
  const sampleEntities = set.samples.flatMap((x) => x.entities.map((tag) => tag.entity));
  const intents = new Map((await store.intentsByLabels(app, [...new Set([...declaredIntents, ...sampleIntents])])).map((i) => [i.label, i]));
  const entities = new Map((await store.entitiesByLabels(app, [...new Set([...declaredEntities, ...sampleEntities])])).map((e) => [e.label, e]));
  const newIntents: IntentRow[] = [];
  for (const i of set.intents) {
    if (intents.has(i.label)) continue;
    const row = { code: uuidv7(), app_code: app, label: i.label, description: i.description, type: i.type, created_time: now() };
    newIntents.push(row);
    intents.set(i.label, row);
    result.intents_created++;
  }
  const newEntities: EntityRow[] = [];
  for (const e of set.entities) {
    if (entities.has(e.label)) continue;
    const row = { code: uuidv7(), app_code: app, label: e.label, description: e.description, type: e.type, created_time: now() };
    newEntities.push(row);
    entities.set(e.label, row);
    result.entities_created++;
  }
  // A sample is skipped when the same text is already a sample with the same intent (or both without one).
  const existing = await store.samplesByContents(app, [...new Set(set.samples.map((x) => x.content.trim()))]);
  const intentOf = await store.intentsOfSamples(
    app,
    existing.map((e) => e.code),
  );
  const present = new Set(existing.map((e) => `${e.content}\u0000${intentOf.get(e.code) ?? ''}`));
  const newSamples: SampleRow[] = [];
  const newLinks: IntentSampleRow[] = [];
  const newTags: EntitySampleRow[] = [];
  for (const [n, s] of set.samples.entries()) {
    const intent = s.intent ? intents.get(s.intent) : undefined;
    if (s.intent && !intent) throw new ServiceError(NluErrors.intentNotFound, `samples[${n}]: unknown intent "${s.intent}"`);
    const content = s.content.trim();
    const key = `${content}\u0000${intent?.code ?? ''}`;
    if (present.has(key)) {
      result.samples_skipped++;
      continue;
    }
    present.add(key);
    const sampleCode = uuidv7();
    sampleCodes[n] = sampleCode;
    const created = now();
    newSamples.push({ code: sampleCode, app_code: app, content, created_time: created });
    result.samples_created++;
    if (intent) newLinks.push({ code: uuidv7(), app_code: app, intent_code: intent.code, sample_code: sampleCode, created_time: created });
    for (const tag of s.entities) {
      const entity = entities.get(tag.entity);
      if (!entity) throw new ServiceError(NluErrors.entityNotFound, `samples[${n}]: unknown entity "${tag.entity}"`);
      newTags.push({
        code: uuidv7(),
        app_code: app,
        entity_code: entity.code,
        sample_code: sampleCode,
        parent_code: '',
        value: slice(content, tag.start, tag.end),
        start: tag.start,
        end: tag.end,
        created_time: created,
      });
      result.entity_links_created++;
    }
  }
  await store.insertIntents(newIntents);
  await store.insertEntities(newEntities);
  await store.insertManySamples(newSamples);
  await store.insertIntentSamples(newLinks);
  await store.insertEntitySamples(newTags);
  return { result, sampleCodes };
}

function toEntity(row: EntityRow): Entity {
  return { code: row.code, app_code: row.app_code, label: row.label, type: row.type, description: row.description, created_time: row.created_time };
}

function toIntent(row: IntentRow): Intent {
  return { code: row.code, app_code: row.app_code, label: row.label, description: row.description, type: row.type, created_time: row.created_time };
}

/**
 * The training-data service: samples, entities, intents and the links
 * between them, for one application at a time.
 */
export class NluService {
  /** Samples created at the same time are committed together (one transaction per turn of the event loop). */
  private readonly sampleWrites: WriteBatcher<SampleRow>;
  /** Full-list reads under way, shared by the requests that read the same data version meanwhile. */
  private readonly listReads = new Map<string, { version: number; json: Promise<Buffer> }>();

  constructor(
    private readonly store: NluStore,
    private readonly listCache = new SampleListCache(),
  ) {
    this.sampleWrites = new WriteBatcher(
      (rows) => store.insertSamplesAndBump(rows),
      (row) => store.insertSamplesAndBump([row]),
      200,
      store.sampleGatherMs,
    );
  }

  /**
   * The full list of an application's samples as JSON (UTF-8 bytes: the bare GET /sample). One indexed read
   * of the data version per call; the list itself is read again only when some process wrote since.
   */
  async listSamplesJson(app: string): Promise<Buffer> {
    const version = await this.store.dataVersion(app);
    const cached = this.listCache.get(app, version);
    if (cached !== undefined) return cached;
    const pending = this.listReads.get(app);
    if (pending?.version === version) return pending.json;
    // Read after the version: the list holds every write up to it (and maybe later ones, which only cost a miss).
    const json = this.store.listSamples(app, {}).then((rows) => Buffer.from(JSON.stringify(rows)));
    this.listReads.set(app, { version, json });
    try {
      const bytes = await json;
      this.listCache.set(app, version, bytes);
      return bytes;
    } finally {
      if (this.listReads.get(app)?.json === json) this.listReads.delete(app);
    }
  }

  /**
   * Every write to training data goes through here: `work` and the bump of each application's data version
   * in one transaction, so another process sees the new rows and the new version together.
   */
  private write<T>(apps: string[], work: (store: NluStore) => Promise<T>): Promise<T> {
    return this.store.write(apps, work);
  }

  // Samples

  listSamples(app: string, page: Pagination): Promise<SampleListItem[]> {
    return this.store.listSamples(app, page);
  }

  async createSample(app: string, content: string): Promise<SampleCreated> {
    const row = { code: uuidv7(), app_code: app, content: cleanContent(content), created_time: now() };
    await this.sampleWrites.write(row);
    return row;
  }

  async getSample(app: string, code: string): Promise<SampleDetail> {
    const sample = await this.requireSample(app, code);
    const [intent, entities] = await Promise.all([this.store.intentOfSample(app, code), this.store.taggedEntitiesOfSample(app, code)]);
    return {
      ...sample,
      intent: intent ?? { intent_sample_code: '', intent_code: '', sample_code: '', intent_label: '' },
      entities,
    };
  }

  /**
   * Changes a sample's text. A tag whose words are still at its position stays;
   * one whose words moved follows them; one whose words are gone is removed.
   */
  async updateSample(app: string, code: string, content: string): Promise<SampleCreated> {
    const text = cleanContent(content);
    return this.write([app], async (store) => {
      const sample = await this.requireSample(app, code, store);
      await store.updateSampleContent(app, code, text);
      for (const tag of await store.entitySamplesOfSample(app, code)) {
        if (sameText(slice(text, tag.start, tag.end), tag.value)) continue;
        const at = Array.from(text.slice(0, Math.max(0, text.indexOf(tag.value)))).length;
        if (text.includes(tag.value)) {
          await store.moveEntitySample(app, tag.code, { start: at, end: at + Array.from(tag.value).length });
        } else {
          await store.deleteEntitySample(app, tag.code);
        }
      }
      return { ...sample, content: text };
    });
  }

  async deleteSample(app: string, code: string): Promise<void> {
    await this.write([app], async (store) => {
      await this.requireSample(app, code, store);
      await store.deleteSamples(app, [code]);
    });
  }

  // Entities

  async listEntities(app: string, page: Pagination): Promise<Entity[]> {
    return (await this.store.listEntities(app, page)).map(toEntity);
  }

  async createEntity(app: string, input: { label: string; description: string; type: number }): Promise<Entity> {
    checkLabel(input.label);
    checkEntityType(input.type);
    const row: EntityRow = {
      code: uuidv7(),
      app_code: app,
      label: input.label,
      type: input.type,
      description: input.description,
      created_time: now(),
    };
    try {
      await this.write([app], (store) => store.insertEntity(row));
    } catch (err) {
      if (isUniqueViolation(err)) throw new ServiceError(NluErrors.entityLabelTaken, `An entity labelled "${input.label}" already exists`);
      throw err;
    }
    return toEntity(row);
  }

  async getEntity(app: string, label: string): Promise<Entity> {
    return toEntity(await this.requireEntity(app, label));
  }

  /** Only the description changes; `type` is validated but an entity keeps the type it was created with. */
  async updateEntity(app: string, label: string, input: { description: string; type: number }): Promise<Entity> {
    checkEntityType(input.type);
    return this.write([app], async (store) => {
      const entity = await this.requireEntity(app, label, store);
      await store.updateEntityDescription(app, entity.code, input.description);
      return toEntity({ ...entity, description: input.description });
    });
  }

  async deleteEntity(app: string, label: string): Promise<void> {
    await this.write([app], async (store) => {
      const entity = await this.requireEntity(app, label, store);
      await store.deleteEntity(app, entity.code);
    });
  }

  async samplesOfEntity(app: string, label: string, page: Pagination): Promise<SampleListItem[]> {
    const entity = await this.requireEntity(app, label);
    return this.store.listSamples(app, page, entity.code);
  }

  /** Deletes every sample tagged with the entity, with all their links. */
  async deleteSamplesOfEntity(app: string, label: string): Promise<number> {
    return this.write([app], async (store) => {
      const entity = await this.requireEntity(app, label, store);
      return store.deleteSamples(app, await store.sampleCodesOfEntity(app, entity.code));
    });
  }

  // Intents

  async listIntents(app: string, page: Pagination): Promise<Intent[]> {
    return (await this.store.listIntents(app, page)).map(toIntent);
  }

  async createIntent(app: string, input: { label: string; description?: string; type?: number }): Promise<Intent> {
    checkLabel(input.label);
    const row: IntentRow = {
      code: uuidv7(),
      app_code: app,
      label: input.label,
      description: input.description ?? '',
      type: input.type ?? 1,
      created_time: now(),
    };
    try {
      await this.write([app], (store) => store.insertIntent(row));
    } catch (err) {
      if (isUniqueViolation(err)) throw new ServiceError(NluErrors.intentLabelTaken, `An intent labelled "${input.label}" already exists`);
      throw err;
    }
    return toIntent(row);
  }

  async getIntent(app: string, code: string): Promise<Intent> {
    return toIntent(await this.requireIntent(app, code));
  }

  async updateIntent(app: string, code: string, input: { label?: string; description?: string; type?: number }): Promise<Intent> {
    const intent = await this.requireIntent(app, code);
    if (input.label !== undefined) checkLabel(input.label);
    const changes = {
      ...(input.label !== undefined ? { label: input.label } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.type !== undefined ? { type: input.type } : {}),
    };
    try {
      if (Object.keys(changes).length) await this.write([app], (store) => store.updateIntent(app, intent.code, changes));
    } catch (err) {
      if (isUniqueViolation(err)) throw new ServiceError(NluErrors.intentLabelTaken, `An intent labelled "${input.label}" already exists`);
      throw err;
    }
    return toIntent({ ...intent, ...changes });
  }

  /** Deletes an intent and its links; its samples stay, with no intent. */
  async deleteIntent(app: string, code: string): Promise<void> {
    await this.write([app], async (store) => {
      const intent = await this.requireIntent(app, code, store);
      await store.deleteIntent(app, intent.code);
    });
  }

  // Intent-sample links

  async linkIntent(app: string, intentCode: string, sampleCode: string): Promise<IntentSample> {
    return this.write([app], async (store) => {
      const intent = await this.requireIntent(app, intentCode, store);
      await this.requireSample(app, sampleCode, store);
      const existing = await store.intentOfSample(app, sampleCode);
      if (existing) {
        throw new ServiceError(
          NluErrors.sampleHasIntent,
          `The sample is already mapped to intent "${existing.intent_label}" (intent_sample_code ${existing.intent_sample_code}); delete that mapping first`,
        );
      }
      const code = uuidv7();
      try {
        await store.insertIntentSample({ code, app_code: app, intent_code: intent.code, sample_code: sampleCode, created_time: now() });
      } catch (err) {
        if (isUniqueViolation(err)) throw new ServiceError(NluErrors.sampleHasIntent);
        throw err;
      }
      // The spec's creation answer leaves label and description empty.
      return { intent_sample_code: code, intent_code: intent.code, sample_code: sampleCode, intent_label: '', intent_type: intent.type, intent_description: '' };
    });
  }

  async unlinkIntent(app: string, code: string): Promise<void> {
    await this.write([app], async (store) => {
      const link = await store.findIntentSample(app, code);
      if (!link) throw new ServiceError(NluErrors.intentSampleNotFound, `No intent-sample mapping "${code}"`);
      await store.deleteIntentSample(app, code);
    });
  }

  /**
   * Bulk import of {intent, sample} rows, all or nothing per row. A row is
   * counted once: empty intent, invalid intent (a label that breaks a-z0-9_),
   * empty sample, duplicate (the text is already a sample of an intent), or
   * imported. A label with no intent yet creates it; `number_of_imported_intent`
   * counts the intents created.
   */
  async importIntentSamples(app: string, rows: ImportRow[]): Promise<ImportResult> {
    const result: ImportResult = {
      number_of_duplicate_sample: 0,
      number_of_empty_intent: 0,
      number_of_imported_intent: 0,
      number_of_imported_sample: 0,
      number_of_invalid_intent: 0,
      number_of_empty_sample: 0,
    };
    const createdIntents = new Set<string>();
    // Each row is classified as before, row by row; the store is read and written in bulk (a few statements per
    // 500 rows instead of three per row: 100,000 rows took 31 s on PostgreSQL and held SQLite's event loop 2.7 s).
    const valid: { label: string; text: string }[] = [];
    for (const row of rows) {
      const label = typeof row?.intent === 'string' ? row.intent.trim() : '';
      const text = typeof row?.sample === 'string' ? row.sample.trim() : '';
      if (!label) result.number_of_empty_intent++;
      else if (!LABEL.test(label) || label.length > MAX_LABEL) result.number_of_invalid_intent++;
      else if (!text || text.length > MAX_CONTENT) result.number_of_empty_sample++;
      else valid.push({ label, text });
    }
    if (valid.length === 0) return result;
    await this.write([app], async (store) => {
      const intents = new Map((await store.intentsByLabels(app, [...new Set(valid.map((v) => v.label))])).map((i) => [i.label, i]));
      const existing = await store.samplesByContents(app, [...new Set(valid.map((v) => v.text))]);
      const withIntent = await store.intentsOfSamples(
        app,
        existing.map((e) => e.code),
      );
      // Per content: whether a sample of it has an intent (the row is a duplicate), else the oldest one without (reused).
      const byContent = new Map<string, { duplicate: boolean; reusable?: string }>();
      for (const e of existing) {
        const known = byContent.get(e.content) ?? { duplicate: false };
        if (withIntent.has(e.code)) known.duplicate = true;
        else known.reusable ??= e.code;
        byContent.set(e.content, known);
      }
      const newIntents: IntentRow[] = [];
      const newSamples: SampleRow[] = [];
      const newLinks: IntentSampleRow[] = [];
      for (const { label, text } of valid) {
        let intent = intents.get(label);
        if (!intent) {
          // docs/api-contract.md#import-creates-missing-intents: a label not seen yet creates its intent, so one call moves a bot's data.
          intent = { code: uuidv7(), app_code: app, label, description: '', type: 1, created_time: now() };
          newIntents.push(intent);
          intents.set(label, intent);
          createdIntents.add(label);
        }
        const known = byContent.get(text);
        if (known?.duplicate) {
          result.number_of_duplicate_sample++;
          continue;
        }
        const created = now();
        const sampleCode = known?.reusable ?? uuidv7();
        if (!known?.reusable) newSamples.push({ code: sampleCode, app_code: app, content: text, created_time: created });
        newLinks.push({ code: uuidv7(), app_code: app, intent_code: intent.code, sample_code: sampleCode, created_time: created });
        // A later row of the same text is a duplicate: this one gave it an intent.
        byContent.set(text, { duplicate: true });
        result.number_of_imported_sample++;
      }
      await store.insertIntents(newIntents);
      await store.insertManySamples(newSamples);
      await store.insertIntentSamples(newLinks);
    });
    result.number_of_imported_intent = createdIntents.size;
    return result;
  }

  // Entity-sample links

  async tagEntity(
    app: string,
    input: { entity_code: string; sample_code: string; value: string; start: number; end: number; parent_code?: string },
  ): Promise<EntitySample> {
    return this.write([app], async (store) => {
      const entity = await store.findEntity(app, input.entity_code);
      if (!entity) throw new ServiceError(NluErrors.entityNotFound, `No entity with code "${input.entity_code}"`);
      const sample = await this.requireSample(app, input.sample_code, store);
      const length = Array.from(sample.content).length;
      if (input.start < 0 || input.end > length || input.start >= input.end) {
        throw new ServiceError(NluErrors.invalidSpan, `start ${input.start} and end ${input.end} must satisfy 0 <= start < end <= ${length} (the sample's length)`);
      }
      const actual = slice(sample.content, input.start, input.end);
      if (!sameText(actual, input.value)) {
        throw new ServiceError(NluErrors.valueMismatch, `value "${input.value}" differs from the sample text "${actual}" at ${input.start}-${input.end}`);
      }
      const existing = await store.entitySamplesOfSample(app, sample.code);
      if (existing.some((t) => t.entity_code === entity.code && t.start === input.start && t.end === input.end)) {
        throw new ServiceError(NluErrors.duplicateEntitySample);
      }
      const parent = input.parent_code ?? '';
      if (parent && !existing.some((t) => t.code === parent)) {
        throw new ServiceError(NluErrors.entitySampleNotFound, `parent_code "${parent}" is not a tag of this sample`);
      }
      const row = {
        code: uuidv7(),
        app_code: app,
        entity_code: entity.code,
        sample_code: sample.code,
        parent_code: parent,
        value: actual,
        start: input.start,
        end: input.end,
        created_time: now(),
      };
      await store.insertEntitySample(row);
      // The spec's creation answer leaves `label` empty.
      return {
        entity_sample_code: row.code,
        entity_code: row.entity_code,
        sample_code: row.sample_code,
        parent_code: row.parent_code,
        value: row.value,
        start: row.start,
        end: row.end,
        created_time: row.created_time,
        label: '',
        Type: entity.type,
      };
    });
  }

  async untagEntity(app: string, code: string): Promise<void> {
    await this.write([app], async (store) => {
      const link = await store.findEntitySample(app, code);
      if (!link) throw new ServiceError(NluErrors.entitySampleNotFound, `No entity-sample mapping "${code}"`);
      await store.deleteEntitySample(app, code);
    });
  }

  // Whole training set

  async exportTrainingSet(app: string): Promise<TrainingSet> {
    const all = await this.store.everything(app);
    const intentLabel = new Map(all.intents.map((i) => [i.code, i.label]));
    const entityLabel = new Map(all.entities.map((e) => [e.code, e.label]));
    const intentOf = new Map(all.intentLinks.map((l) => [l.sample_code, intentLabel.get(l.intent_code) ?? '']));
    const tagsOf = new Map<string, TrainingSet['samples'][number]['entities']>();
    for (const l of all.entityLinks) {
      const list = tagsOf.get(l.sample_code) ?? [];
      list.push({ entity: entityLabel.get(l.entity_code) ?? '', value: l.value, start: l.start, end: l.end });
      tagsOf.set(l.sample_code, list);
    }
    return {
      format: 'saola.nlu.v1',
      intents: all.intents.map((i) => ({ label: i.label, description: i.description, type: i.type })),
      entities: all.entities.map((e) => ({ label: e.label, description: e.description, type: e.type })),
      samples: all.samples.map((s) => ({ content: s.content, intent: intentOf.get(s.code) ?? '', entities: tagsOf.get(s.code) ?? [] })),
    };
  }

  /**
   * Imports a whole training set in one transaction: every check passes first
   * or nothing is written. `replace` deletes the application's set before.
   */
  async importTrainingSet(app: string, set: TrainingSet, mode: 'merge' | 'replace'): Promise<TrainingSetImportResult> {
    checkTrainingSet(set);
    return this.write([app], async (store) => {
      if (mode === 'replace') await store.deleteEverything(app);
      return (await mergeTrainingSet(store, app, set)).result;
    });
  }

  /**
   * Labelled texts from elsewhere (the inbox) as training samples, merged as an import is (the intents created when
   * missing, a text already there with the same intent skipped), each new sample with its origin, in one transaction.
   */
  async addLabelledSamples(
    app: string,
    set: TrainingSet,
    origins: { source: string; history_id: number }[],
  ): Promise<{ result: TrainingSetImportResult; sampleCodes: (string | undefined)[] }> {
    checkTrainingSet(set);
    return this.write([app], async (store) => {
      const merged = await mergeTrainingSet(store, app, set);
      const created = now();
      await store.insertSampleOrigins(
        merged.sampleCodes.flatMap((code, n) => (code ? [{ sample_code: code, app_code: app, ...origins[n]!, created_time: created }] : [])),
      );
      return merged;
    });
  }

  async sampleOrigin(app: string, code: string): Promise<{ sample_code: string; source: string; history_id: number; created_time: string }> {
    await this.requireSample(app, code);
    const origin = await this.store.sampleOrigin(app, code);
    if (!origin) throw new ServiceError(NluErrors.sampleOriginNotFound, `Sample "${code}" was not made from a saved prediction`);
    return { sample_code: origin.sample_code, source: origin.source, history_id: Number(origin.history_id), created_time: origin.created_time };
  }

  // Lookups that answer 404 in the catalogue's words

  // Keywords of an entity

  async keywords(app: string, label: string): Promise<{ value: string; synonyms: string[] }[]> {
    const entity = await this.requireEntity(app, label);
    return (await this.store.keywordsOfEntity(app, entity.code)).map((k) => ({ value: k.value, synonyms: JSON.parse(k.synonyms) as string[] }));
  }

  async putKeyword(app: string, label: string, input: { value: string; synonyms?: string[] }): Promise<{ value: string; synonyms: string[] }> {
    const entity = await this.requireEntity(app, label);
    const value = input.value.normalize('NFC').trim();
    if (!value) throw new ServiceError(NluErrors.invalidRequest, 'value must not be empty');
    const synonyms = [...new Set((input.synonyms ?? []).map((s) => s.normalize('NFC').trim()).filter(Boolean))];
    // Keyword lists are training data: written with the bump of the data version, as every other write.
    await this.store.write([app], (store) =>
      store.upsertKeyword({ code: uuidv7(), app_code: app, entity_code: entity.code, value, synonyms: JSON.stringify(synonyms), created_time: now() }),
    );
    return { value, synonyms };
  }

  async deleteKeyword(app: string, label: string, value: string): Promise<void> {
    const entity = await this.requireEntity(app, label);
    await this.store.write([app], async (store) => {
      // Thrown inside: nothing deleted, so no bump either.
      if ((await store.deleteKeyword(app, entity.code, value.normalize('NFC').trim())) === 0) {
        throw new ServiceError(NluErrors.keywordNotFound, `Entity "${label}" lists no value "${value}"`);
      }
    });
  }

  private async requireSample(app: string, code: string, store = this.store) {
    const sample = await store.findSample(app, code);
    if (!sample) throw new ServiceError(NluErrors.sampleNotFound, `No sample "${code}"`);
    return sample;
  }

  private async requireEntity(app: string, label: string, store = this.store) {
    const entity = await store.findEntityByLabel(app, label);
    if (!entity) throw new ServiceError(NluErrors.entityNotFound, `No entity labelled "${label}"`);
    return entity;
  }

  private async requireIntent(app: string, code: string, store = this.store) {
    // Clients hold labels more often than codes; accept either.
    const intent = (await store.findIntent(app, code)) ?? (await store.findIntentByLabel(app, code));
    if (!intent) throw new ServiceError(NluErrors.intentNotFound, `No intent "${code}"`);
    return intent;
  }
}
