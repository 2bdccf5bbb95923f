import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { requireBearer } from '../platform/auth/hooks.js';
import type { Credentials } from '../platform/auth/credentials.js';
import { ServiceError } from '../platform/http/errors.js';
import { useServiceErrors } from '../platform/http/service.js';
import { NluErrors, nluErrorShape } from './errors.js';
import {
  Entity,
  EntitySample,
  HistoryPage,
  HistoryQuery,
  ImportResult,
  Keyword,
  KeywordBody,
  PredictAnswer,
  PredictBody,
  Threshold,
  TrainAnswer,
  TrainBody,
  TrainStatus,
  Intent,
  IntentSample,
  Pagination,
  SampleCreated,
  SampleDetail,
  SampleListItem,
  StatusMessage,
  TrainingSet,
  TrainingSetImportResult,
} from './api-schemas.js';
import type { NluModels } from './models.js';
import { inboxRoutes } from './inbox-routes.js';
import type { TrainPart } from './training.js';
import type { ImportRow, NluService } from './service.js';

const tags = ['NLU training data'];
const security = [{ bearer: [] }];
const Code = (name: string) => Type.Object({ [name]: Type.String({ maxLength: 200 }) });
const EntityLabel = Type.Object({ label: Type.String({ maxLength: 200 }) });

/** Import bodies: a bare array, `{content: [...]}`, or `content` holding the array as JSON text (form posts). */
function importRows(body: unknown): ImportRow[] {
  let rows: unknown = body;
  if (rows && typeof rows === 'object' && !Array.isArray(rows) && 'content' in rows) rows = (rows as { content: unknown }).content;
  if (typeof rows === 'string') {
    try {
      rows = JSON.parse(rows);
    } catch {
      throw new ServiceError(NluErrors.invalidImport, 'content is not valid JSON');
    }
  }
  if (!Array.isArray(rows)) throw new ServiceError(NluErrors.invalidImport);
  if (rows.length > 100_000) throw new ServiceError(NluErrors.invalidImport, 'At most 100000 rows per import');
  return rows as ImportRow[];
}

export interface NluRoutesOptions {
  service: NluService;
  models: NluModels;
  credentials: Credentials;
  /** Body limit of the bulk import endpoints, bytes. */
  importBodyLimit: number;
}

