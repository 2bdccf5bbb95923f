/** Row types of the training-data tables. */

export interface IntentRow {
  code: string;
  app_code: string;
  label: string;
  description: string;
  type: number;
  created_time: string;
}

export interface SampleRow {
  code: string;
  app_code: string;
  content: string;
  created_time: string;
}

export interface EntityRow {
  code: string;
  app_code: string;
  label: string;
  type: number;
  description: string;
  created_time: string;
}

export interface IntentSampleRow {
  code: string;
  app_code: string;
  intent_code: string;
  sample_code: string;
  created_time: string;
}

export interface EntitySampleRow {
  code: string;
  app_code: string;
  entity_code: string;
  sample_code: string;
  parent_code: string;
  value: string;
  start: number;
  end: number;
  created_time: string;
}

export type NluTables = {
  nlu_intents: IntentRow;
  nlu_samples: SampleRow;
  nlu_entities: EntityRow;
  nlu_intent_samples: IntentSampleRow;
  nlu_entity_samples: EntitySampleRow;
};
