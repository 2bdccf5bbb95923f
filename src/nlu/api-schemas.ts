import { Type, type Static } from 'typebox';

/**
 * The wire shapes of the training-data API, field for field as the spec
 * writes them (including the capitalised `Type` of the entity-sample record).
 */
export const LABEL_PATTERN = '^[a-z0-9_]+$';

export const SampleCreated = Type.Object({
  code: Type.String(),
  app_code: Type.String(),
  content: Type.String(),
  created_time: Type.String(),
});
export type SampleCreated = Static<typeof SampleCreated>;

export const SampleListItem = Type.Object({
  code: Type.String(),
  app_code: Type.String(),
  content: Type.String(),
  created_time: Type.String(),
  intent_label: Type.String({ description: 'empty string when no intent is mapped' }),
  intent_type: Type.Integer({ description: '0 when no intent is mapped' }),
  entities: Type.Array(Type.String(), { description: 'labels of the entities tagged in the sample' }),
});
export type SampleListItem = Static<typeof SampleListItem>;

export const EntitySample = Type.Object({
  entity_sample_code: Type.String(),
  entity_code: Type.String(),
  sample_code: Type.String(),
  parent_code: Type.String(),
  value: Type.String(),
  start: Type.Integer(),
  end: Type.Integer(),
  created_time: Type.String(),
  label: Type.String(),
  Type: Type.Integer(),
});
export type EntitySample = Static<typeof EntitySample>;

export const SampleIntentRef = Type.Object({
  intent_sample_code: Type.String(),
  intent_code: Type.String(),
  sample_code: Type.String(),
  intent_label: Type.String(),
});

export const SampleDetail = Type.Object({
  code: Type.String(),
  app_code: Type.String(),
  content: Type.String(),
  created_time: Type.String(),
  intent: SampleIntentRef,
  entities: Type.Array(EntitySample),
});
export type SampleDetail = Static<typeof SampleDetail>;

export const Entity = Type.Object({
  code: Type.String(),
  app_code: Type.String(),
  label: Type.String(),
  type: Type.Integer({ description: '1 keyword and freetext, 2 keyword, 3 freetext' }),
  description: Type.String(),
  created_time: Type.String(),
});
export type Entity = Static<typeof Entity>;

export const Intent = Type.Object({
  code: Type.String(),
  app_code: Type.String(),
  label: Type.String(),
  description: Type.String(),
  type: Type.Integer(),
  created_time: Type.String(),
});
export type Intent = Static<typeof Intent>;

export const IntentSample = Type.Object({
  intent_sample_code: Type.String(),
  intent_code: Type.String(),
  sample_code: Type.String(),
  intent_label: Type.String(),
  intent_type: Type.Integer(),
  intent_description: Type.String(),
});
export type IntentSample = Static<typeof IntentSample>;

export const ImportResult = Type.Object({
  number_of_duplicate_sample: Type.Integer(),
  number_of_empty_intent: Type.Integer(),
  number_of_imported_intent: Type.Integer(),
  number_of_imported_sample: Type.Integer(),
  number_of_invalid_intent: Type.Integer(),
  number_of_empty_sample: Type.Integer({ description: 'Saola extension: rows whose sample text is empty' }),
});
export type ImportResult = Static<typeof ImportResult>;

export const StatusMessage = Type.Object({ message: Type.String() });

export const Pagination = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
});
export type Pagination = Static<typeof Pagination>;

/** A whole training set, as GET /api/v3/export writes it and POST /api/v3/import reads it. */
export const TrainingSet = Type.Object({
  format: Type.Literal('saola.nlu.v1'),
  intents: Type.Array(Type.Object({ label: Type.String(), description: Type.String(), type: Type.Integer() })),
  entities: Type.Array(Type.Object({ label: Type.String(), description: Type.String(), type: Type.Integer() })),
  samples: Type.Array(
    Type.Object({
      content: Type.String(),
      intent: Type.String({ description: 'intent label, or empty' }),
      entities: Type.Array(
        Type.Object({
          entity: Type.String({ description: 'entity label' }),
          value: Type.String(),
          start: Type.Integer(),
          end: Type.Integer(),
        }),
      ),
    }),
  ),
});
export type TrainingSet = Static<typeof TrainingSet>;