/** HTTP adapter of /api/v3: each route declares its contract and calls one service method. */
export async function nluRoutes(scope: FastifyInstance, opts: NluRoutesOptions): Promise<void> {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const { service } = opts;
  useServiceErrors(scope, nluErrorShape);
  scope.addHook('onRequest', requireBearer(opts.credentials));
  const deleted = (what: string) => ({ message: `${what} deleted` });

  // Samples
  app.get('/sample', { schema: { tags, security, querystring: Pagination, response: { 200: Type.Array(SampleListItem) } } }, async (req, reply) => {
    if (req.query.limit !== undefined || req.query.offset !== undefined) return service.listSamples(req.appCode, req.query);
    // The bare call lists everything: send the JSON text as is (cached while the data version stays).
    return reply.type('application/json; charset=utf-8').send((await service.listSamplesJson(req.appCode)) as never);
  });
  app.post('/sample', { schema: { tags, security, body: Type.Object({ content: Type.String() }), response: { 200: SampleCreated } } }, (req) =>
    service.createSample(req.appCode, req.body.content),
  );
  app.get('/sample/:sample_code', { schema: { tags, security, params: Code('sample_code'), response: { 200: SampleDetail } } }, (req) =>
    service.getSample(req.appCode, req.params.sample_code),
  );
  app.put(
    '/sample/:sample_code',
    {
      schema: {
        tags,
        security,
        params: Code('sample_code'),
        // The spec lists `content` as a query parameter but its example sends a body: take either.
        querystring: Type.Object({ content: Type.Optional(Type.String()) }),
        body: Type.Union([Type.Object({ content: Type.Optional(Type.String()) }), Type.Null()]),
        response: { 200: SampleCreated },
      },
    },
    (req) => {
      const content = req.body?.content ?? req.query.content;
      if (content === undefined) throw new ServiceError(NluErrors.invalidRequest, 'content is required');
      return service.updateSample(req.appCode, req.params.sample_code, content);
    },
  );
  app.delete('/sample/:sample_code', { schema: { tags, security, params: Code('sample_code'), response: { 200: StatusMessage } } }, async (req) => {
    await service.deleteSample(req.appCode, req.params.sample_code);
    return deleted('Sample');
  });

  // Intent-sample mappings
  app.post(
    '/intent-sample',
    {
      schema: {
        tags,
        security,
        body: Type.Object({ intent_code: Type.String(), sample_code: Type.String() }),
        response: { 200: IntentSample },
      },
    },
    (req) => service.linkIntent(req.appCode, req.body.intent_code, req.body.sample_code),
  );
  app.delete('/intent-sample/:intent_sample_code', { schema: { tags, security, params: Code('intent_sample_code'), response: { 200: StatusMessage } } }, async (req) => {
    await service.unlinkIntent(req.appCode, req.params.intent_sample_code);
    return deleted('Intent-sample mapping');
  });
  app.post(
    '/intent-sample/import_intent_samples',
    {
      bodyLimit: opts.importBodyLimit,
      schema: {
        tags,
        security,
        description: 'Body: a JSON array of {intent, sample} (also accepted wrapped as {"content": [...]}).',
        response: { 200: ImportResult },
      },
    },
    (req) => service.importIntentSamples(req.appCode, importRows(req.body)),
  );

  // Entity-sample mappings
  app.post(
    '/entity-sample',
    {
      schema: {
        tags,
        security,
        body: Type.Object({
          entity_code: Type.String(),
          sample_code: Type.String(),
          value: Type.String(),
          start: Type.Integer({ minimum: 0 }),
          end: Type.Integer({ minimum: 0 }),
          parent_code: Type.Optional(Type.String()),
        }),
        response: { 200: EntitySample },
      },
    },
    (req) => service.tagEntity(req.appCode, req.body),
  );
  app.delete('/entity-sample/:entity_sample_code', { schema: { tags, security, params: Code('entity_sample_code'), response: { 200: StatusMessage } } }, async (req) => {
    await service.untagEntity(req.appCode, req.params.entity_sample_code);
    return deleted('Entity-sample mapping');
  });

  // Entities
  // Label and type rules are checked by the service, so they answer with their own error codes.
  const EntityBody = Type.Object({ label: Type.String(), description: Type.String({ maxLength: 10_000 }), type: Type.Integer() });
  app.get('/entity', { schema: { tags, security, querystring: Pagination, response: { 200: Type.Array(Entity) } } }, (req) =>
    service.listEntities(req.appCode, req.query),
  );
  app.post('/entity', { schema: { tags, security, body: EntityBody, response: { 200: Entity } } }, (req) => service.createEntity(req.appCode, req.body));
  app.get('/entity/:label', { schema: { tags, security, params: EntityLabel, response: { 200: Entity } } }, (req) => service.getEntity(req.appCode, req.params.label));
  app.put(
    '/entity/:label',
    {
      schema: {
        tags,
        security,
        description: 'Only the description changes; type is required and validated but the entity keeps its type.',
        params: EntityLabel,
        body: Type.Object({ description: Type.String({ maxLength: 10_000 }), type: Type.Integer() }),
        response: { 200: Entity },
      },
    },
    (req) => service.updateEntity(req.appCode, req.params.label, req.body),
  );
  app.delete('/entity/:label', { schema: { tags, security, params: EntityLabel, response: { 200: StatusMessage } } }, async (req) => {
    await service.deleteEntity(req.appCode, req.params.label);
    return deleted('Entity');
  });
  for (const method of ['GET', 'PUT'] as const) {
    app.route({
      method,
      url: '/entity/:label/samples',
      schema: { tags, security, params: EntityLabel, querystring: Pagination, response: { 200: Type.Array(SampleListItem) } },
      handler: (req) => service.samplesOfEntity(req.appCode, req.params.label, req.query),
    });
  }
  app.delete('/entity/:label/samples', { schema: { tags, security, params: EntityLabel, response: { 200: StatusMessage } } }, async (req) => {
    const count = await service.deleteSamplesOfEntity(req.appCode, req.params.label);
    return { message: `${count} samples deleted` };
  });

  // Intents (not in the spec; the mappings need them)
  const IntentBody = Type.Object({
    label: Type.String(),
    description: Type.Optional(Type.String({ maxLength: 10_000 })),
    type: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
    code: Type.Optional(Type.String()),
  });
  app.get('/intent', { schema: { tags, security, querystring: Pagination, response: { 200: Type.Array(Intent) } } }, (req) =>
    service.listIntents(req.appCode, req.query),
  );
  app.post('/intent', { schema: { tags, security, body: IntentBody, response: { 200: Intent } } }, (req) => service.createIntent(req.appCode, req.body));
  app.get('/intent/:intent_code', { schema: { tags, security, params: Code('intent_code'), response: { 200: Intent } } }, (req) =>
    service.getIntent(req.appCode, req.params.intent_code),
  );
  app.put('/intent/:intent_code', { schema: { tags, security, params: Code('intent_code'), body: Type.Partial(IntentBody), response: { 200: Intent } } }, (req) =>
    service.updateIntent(req.appCode, req.params.intent_code, req.body),
  );
  app.delete('/intent/:intent_code', { schema: { tags, security, params: Code('intent_code'), response: { 200: StatusMessage } } }, async (req) => {
    await service.deleteIntent(req.appCode, req.params.intent_code);
    return deleted('Intent');
  });

  // Whole training set
  app.get('/export', { schema: { tags, security, response: { 200: TrainingSet } } }, (req) => service.exportTrainingSet(req.appCode));
  app.post(
    '/import',
    {
      bodyLimit: opts.importBodyLimit,
      schema: {
        tags,
        security,
        querystring: Type.Object({ mode: Type.Optional(Type.Union([Type.Literal('merge'), Type.Literal('replace')])) }),
        body: TrainingSet,
        response: { 200: TrainingSetImportResult },
      },
    },
    (req) => service.importTrainingSet(req.appCode, req.body, req.query.mode ?? 'merge'),
  );

  // Training and prediction (the original's public clients: fptai-go, SDKs)
  const { models } = opts;
  const modelTags = ['NLU training and prediction'];
  const trainRoutes: [string, TrainPart | undefined][] = [
    ['/train', undefined],
    ['/train/intent', 'intent'],
    ['/train/entity', 'entity'],
  ];
  for (const [url, fixed] of trainRoutes) {
    app.post(
      url,
      {
        schema: {
          tags: modelTags,
          security,
          description:
            'Starts training on the job queue; one at a time per application (a request while one waits or runs answers that one). `status` holds the request.',
          body: TrainBody,
          response: { 200: TrainAnswer },
        },
      },
      (req) => {
        const asked = req.body?.type;
        const part: TrainPart = fixed ?? (asked === 'intent' || asked === 'entity' ? asked : 'all');
        return models.training.train(req.appCode, part);
      },
    );
  }
  for (const method of ['GET', 'POST'] as const) {
    app.route({
      method,
      url: '/train/status',
      schema: { tags: modelTags, security, response: { 200: TrainStatus } },
      handler: (req) => models.training.status(req.appCode),
    });
  }
  const predictRoutes: [string, TrainPart][] = [
    ['/predict', 'all'],
    ['/predict/intent', 'intent'],
    ['/predict/entity', 'entity'],
  ];
  for (const [url, part] of predictRoutes) {
    app.post(
      url,
      {
        schema: {
          tags: modelTags,
          security,
          description: 'Intents ranked (confidence 0-1, those under the application threshold left out) and entities (code-point offsets into content).',
          body: PredictBody,
          response: { 200: PredictAnswer },
        },
      },
      (req) => models.prediction.predict(req.appCode, req.body, part),
    );
  }
  app.get('/settings', { schema: { tags: modelTags, security, response: { 200: Threshold } } }, async (req) => ({
    threshold: await models.prediction.threshold(req.appCode),
  }));
  app.put(
    '/settings',
    {
      schema: {
        tags: modelTags,
        security,
        description: 'Intent confidence threshold, 0-1 (default 0.3).',
        body: Type.Object({ threshold: Type.Number() }),
        response: { 200: Threshold },
      },
    },
    (req) => models.prediction.setThreshold(req.appCode, req.body.threshold),
  );
  app.get('/history', { schema: { tags: modelTags, security, querystring: HistoryQuery, response: { 200: HistoryPage } } }, (req) =>
    models.history.listHistory(req.appCode, req.query),
  );
  app.delete('/history', { schema: { tags: modelTags, security, response: { 200: StatusMessage } } }, async (req) => ({
    message: `${await models.history.deleteHistory(req.appCode)} history entries deleted`,
  }));
  app.delete(
    '/history/:history_id',
    {
      schema: {
        tags: modelTags,
        security,
        params: Type.Object({ history_id: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }) }),
        response: { 200: StatusMessage },
      },
    },
    async (req) => {
      await models.history.deleteHistory(req.appCode, req.params.history_id);
      return deleted('History entry');
    },
  );

  // Listed values of keyword entities (Saola extension: the original's dictionaries are not shown)
  app.get('/entity/:label/keywords', { schema: { tags, security, params: EntityLabel, response: { 200: Type.Array(Keyword) } } }, (req) =>
    service.keywords(req.appCode, req.params.label),
  );
  app.post(
    '/entity/:label/keywords',
    {
      schema: {
        tags,
        security,
        description: 'Adds a value with its synonyms, or replaces the synonyms of a listed value.',
        params: EntityLabel,
        body: KeywordBody,
        response: { 200: Keyword },
      },
    },
    (req) => service.putKeyword(req.appCode, req.params.label, req.body),
  );
  app.delete(
    '/entity/:label/keywords',
    { schema: { tags, security, params: EntityLabel, querystring: Type.Object({ value: Type.String() }), response: { 200: StatusMessage } } },
    async (req) => {
      await service.deleteKeyword(req.appCode, req.params.label, req.query.value);
      return deleted('Keyword');
    },
  );

  inboxRoutes(scope, models.inbox, service, models.reports);
}
