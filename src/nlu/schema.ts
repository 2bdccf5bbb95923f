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

// Models, settings, prediction history and keyword lists (migration 0002_nlu_02_models).
export interface ModelRow {
  code: string;
  app_code: string;
  type: number;
  state: number;
  message: string;
  /** Blob key of the model document; empty until the training succeeds. */
  model_file: string;
  /** JSON of the model's metrics ({} until it succeeds). */
  metrics: string;
  /** sha256 of the training data the model learnt from. */
  data_fingerprint: string;
  running_app: string | null;
  created_time: string;
  started_time: string | null;
  finished_time: string | null;
  /** 0-100: how far the training is (100 once it succeeded). */
  progress: number;
}

export interface SettingsRow {
  app_code: string;
  threshold: number;
  updated_time: string;
}

export interface HistoryRow {
  id: number | string;
  app_code: string;
  content: string;
  answer: string;
  created_time: string;
}

export interface KeywordRow {
  code: string;
  app_code: string;
  entity_code: string;
  value: string;
  synonyms: string;
  created_time: string;
}

/** One row per application that has written training data (migration 0002_nlu_03_data_versions). */
export interface DataVersionRow {
  app_code: string;
  /** Bumped in the same transaction as every write to the application's samples, intents, entities and links. */
  version: number;
  updated_time: string;
}

/** A saved prediction waiting in the inbox, or resolved there (migration 0002_nlu_05_inbox). */
export interface InboxRow {
  history_id: number | string;
  app_code: string;
  /** Comma-separated `InboxReason`s. */
  reasons: string;
  top_intent: string;
  top_confidence: number;
  second_intent: string;
  second_confidence: number;
  /** open, labelled, dismissed, out_of_scope. */
  state: string;
  /** What the end user said when reporting (empty otherwise). */
  comment: string;
  created_time: string;
  resolved_time: string | null;
  /** The sample a label made of it. */
  sample_code: string | null;
}

/** Where a training sample came from, when not typed in: an inbox label of a saved prediction. */
export interface SampleOriginRow {
  sample_code: string;
  app_code: string;
  source: string;
  history_id: number | string;
  created_time: string;
}

export interface HistorySettingsRow {
  app_code: string;
  /** Days a saved prediction is kept (0: until deleted). */
  retention_days: number;
  /** 1: numbers, phone numbers, e-mail addresses and ids are masked before a text is saved. */
  mask: number;
  updated_time: string;
}

/** The cross-validated report of a model version (migration 0002_nlu_06_model_reports). */
export interface ModelReportRow {
  model_code: string;
  app_code: string;
  /** waiting, ready, failed, stale. */
  state: string;
  message: string;
  /** JSON of `ModelReport` ({} until ready). */
  report: string;
  /** How long the report job ran (ms, wall clock on the training thread). */
  run_ms: number;
  created_time: string;
  finished_time: string | null;
}

export type NluTables = {
  nlu_intents: IntentRow;
  nlu_samples: SampleRow;
  nlu_entities: EntityRow;
  nlu_intent_samples: IntentSampleRow;
  nlu_entity_samples: EntitySampleRow;
  nlu_entity_keywords: KeywordRow;
  nlu_models: ModelRow;
  nlu_settings: SettingsRow;
  nlu_history: HistoryRow;
  nlu_data_versions: DataVersionRow;
  nlu_inbox: InboxRow;
  nlu_sample_origins: SampleOriginRow;
  nlu_history_settings: HistorySettingsRow;
  nlu_model_reports: ModelReportRow;
};