export const TrainingSetImportResult = Type.Object({
  intents_created: Type.Integer(),
  entities_created: Type.Integer(),
  samples_created: Type.Integer(),
  samples_skipped: Type.Integer({ description: 'same text already present with the same intent' }),
  entity_links_created: Type.Integer(),
});
export type TrainingSetImportResult = Static<typeof TrainingSetImportResult>;

// Training and prediction

const Metrics = Type.Object(
  {
    intent: Type.Optional(
      Type.Object({
        accuracy: Type.Number(),
        precision: Type.Number(),
        recall: Type.Number(),
        f1: Type.Number(),
        test_size: Type.Integer(),
        train_size: Type.Integer(),
      }),
    ),
    entity: Type.Optional(Type.Object({ precision: Type.Number(), recall: Type.Number(), f1: Type.Number(), test_spans: Type.Integer(), train_size: Type.Integer() })),
  },
  { description: 'Saola extension: held-out metrics of the intent classifier (macro) and the entity extractor (exact spans)' },
);

export const TrainJob = Type.Object({
  code: Type.String(),
  app_code: Type.String(),
  type: Type.Integer({ description: '0 intents and entities, 1 intents, 2 entities' }),
  state: Type.Integer({ description: '0 waiting, 1 training, 2 success, 3 failed' }),
  message: Type.String(),
  model_file: Type.String({ description: 'blob key of the model; empty until it succeeds' }),
  accuracy: Type.Number(),
  precision: Type.Number(),
  recall: Type.Number(),
  f1: Type.Number(),
  created_time: Type.String(),
  started_time: Type.String(),
  finished_time: Type.String(),
  progress: Type.Integer({ minimum: 0, maximum: 100, description: 'Saola extension: how far the training is, 0-100 (100 once it succeeded)' }),
  metrics: Metrics,
});

export const TrainAnswer = Type.Object({ message: Type.String(), status: Type.Array(TrainJob) });

export const TrainBody = Type.Union([
  Type.Object({ type: Type.Optional(Type.Union([Type.Literal('intent'), Type.Literal('entity'), Type.Literal('all'), Type.Literal('')])) }),
  Type.Null(),
]);

export const TrainStatus = Type.Object({
  last_success_time: Type.String(),
  status: Type.Integer({ description: 'of the latest training request: 0 waiting, 1 training, 2 success, 3 failed' }),
  trainable: Type.Boolean({ description: 'the training data changed since the last successful model' }),
  progress: Type.Integer({ minimum: 0, maximum: 100, description: 'Saola extension: how far the latest training request is, 0-100' }),
  model_code: Type.String(),
  accuracy: Type.Number(),
  precision: Type.Number(),
  recall: Type.Number(),
  f1: Type.Number(),
  metrics: Metrics,
});

export const PredictBody = Type.Object({
  content: Type.String({ maxLength: 20_000 }),
  save_history: Type.Optional(Type.Boolean()),
});

const PredictedEntityBase = {
  start: Type.Integer({ description: 'code-point offset into content as sent' }),
  end: Type.Integer(),
  value: Type.String(),
  real_value: Type.Union([Type.String(), Type.Number()]),
  entity: Type.String(),
};

export const PredictedEntity = Type.Object({
  ...PredictedEntityBase,
  subentities: Type.Array(Type.Object({ ...PredictedEntityBase, subentities: Type.Array(Type.Unknown()) })),
});

export const PredictAnswer = Type.Object({
  status: Type.Object({ code: Type.Integer(), message: Type.String(), module: Type.String(), api_code: Type.Integer(), err_code: Type.Integer() }),
  data: Type.Object({
    intents: Type.Optional(Type.Array(Type.Object({ label: Type.String(), confidence: Type.Number() }))),
    entities: Type.Optional(Type.Array(PredictedEntity)),
    history_id: Type.Integer(),
  }),
});

