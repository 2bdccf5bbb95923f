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
  intents: Type.Array(
    Type.Object({ label: Type.String(), description: Type.String(), type: Type.Integer() }),
  ),
  entities: Type.Array(
    Type.Object({ label: Type.String(), description: Type.String(), type: Type.Integer() }),
  ),
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