export const Threshold = Type.Object({ threshold: Type.Number({ minimum: 0, maximum: 1 }) });

export const HistoryPage = Type.Object({
  total: Type.Integer(),
  items: Type.Array(
    Type.Object({
      history_id: Type.Integer(),
      content: Type.String(),
      intents: Type.Unknown(),
      entities: Type.Unknown(),
      created_time: Type.String(),
    }),
  ),
});

export const HistoryQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
});

export const Keyword = Type.Object({ value: Type.String({ maxLength: 500 }), synonyms: Type.Array(Type.String({ maxLength: 500 }), { maxItems: 500 }) });
export const KeywordBody = Type.Object({
  value: Type.String({ maxLength: 500 }),
  synonyms: Type.Optional(Type.Array(Type.String({ maxLength: 500 }), { maxItems: 500 })),
});

// Inbox: saved predictions to label

export const InboxReason = Type.Union([Type.Literal('low_confidence'), Type.Literal('close_second'), Type.Literal('no_intent'), Type.Literal('reported')]);
export type InboxReason = Static<typeof InboxReason>;

export const InboxState = Type.Union([Type.Literal('open'), Type.Literal('labelled'), Type.Literal('dismissed'), Type.Literal('out_of_scope')]);
export type InboxState = Static<typeof InboxState>;

export const InboxItem = Type.Object({
  history_id: Type.Integer(),
  content: Type.String({ description: 'as saved (masked when the application masks its history)' }),
  reasons: Type.Array(InboxReason),
  top_intent: Type.String({ description: 'the most likely intent, even under the threshold; empty when none' }),
  top_confidence: Type.Number(),
  second_intent: Type.String(),
  second_confidence: Type.Number(),
  state: InboxState,
  comment: Type.String({ description: "the end user's words when reported" }),
  created_time: Type.String(),
  resolved_time: Type.String({ description: 'empty while open' }),
  sample_code: Type.String({ description: 'the sample a label made of it; empty otherwise' }),
});
export type InboxItem = Static<typeof InboxItem>;

export const InboxGroup = Type.Object({
  group_id: Type.Integer({ description: "history_id of the group's first item; stable only while the items stay" }),
  size: Type.Integer(),
  suggested_intent: Type.String({ description: 'the commonest top intent of its items; empty when none' }),
  items: Type.Array(InboxItem),
});

export const InboxQuery = Type.Object({
  state: Type.Optional(InboxState),
  reason: Type.Optional(InboxReason),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, description: 'groups per page' })),
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
});

export const InboxPage = Type.Object({
  total_items: Type.Integer({ description: 'items in this state (and reason), all of them' }),
  grouped_items: Type.Integer({ description: 'the newest items grouped (at most 1,000)' }),
  total_groups: Type.Integer(),
  similarity: Type.Number({ description: 'cosine of the engine features at which two texts share a group' }),
  groups: Type.Array(InboxGroup),
});

const HistoryId = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });
const HistoryIds = Type.Array(HistoryId, { minItems: 1, maxItems: 2000 });

export const InboxReportBody = Type.Object({ history_id: HistoryId, comment: Type.Optional(Type.String({ maxLength: 2000 })) });

export const InboxLabelBody = Type.Object({
  intent: Type.String({ description: 'intent label; created when missing' }),
  items: Type.Array(
    Type.Object({
      history_id: HistoryId,
      entities: Type.Optional(
        Type.Array(Type.Object({ entity: Type.String(), start: Type.Integer({ minimum: 0 }), end: Type.Integer({ minimum: 0 }) }), {
          description: 'spans, code points of content as the inbox shows it; the entities must exist',
        }),
      ),
    }),
    { minItems: 1, maxItems: 2000 },
  ),
});

export const InboxLabelResult = Type.Object({
  labelled: Type.Integer(),
  samples_created: Type.Integer(),
  samples_skipped: Type.Integer({ description: 'the same text was already a sample of this intent' }),
  intents_created: Type.Integer(),
});

export const InboxIdsBody = Type.Object({ history_ids: HistoryIds });
export const InboxResolved = Type.Object({ resolved: Type.Integer() });

export const InboxStatsQuery = Type.Object({ days: Type.Optional(Type.Integer({ minimum: 1, maximum: 366 })) });
export const InboxStats = Type.Object({
  days: Type.Array(
    Type.Object({
      day: Type.String({ description: 'YYYY-MM-DD, UTC' }),
      added: Type.Integer(),
      reported: Type.Integer(),
      labelled: Type.Integer(),
      dismissed: Type.Integer(),
      out_of_scope: Type.Integer(),
    }),
  ),
});

export const HistorySettings = Type.Object({
  history_retention_days: Type.Integer({ minimum: 0, maximum: 3650, description: 'saved predictions older than this are deleted; 0 keeps them' }),
  mask_history: Type.Boolean({ description: 'numbers, phone numbers, e-mail addresses and ids are masked before a text is saved' }),
});
export const HistorySettingsBody = Type.Partial(HistorySettings);

export const SampleOrigin = Type.Object({
  sample_code: Type.String(),
  source: Type.String({ description: 'inbox' }),
  history_id: Type.Integer(),
  created_time: Type.String(),
});

// Cross-validated reports of model versions

const ScoreRow = { precision: Type.Number(), recall: Type.Number(), f1: Type.Number(), support: Type.Integer() };

export const ModelReport = Type.Object({
  model_code: Type.String(),
  state: Type.Union([Type.Literal('waiting'), Type.Literal('ready'), Type.Literal('failed'), Type.Literal('stale')], {
    description: 'stale: the training data changed before the report ran',
  }),
  message: Type.String(),
  run_ms: Type.Integer({ description: 'how long the report job ran' }),
  created_time: Type.String(),
  finished_time: Type.String(),
  folds: Type.Integer(),
  samples: Type.Integer(),
  intents: Type.Object({
    accuracy: Type.Number(),
    macro_f1: Type.Number(),
    per_intent: Type.Array(Type.Object({ intent: Type.String(), ...ScoreRow }), { description: 'the weakest first' }),
  }),
  confusions: Type.Array(Type.Object({ expected: Type.String(), predicted: Type.String(), count: Type.Integer() }), { description: 'the commonest first' }),
  entities: Type.Object({
    micro: Type.Object(ScoreRow),
    per_label: Type.Array(Type.Object({ entity: Type.String(), ...ScoreRow }), { description: 'exact spans; the weakest first' }),
  }),
  confused_samples: Type.Array(Type.Object({ text: Type.String(), expected: Type.String(), predicted: Type.String(), confidence: Type.Number() }), {
    description: 'the most confidently wrong first',
  }),
});

export const ModelReportQuery = Type.Object({ model_code: Type.Optional(Type.String({ maxLength: 200, description: 'the newest model when not given' })) });

export const ReportCompareQuery = Type.Object({
  from: Type.Optional(Type.String({ maxLength: 200, description: 'the model before `to` when not given' })),
  to: Type.Optional(Type.String({ maxLength: 200, description: 'the newest model when not given' })),
});

const Change = { from: Type.Number(), to: Type.Number(), change: Type.Number() };

export const ReportComparison = Type.Object({
  from: Type.String({ description: 'model code' }),
  to: Type.String(),
  accuracy: Type.Object(Change),
  macro_f1: Type.Object(Change),
  entity_f1: Type.Object(Change),
  intents: Type.Array(Type.Object({ intent: Type.String(), ...Change }), { description: 'F1 per intent in either, the largest change first (absent: 0)' }),
  entities: Type.Array(Type.Object({ entity: Type.String(), ...Change }), { description: 'F1 per entity label' }),
  confusions_gone: Type.Array(Type.Object({ expected: Type.String(), predicted: Type.String(), count: Type.Integer() })),
  confusions_new: Type.Array(Type.Object({ expected: Type.String(), predicted: Type.String(), count: Type.Integer() })),
});
