/**
 * Saola's API from TypeScript: one typed method per endpoint, over the
 * platform's `fetch` (Node 20+, browsers, Deno, Bun), no dependencies.
 *
 *   const saola = new Saola({ apiKey: 'sk_...', token: 'st_...' });
 *   const card = await saola.reader.readIdCard(await readFile('card.jpg'));
 *   const speech = await saola.tts.synthesize('Xin chào', { voice: 'leminh' });
 */

export interface SaolaOptions {
  /** Server address; defaults to SAOLA_BASE_URL, then http://127.0.0.1:8000. */
  baseUrl?: string;
  /** API key (sk_...) for recognition, face, speech and credit scoring. */
  apiKey?: string;
  /** Bearer token (st_...) for the NLU training data API (/api/v3). */
  token?: string;
  /** Attempts after the first for 429, 503 and (on requests safe to repeat) other 5xx and network errors. Default 3. */
  retries?: number;
  /** First backoff in ms (doubles each try, with jitter), when the server sends no Retry-After. Default 500. */
  backoffMs?: number;
  /** Longest wait between tries in ms, Retry-After included. Default 30000. */
  maxBackoffMs?: number;
  /** Per-attempt timeout in ms. Default 120000. */
  timeoutMs?: number;
  /** A fetch to use instead of the global one (tests, proxies). */
  fetch?: typeof fetch;
}

/** An answer with HTTP status 400 or more, after retries. `body` is the service's own error body. */
export class SaolaError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown,
    readonly requestId: string | undefined,
  ) {
    super(message);
    this.name = 'SaolaError';
  }
}

/** Bytes as the client accepts them: a Blob/File, an ArrayBuffer or any byte view (Node's Buffer included). */
export type Bytes = Blob | ArrayBuffer | ArrayBufferView;

// ---- NLU training data (/api/v3) ----

export interface Sample {
  code: string;
  app_code: string;
  content: string;
  created_time: string;
}
export interface SampleListItem extends Sample {
  intent_label: string;
  intent_type: number;
  entities: string[];
}
/** A tagged span; `label` is "" in the answer to its creation (as the original API). */
export interface EntitySample {
  entity_sample_code: string;
  entity_code: string;
  sample_code: string;
  parent_code: string;
  value: string;
  start: number;
  end: number;
  created_time: string;
  label: string;
  Type: number;
}
export interface SampleDetail extends Sample {
  intent: { intent_sample_code: string; intent_code: string; sample_code: string; intent_label: string };
  entities: EntitySample[];
}
export interface Intent {
  code: string;
  app_code: string;
  label: string;
  description: string;
  type: number;
  created_time: string;
}
export interface Entity {
  code: string;
  app_code: string;
  label: string;
  /** 1 keyword and free text, 2 keyword, 3 free text. */
  type: number;
  description: string;
  created_time: string;
}
/** As the original API answers a new mapping: `intent_label` and `intent_description` are "" on creation. */
export interface IntentSample {
  intent_sample_code: string;
  intent_code: string;
  sample_code: string;
  intent_label: string;
  intent_type: number;
  intent_description: string;
}
export interface ImportResult {
  number_of_duplicate_sample: number;
  number_of_empty_intent: number;
  number_of_imported_intent: number;
  number_of_imported_sample: number;
  number_of_invalid_intent: number;
  number_of_empty_sample: number;
}
export interface TrainingSetImportResult {
  intents_created: number;
  entities_created: number;
  samples_created: number;
  /** The same text already present with the same intent. */
  samples_skipped: number;
  entity_links_created: number;
}
export interface TrainingSet {
  format: 'saola.nlu.v1';
  intents: { label: string; description: string; type: number }[];
  entities: { label: string; description: string; type: number }[];
  samples: { content: string; intent: string; entities: { label: string; value: string; start: number; end: number; parent?: string }[] }[];
}
/** A training request, as `train` answers it (metrics 0 until it succeeded). */
export interface TrainJob {
  code: string;
  app_code: string;
  /** 0 intents and entities, 1 intents, 2 entities. */
  type: number;
  /** 0 waiting, 1 training, 2 success, 3 failed. */
  state: number;
  message: string;
  model_file: string;
  accuracy: number;
  precision: number;
  recall: number;
  f1: number;
  created_time: string;
  started_time: string;
  finished_time: string;
  /** Saola extension: 0-100, how far the training is. */
  progress: number;
  metrics: ModelMetrics;
}
export interface ModelMetrics {
  intent?: { accuracy: number; precision: number; recall: number; f1: number; test_size: number; train_size: number };
  entity?: { precision: number; recall: number; f1: number; test_spans: number; train_size: number };
}
export interface TrainStatus {
  last_success_time: string;
  /** Of the latest training request: 0 waiting (or none), 1 training, 2 success, 3 failed. */
  status: number;
  /** The training data changed since the last successful model. */
  trainable: boolean;
  /** Saola extension: 0-100, how far the latest training request is. */
  progress: number;
  model_code: string;
  accuracy: number;
  precision: number;
  recall: number;
  f1: number;
  metrics: ModelMetrics;
}
export interface PredictedEntity {
  /** Code-point offsets into the content as sent. */
  start: number;
  end: number;
  value: string;
  /**
   * The canonical value: a listed value for a synonym; for system entities a number (sys_number, sys_percent,
   * sys_temperature in degrees Celsius), an ISO date or time, money as "2500000 VND", an ISO 8601 duration ("PT2H").
   */
  real_value: string | number;
  entity: string;
  subentities: PredictedEntity[];
}
export interface Prediction {
  status: { code: number; message: string; module: string; api_code: number; err_code: number };
  data: { intents?: { label: string; confidence: number }[]; entities?: PredictedEntity[]; history_id: number };
}
export interface HistoryPage {
  total: number;
  items: { history_id: number; content: string; intents: unknown; entities: unknown; created_time: string }[];
}
export interface Page {
  limit?: number;
  offset?: number;
}
export interface StatusMessage {
  message: string;
}

// ---- NLU inbox and model reports (Saola extensions) ----

export type InboxReason = 'low_confidence' | 'close_second' | 'no_intent' | 'reported';
export type InboxState = 'open' | 'labelled' | 'dismissed' | 'out_of_scope';
/** A saved prediction the model was unsure about, that hit no intent, or that an end user reported. */
export interface InboxItem {
  history_id: number;
  /** As saved (masked when the application masks its history). */
  content: string;
  reasons: InboxReason[];
  /** The top two intents as ranked before the threshold cut; "" when none. */
  top_intent: string;
  top_confidence: number;
  second_intent: string;
  second_confidence: number;
  state: InboxState;
  /** The end user's words when reported. */
  comment: string;
  created_time: string;
  /** "" while open. */
  resolved_time: string;
  /** The sample a label made of it; "" otherwise. */
  sample_code: string;
}
export interface InboxPage {
  total_items: number;
  grouped_items: number;
  total_groups: number;
  similarity: number;
  /** Largest first; `group_id` is the history_id of the group's first item. */
  groups: { group_id: number; size: number; suggested_intent: string; items: InboxItem[] }[];
}
export interface InboxQuery {
  state?: InboxState;
  reason?: InboxReason;
  /** Groups per page (1-500). */
  limit?: number;
  offset?: number;
}
export interface InboxLabelResult {
  labelled: number;
  samples_created: number;
  /** The same text was already a sample of this intent. */
  samples_skipped: number;
  intents_created: number;
}
export interface InboxStats {
  days: { day: string; added: number; reported: number; labelled: number; dismissed: number; out_of_scope: number }[];
}
export interface HistorySettings {
  /** Saved predictions older than this are deleted; 0 keeps them. */
  history_retention_days: number;
  /** Digits, phone numbers, ids and e-mail addresses are masked before a text is saved. */
  mask_history: boolean;
}
export interface SampleOrigin {
  sample_code: string;
  source: string;
  history_id: number;
  created_time: string;
}
interface ScoreRow {
  precision: number;
  recall: number;
  f1: number;
  support: number;
}
interface Confusion {
  expected: string;
  predicted: string;
  count: number;
}
/** A model version's k-fold cross-validated report (`state` "ready" once made; the figures are 0 before). */
export interface ModelReport {
  model_code: string;
  /** stale: the training data changed before the report ran. */
  state: 'waiting' | 'ready' | 'failed' | 'stale';
  message: string;
  run_ms: number;
  created_time: string;
  finished_time: string;
  folds: number;
  samples: number;
  intents: { accuracy: number; macro_f1: number; per_intent: ({ intent: string } & ScoreRow)[] };
  confusions: Confusion[];
  entities: { micro: ScoreRow; per_label: ({ entity: string } & ScoreRow)[] };
  confused_samples: { text: string; expected: string; predicted: string; confidence: number }[];
}
interface Change {
  from: number;
  to: number;
  change: number;
}
export interface ReportComparison {
  from: string;
  to: string;
  accuracy: Change;
  macro_f1: Change;
  entity_f1: Change;
  intents: ({ intent: string } & Change)[];
  entities: ({ entity: string } & Change)[];
  confusions_gone: Confusion[];
  confusions_new: Confusion[];
}

// ---- Recognition ----

/** The recognition envelope: errorCode 0 on success; other codes are answers too (no card found, blurred...). */
export interface RecognitionResult<T = IdCardItem> {
  errorCode: number;
  errorMessage: string;
  data: T[];
}
/** Fields of a card side (front: id, name, dob, sex, nationality, home, address, doe; back: features, issue_date, issue_loc), each with `<field>_prob`. */
export interface IdCardItem {
  type?: string;
  type_new?: string;
  overall_score?: string;
  address_entities?: { province: string; district: string; ward: string; street: string };
  [field: string]: unknown;
}
export interface ImageInput {
  /** A file: sent as multipart `image`. */
  image?: Bytes;
  /** An image the server downloads (public http/https only). */
  imageUrl?: string;
  /** The image as base64. */
  imageBase64?: string;
}

// ---- Face ----

export interface FaceAnswer<T> {
  code: string;
  message?: string;
  data?: T;
  [extra: string]: unknown;
}
export interface FaceUser {
  id: string;
  name?: string;
}
export interface FaceMatch {
  id: string;
  name?: string;
  similarity: number;
}

// ---- Speech ----

export type Voice =
  | 'banmai'
  | 'thuminh'
  | 'leminh'
  | 'lannhi'
  | 'linhsan'
  | 'myan'
  | 'giahuy'
  | 'ngoclam'
  | 'minhquang'
  | 'banmaiace'
  | 'thuminhace'
  | 'ngoclamace'
  | 'linhsanace'
  | 'minhquangace';
export interface TtsOptions {
  voice?: Voice;
  /** -3 (slowest) to 3 (fastest). */
  speed?: number;
  format?: 'mp3' | 'wav';
  /** Receives `{message, success}` when the audio is ready. */
  callbackUrl?: string;
}
export interface TtsAccepted {
  error: number;
  async: string;
  request_id: string;
  message: string;
}
export interface TtsStatus {
  request_id: string;
  status: 'queued' | 'running' | 'done' | 'failed';
  progress: number;
  error: number;
  message: string;
  async: string;
  voice: string;
  speed: number;
  format: string;
  characters: number;
  audio_seconds: number | null;
  created_time: string;
  ready_time: string | null;
  attempts: number;
}
export interface Synthesized {
  requestId: string;
  /** The audio link (no key needed to fetch it). */
  url: string;
  audio: ArrayBuffer;
  contentType: string;
  status: TtsStatus;
}
export interface AsrResult {
  /** 0 success, 1 no voice, 2 canceled, 9 busy. */
  status: number;
  hypotheses?: { utterance: string }[];
  id: string;
  message?: string;
}

// ---- Credit ----

export interface CreditQuery {
  phone: string;
  /** 1 consumer loan, 2 cash loan. */
  dltype: 1 | 2;
  /** 0 all (default), 1 alpha, 2 beta, 3 gamma. */
  source?: 0 | 1 | 2 | 3;
  /** Unix seconds: only data from before it is used. */
  decisionTime?: number;
}
export interface CreditScore {
  phone: string;
  score: number;
  alpha_score: number;
  beta_score: number;
  gamma_score: number;
  reasons: Record<string, { feature: string; value: number | null; bin: string; effect: number; direction: 'raises' | 'lowers' }[]>;
  models: Record<string, string>;
}

type Auth = 'key' | 'token' | 'none';

// ---- eKYC full flow (/session/init, /ocr, /face/liveness) ----

export type EkycDeviceType = 'android' | 'ios' | 'web-sdk' | 'api';
export type EkycDocumentType = 'idr' | 'dlr' | 'passport';

export interface EkycSdkConfig {
  is_show_ekyc_result: boolean;
  ekyc_flow: number;
  liveness_type: number;
  is_skip_nfc: boolean;
  /** Selfie attempts this session has. */
  limit: number;
}

/** One field read from the document (`value` "N/A" where not read). */
export interface EkycItem {
  key: string;
  locale: string;
  name: string;
  score: string;
  value: string;
}

/** /ocr's answer: errorCode "0" when the side passed, else the guide's code (QC..., FC..., E..., DB...). */
export interface EkycDocumentAnswer {
  data: EkycItem[];
  errorCode: string;
  errorMessage: string;
  total_data: unknown[];
}

/** /face/liveness's answer: code "200" when the selfie passed; `is_complete_session` once the session takes no more calls. */
export interface EkycSelfieAnswer {
  code: string;
  message: string;
  liveness?: Record<string, string>;
  face_match?: Record<string, string>;
  video_face_url?: string;
  compared_face_url?: string;
  /** Only on a passed selfie of an application with face search collections: each collection's nearest users. */
  face_search?: Record<string, EkycFaceSearchCollection>;
  is_complete_session?: boolean;
}

/** One collection's `face_search` answer: the users nearest the selfie and the document's portrait; `error` when it was not searched. */
export interface EkycFaceSearchCollection {
  selfie: EkycFaceSearchItem[];
  document: EkycFaceSearchItem[];
  error?: string;
}

/** A face search user near a face: similarity on the 0-1 scale; face_type "selfie" or the document type. */
export interface EkycFaceSearchItem {
  id: string;
  name: string;
  similarity: number;
  face_type: string;
}

/** An application's flow settings as /session/settings answers them (docs/ekyc.md). */
export interface EkycSettings {
  settings: Record<string, unknown>;
  overrides: Record<string, unknown>;
  updated_time: string | null;
  allowed_origins: string[];
}

/** A started session: send the document's sides, then selfies. */
export interface EkycSession {
  id: string;
  deviceType: EkycDeviceType;
  sdkConfig: EkycSdkConfig;
  /** POST /ocr: one side (`side`), a passport's page, or an ID card's front and back together (two images, in order). */
  document(type: EkycDocumentType, images: Bytes | Bytes[], opts?: { side?: 'front' | 'back'; lang?: 'en' | 'vi' }): Promise<EkycDocumentAnswer>;
  /** POST /face/liveness: one to five selfies. */
  selfie(images: Bytes | Bytes[], opts?: { lang?: 'en' | 'vi' }): Promise<EkycSelfieAnswer>;
}

interface Call {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  auth: Auth;
  query?: Record<string, string | number | undefined>;
  json?: unknown;
  body?: BodyInit;
  headers?: Record<string, string>;
  /** Safe to send again after a 5xx or a lost connection (reads, and writes that replace). */
  repeatable: boolean;
  raw?: boolean;
}

function defaultBaseUrl(): string {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  return env?.SAOLA_BASE_URL?.trim() || 'http://127.0.0.1:8000';
}

function toBlob(bytes: Bytes, type = 'application/octet-stream'): Blob {
  if (bytes instanceof Blob) return bytes;
  if (bytes instanceof ArrayBuffer) return new Blob([bytes], { type });
  const view = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return new Blob([view.slice()], { type });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Retry-After in seconds or as an HTTP date, in ms; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export class Saola {
  readonly baseUrl: string;
  private readonly opts: Required<Pick<SaolaOptions, 'retries' | 'backoffMs' | 'maxBackoffMs' | 'timeoutMs'>> & SaolaOptions;
  private readonly fetcher: typeof fetch;

  constructor(options: SaolaOptions = {}) {
    this.baseUrl = (options.baseUrl ?? defaultBaseUrl()).replace(/\/+$/, '');
    this.opts = { retries: 3, backoffMs: 500, maxBackoffMs: 30_000, timeoutMs: 120_000, ...options };
    this.fetcher = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** Sends one call with retries; answers the parsed JSON (or the Response for raw calls). */
  async request<T>(call: Call): Promise<T> {
    const url = new URL(this.baseUrl + call.path);
    for (const [k, v] of Object.entries(call.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { accept: 'application/json', ...call.headers };
    if (call.auth === 'key') {
      if (!this.opts.apiKey) throw new Error('This call needs an API key: new Saola({ apiKey })');
      headers.api_key = this.opts.apiKey;
    } else if (call.auth === 'token') {
      if (!this.opts.token) throw new Error('This call needs a bearer token: new Saola({ token })');
      headers.authorization = `Bearer ${this.opts.token}`;
    }
    let body = call.body;
    if (call.json !== undefined) {
      body = JSON.stringify(call.json);
      headers['content-type'] = 'application/json';
    }
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= this.opts.retries;
      const backoff = Math.min(this.opts.maxBackoffMs, this.opts.backoffMs * 2 ** attempt * (0.75 + Math.random() / 2));
      let res: Response;
      try {
        res = await this.fetcher(url, { method: call.method, headers, body, signal: AbortSignal.timeout(this.opts.timeoutMs) });
      } catch (err) {
        if (last || !call.repeatable) throw err;
        await sleep(backoff);
        continue;
      }
      const refused = res.status === 429 || res.status === 503;
      const failed = res.status >= 500 && call.repeatable;
      if ((refused || failed) && !last) {
        const wait = retryAfterMs(res.headers.get('retry-after'));
        await res.body?.cancel().catch(() => undefined);
        await sleep(Math.min(this.opts.maxBackoffMs, wait ?? backoff));
        continue;
      }
      if (call.raw && res.ok) return res as T;
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        /* not JSON: keep the text */
      }
      if (!res.ok) {
        const message = (parsed as { message?: string; errorMessage?: string } | undefined)?.message ?? (parsed as { errorMessage?: string } | undefined)?.errorMessage;
        throw new SaolaError(
          res.status,
          `${call.method} ${call.path}: HTTP ${res.status}${message ? `: ${message}` : ''}`,
          parsed,
          res.headers.get('x-request-id') ?? undefined,
        );
      }
      return parsed as T;
    }
  }

  // ---------------------------------------------------------------- NLU
  readonly nlu = {
    samples: {
      list: (page: Page = {}) => this.request<SampleListItem[]>({ method: 'GET', path: '/api/v3/sample', auth: 'token', query: { ...page }, repeatable: true }),
      create: (content: string) => this.request<Sample>({ method: 'POST', path: '/api/v3/sample', auth: 'token', json: { content }, repeatable: false }),
      get: (sampleCode: string) => this.request<SampleDetail>({ method: 'GET', path: `/api/v3/sample/${enc(sampleCode)}`, auth: 'token', repeatable: true }),
      update: (sampleCode: string, content: string) =>
        this.request<Sample>({ method: 'PUT', path: `/api/v3/sample/${enc(sampleCode)}`, auth: 'token', json: { content }, repeatable: true }),
      delete: (sampleCode: string) => this.request<StatusMessage>({ method: 'DELETE', path: `/api/v3/sample/${enc(sampleCode)}`, auth: 'token', repeatable: true }),
    },
    intents: {
      list: (page: Page = {}) => this.request<Intent[]>({ method: 'GET', path: '/api/v3/intent', auth: 'token', query: { ...page }, repeatable: true }),
      create: (intent: { label: string; description?: string; type?: number; code?: string }) =>
        this.request<Intent>({ method: 'POST', path: '/api/v3/intent', auth: 'token', json: intent, repeatable: false }),
      get: (intentCode: string) => this.request<Intent>({ method: 'GET', path: `/api/v3/intent/${enc(intentCode)}`, auth: 'token', repeatable: true }),
      update: (intentCode: string, change: { label?: string; description?: string; type?: number }) =>
        this.request<Intent>({ method: 'PUT', path: `/api/v3/intent/${enc(intentCode)}`, auth: 'token', json: change, repeatable: true }),
      delete: (intentCode: string) => this.request<StatusMessage>({ method: 'DELETE', path: `/api/v3/intent/${enc(intentCode)}`, auth: 'token', repeatable: true }),
    },
    entities: {
      list: (page: Page = {}) => this.request<Entity[]>({ method: 'GET', path: '/api/v3/entity', auth: 'token', query: { ...page }, repeatable: true }),
      create: (entity: { label: string; description: string; type: number }) =>
        this.request<Entity>({ method: 'POST', path: '/api/v3/entity', auth: 'token', json: entity, repeatable: false }),
      get: (label: string) => this.request<Entity>({ method: 'GET', path: `/api/v3/entity/${enc(label)}`, auth: 'token', repeatable: true }),
      update: (label: string, change: { description: string; type: number }) =>
        this.request<Entity>({ method: 'PUT', path: `/api/v3/entity/${enc(label)}`, auth: 'token', json: change, repeatable: true }),
      delete: (label: string) => this.request<StatusMessage>({ method: 'DELETE', path: `/api/v3/entity/${enc(label)}`, auth: 'token', repeatable: true }),
      samples: (label: string, page: Page = {}) =>
        this.request<EntitySample[]>({ method: 'GET', path: `/api/v3/entity/${enc(label)}/samples`, auth: 'token', query: { ...page }, repeatable: true }),
      deleteSamples: (label: string) => this.request<StatusMessage>({ method: 'DELETE', path: `/api/v3/entity/${enc(label)}/samples`, auth: 'token', repeatable: true }),
    },
    intentSamples: {
      create: (intentCode: string, sampleCode: string) =>
        this.request<IntentSample>({
          method: 'POST',
          path: '/api/v3/intent-sample',
          auth: 'token',
          json: { intent_code: intentCode, sample_code: sampleCode },
          repeatable: false,
        }),
      delete: (intentSampleCode: string) =>
        this.request<StatusMessage>({ method: 'DELETE', path: `/api/v3/intent-sample/${enc(intentSampleCode)}`, auth: 'token', repeatable: true }),
      /** Rows of `{intent, sample}` (intent labels are created as needed). */
      import: (rows: { intent: string; sample: string }[]) =>
        this.request<ImportResult>({ method: 'POST', path: '/api/v3/intent-sample/import_intent_samples', auth: 'token', json: rows, repeatable: false }),
    },
    entitySamples: {
      create: (tag: { entity_code: string; sample_code: string; value: string; start: number; end: number; parent_code?: string }) =>
        this.request<EntitySample>({ method: 'POST', path: '/api/v3/entity-sample', auth: 'token', json: tag, repeatable: false }),
      delete: (entitySampleCode: string) =>
        this.request<StatusMessage>({ method: 'DELETE', path: `/api/v3/entity-sample/${enc(entitySampleCode)}`, auth: 'token', repeatable: true }),
    },
    keywords: {
      /** The listed values of a keyword entity with their synonyms. */
      list: (label: string) =>
        this.request<{ value: string; synonyms: string[] }[]>({ method: 'GET', path: `/api/v3/entity/${enc(label)}/keywords`, auth: 'token', repeatable: true }),
      /** Adds a value, or replaces its synonyms. */
      put: (label: string, value: string, synonyms: string[] = []) =>
        this.request<{ value: string; synonyms: string[] }>({
          method: 'POST',
          path: `/api/v3/entity/${enc(label)}/keywords`,
          auth: 'token',
          json: { value, synonyms },
          repeatable: true,
        }),
      delete: (label: string, value: string) =>
        this.request<StatusMessage>({ method: 'DELETE', path: `/api/v3/entity/${enc(label)}/keywords`, auth: 'token', query: { value }, repeatable: true }),
    },
    /** Queues a training (both halves, or one: the other stays the last model's); a request while one runs answers that one. */
    train: (type: 'all' | 'intent' | 'entity' = 'all') =>
      this.request<{ message: string; status: TrainJob[] }>({ method: 'POST', path: '/api/v3/train', auth: 'token', json: { type }, repeatable: false }),
    trainStatus: () => this.request<TrainStatus>({ method: 'GET', path: '/api/v3/train/status', auth: 'token', repeatable: true }),
    /**
     * Polls train/status until the latest training succeeded (answers the status) or failed (throws), telling
     * `onProgress` each status read (its `progress` is 0-100 while it trains).
     */
    waitForTraining: async (opts: { onProgress?: (status: TrainStatus) => void; pollMs?: number; waitMs?: number } = {}): Promise<TrainStatus> => {
      const deadline = Date.now() + (opts.waitMs ?? 30 * 60_000);
      for (;;) {
        const status = await this.nlu.trainStatus();
        opts.onProgress?.(status);
        if (status.status === 2) return status;
        if (status.status === 3) throw new SaolaError(200, 'Training failed (its job message says why)', status, undefined);
        if (Date.now() > deadline) throw new SaolaError(0, `Training not finished after ${opts.waitMs ?? 30 * 60_000} ms`, status, undefined);
        await sleep(opts.pollMs ?? 1_000);
      }
    },
    /** Intents (ranked, those under the application's threshold left out) and entities of a text. */
    predict: (content: string, opts: { saveHistory?: boolean; part?: 'intent' | 'entity' } = {}) =>
      this.request<Prediction>({
        method: 'POST',
        path: opts.part ? `/api/v3/predict/${opts.part}` : '/api/v3/predict',
        auth: 'token',
        json: { content, save_history: opts.saveHistory ?? false },
        // Saving history makes a row per call: not sent twice.
        repeatable: !opts.saveHistory,
      }),
    settings: {
      get: () => this.request<{ threshold: number }>({ method: 'GET', path: '/api/v3/settings', auth: 'token', repeatable: true }),
      /** The intent confidence threshold, 0-1. */
      setThreshold: (threshold: number) =>
        this.request<{ threshold: number }>({ method: 'PUT', path: '/api/v3/settings', auth: 'token', json: { threshold }, repeatable: true }),
    },
    history: {
      list: (page: Page = {}) => this.request<HistoryPage>({ method: 'GET', path: '/api/v3/history', auth: 'token', query: { ...page }, repeatable: true }),
      /** Deletes one entry, or every entry of the application. */
      delete: (historyId?: number) =>
        this.request<StatusMessage>({
          method: 'DELETE',
          path: historyId === undefined ? '/api/v3/history' : `/api/v3/history/${historyId}`,
          auth: 'token',
          repeatable: true,
        }),
    },
    export: () => this.request<TrainingSet>({ method: 'GET', path: '/api/v3/export', auth: 'token', repeatable: true }),
    import: (set: TrainingSet, mode: 'merge' | 'replace' = 'merge') =>
      this.request<TrainingSetImportResult>({ method: 'POST', path: '/api/v3/import', auth: 'token', query: { mode }, json: set, repeatable: mode === 'replace' }),
    /** Where a sample came from: 404 (a SaolaError) for a sample typed in rather than labelled from the inbox. */
    sampleOrigin: (sampleCode: string) =>
      this.request<SampleOrigin>({ method: 'GET', path: `/api/v3/sample/${enc(sampleCode)}/origin`, auth: 'token', repeatable: true }),
    /** Saved predictions the model was unsure about, that hit no intent, or that were reported, grouped by similarity. */
    inbox: {
      list: (query: InboxQuery = {}) => this.request<InboxPage>({ method: 'GET', path: '/api/v3/inbox', auth: 'token', query: { ...query }, repeatable: true }),
      /** An end user's report that the answer to a saved prediction was wrong (reopens a dismissed item). */
      report: (historyId: number, comment?: string) =>
        this.request<InboxItem>({ method: 'POST', path: '/api/v3/inbox/report', auth: 'token', json: { history_id: historyId, comment }, repeatable: true }),
      /** Makes each item a sample of `intent` (created when missing) with its entity spans (code points of the text as the inbox shows it). */
      label: (intent: string, items: { history_id: number; entities?: { entity: string; start: number; end: number }[] }[]) =>
        this.request<InboxLabelResult>({ method: 'POST', path: '/api/v3/inbox/label', auth: 'token', json: { intent, items }, repeatable: true }),
      dismiss: (historyIds: number[]) =>
        this.request<{ resolved: number }>({ method: 'POST', path: '/api/v3/inbox/dismiss', auth: 'token', json: { history_ids: historyIds }, repeatable: true }),
      outOfScope: (historyIds: number[]) =>
        this.request<{ resolved: number }>({ method: 'POST', path: '/api/v3/inbox/out-of-scope', auth: 'token', json: { history_ids: historyIds }, repeatable: true }),
      /** Counts per UTC day, the last `days` (1-366, default 30). */
      stats: (days?: number) => this.request<InboxStats>({ method: 'GET', path: '/api/v3/inbox/stats', auth: 'token', query: { days }, repeatable: true }),
      settings: () => this.request<HistorySettings>({ method: 'GET', path: '/api/v3/inbox/settings', auth: 'token', repeatable: true }),
      setSettings: (change: Partial<HistorySettings>) =>
        this.request<HistorySettings>({ method: 'PUT', path: '/api/v3/inbox/settings', auth: 'token', json: change, repeatable: true }),
    },
    /** The cross-validated reports of model versions. */
    reports: {
      /** A model's report (the newest model's without a code); `state` says whether it is made yet. */
      get: (modelCode?: string) =>
        this.request<ModelReport>({ method: 'GET', path: '/api/v3/train/report', auth: 'token', query: { model_code: modelCode }, repeatable: true }),
      /** What changed between two versions (by default the newest model and the one before it). */
      compare: (versions: { from?: string; to?: string } = {}) =>
        this.request<ReportComparison>({ method: 'GET', path: '/api/v3/train/report/compare', auth: 'token', query: { ...versions }, repeatable: true }),
      /** Polls until the report of a model (the newest without a code) is ready; throws if it failed or went stale. */
      waitFor: async (modelCode?: string, opts: { pollMs?: number; waitMs?: number } = {}): Promise<ModelReport> => {
        const deadline = Date.now() + (opts.waitMs ?? 30 * 60_000);
        for (;;) {
          const report = await this.nlu.reports.get(modelCode);
          if (report.state === 'ready') return report;
          if (report.state !== 'waiting') throw new SaolaError(200, `Report ${report.state}: ${report.message}`, report, undefined);
          if (Date.now() > deadline) throw new SaolaError(0, `Report not ready after ${opts.waitMs ?? 30 * 60_000} ms`, report, undefined);
          await sleep(opts.pollMs ?? 1_000);
        }
      },
    },
  };

  // ---------------------------------------------------------------- Recognition
  readonly reader = {
    /** POST /vision/idr/vnm: reads a Vietnamese ID card (front or back). */
    readIdCard: (input: Bytes | ImageInput) =>
      this.request<RecognitionResult>({ method: 'POST', path: '/vision/idr/vnm', auth: 'key', body: imageForm(input), repeatable: true }),
    /** POST /cmt: the legacy reading; `face` adds the portrait crop (a link and base64). */
    readCmt: (input: Bytes | ImageInput, opts: { face?: boolean } = {}) =>
      this.request<RecognitionResult>({ method: 'POST', path: '/cmt', auth: 'key', body: imageForm(input, opts.face ? { face: '1' } : {}), repeatable: true }),
    /** GET /cmt/faces/:id: a portrait /cmt cropped (the id is the file name in its link). */
    cmtFace: async (id: string): Promise<ArrayBuffer> =>
      (await this.request<Response>({ method: 'GET', path: `/cmt/faces/${enc(id)}`, auth: 'none', repeatable: true, raw: true })).arrayBuffer(),
  };

  // ---------------------------------------------------------------- Face
  readonly face = {
    /** Creates or renames a user in a collection (the collection is made on first use). */
    createUser: (collection: string, id: string, name?: string) => this.faceForm<FaceUser>('POST', 'create', { collection, id, name }),
    /** Indexes a face image (JPEG) for a user. */
    addFace: (collection: string, id: string, image: Bytes, opts: { name?: string; allowIdCard?: boolean } = {}) =>
      this.faceForm<unknown>('POST', 'add', { collection, id, name: opts.name, allow_id_card: opts.allowIdCard ? '1' : undefined }, image),
    /** Finds the users whose faces look like the image's. */
    search: (collection: string, image: Bytes, opts: { threshold?: number; allowIdCard?: boolean } = {}) =>
      this.faceForm<FaceMatch[] | FaceMatch>(
        'POST',
        'search',
        { collection, threshold: opts.threshold?.toString(), allow_id_card: opts.allowIdCard ? '1' : undefined },
        image,
        true,
      ),
    deleteFaces: (collection: string, id: string) => this.faceForm<unknown>('DELETE', 'delete_faces', { collection, id }, undefined, true),
    deleteUser: (collection: string, id: string) => this.faceForm<unknown>('DELETE', 'delete', { collection, id }, undefined, true),
    listUsers: (collection: string, page: Page = {}) =>
      this.request<FaceAnswer<FaceUser[]>>({ method: 'GET', path: '/dmp/facesearch/v2/list', auth: 'key', query: { collection, ...page }, repeatable: true }),
    deleteCollection: (collection: string) => this.faceForm<unknown>('DELETE', 'delete_collection', { collection }, undefined, true),
    /** POST /dmp/checkface/v1: compares the largest face of two JPEGs. */
    match: (first: Bytes, second: Bytes) => {
      const form = new FormData();
      form.append('file[]', toBlob(first, 'image/jpeg'), 'first.jpg');
      form.append('file[]', toBlob(second, 'image/jpeg'), 'second.jpg');
      return this.request<Record<string, unknown>>({ method: 'POST', path: '/dmp/checkface/v1/', auth: 'key', body: form, repeatable: true });
    },
  };

  private faceForm<T>(method: 'POST' | 'DELETE', action: string, fields: Record<string, string | undefined>, image?: Bytes, repeatable = false): Promise<FaceAnswer<T>> {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) if (v !== undefined) form.append(k, v);
    if (image) form.append('file', toBlob(image, 'image/jpeg'), 'face.jpg');
    // Creating and adding replace what is there (same user id), so they too may be sent again.
    return this.request<FaceAnswer<T>>({ method, path: `/dmp/facesearch/v2/${action}`, auth: 'key', body: form, repeatable: repeatable || action === 'create' });
  }

  // ---------------------------------------------------------------- Speech
  readonly tts = {
    /** POST /hmi/tts/v5: starts a synthesis; the audio appears at `async` when ready. */
    request: (text: string, opts: TtsOptions = {}) =>
      this.request<TtsAccepted>({
        method: 'POST',
        path: '/hmi/tts/v5/',
        auth: 'key',
        body: text,
        headers: {
          'content-type': 'text/plain; charset=utf-8',
          ...(opts.voice ? { voice: opts.voice } : {}),
          ...(opts.speed !== undefined ? { speed: String(opts.speed) } : {}),
          ...(opts.format ? { format: opts.format } : {}),
          ...(opts.callbackUrl ? { callback_url: opts.callbackUrl } : {}),
        },
        repeatable: false,
      }),
    status: (requestId: string) => this.request<TtsStatus>({ method: 'GET', path: `/hmi/tts/v5/status/${enc(requestId)}`, auth: 'key', repeatable: true }),
    /**
     * Synthesises and waits for the audio: requests, follows the status until
     * done (or failed: a SaolaError), then downloads the file.
     */
    synthesize: async (text: string, opts: TtsOptions & { pollMs?: number; waitMs?: number; onProgress?: (status: TtsStatus) => void } = {}): Promise<Synthesized> => {
      const accepted = await this.tts.request(text, opts);
      if (accepted.error !== 0) throw new SaolaError(200, `TTS refused the text: ${accepted.message}`, accepted, accepted.request_id);
      const deadline = Date.now() + (opts.waitMs ?? 180_000);
      for (;;) {
        const status = await this.tts.status(accepted.request_id);
        opts.onProgress?.(status);
        if (status.status === 'done') {
          const res = await this.request<Response>({ method: 'GET', path: new URL(status.async || accepted.async).pathname, auth: 'none', repeatable: true, raw: true });
          return {
            requestId: accepted.request_id,
            url: status.async || accepted.async,
            audio: await res.arrayBuffer(),
            contentType: res.headers.get('content-type') ?? '',
            status,
          };
        }
        if (status.status === 'failed') throw new SaolaError(200, `Synthesis failed: ${status.message}`, status, accepted.request_id);
        if (Date.now() > deadline) throw new SaolaError(0, `Synthesis not ready after ${opts.waitMs ?? 180_000} ms`, status, accepted.request_id);
        await sleep(opts.pollMs ?? 500);
      }
    },
  };

  readonly asr = {
    /** POST /hmi/asr/general: the audio file (wav, mp3, m4a, ogg, webm, flac) in, the transcript out. */
    recognize: (audio: Bytes) =>
      this.request<AsrResult>({
        method: 'POST',
        path: '/hmi/asr/general',
        auth: 'key',
        body: toBlob(audio),
        headers: { 'content-type': 'application/octet-stream' },
        repeatable: true,
      }),
  };

  // ---------------------------------------------------------------- eKYC
  readonly ekyc = {
    /**
     * POST /session/init: starts a session. An error answer is a SaolaError; the steps' refusals (QC01, E101,
     * 303...) come back in the answers, as the guide's HTTP 200 with a code.
     */
    start: async (opts: { deviceType?: EkycDeviceType; clientUuid?: string } = {}): Promise<EkycSession> => {
      const deviceType = opts.deviceType ?? 'api';
      const started = await this.request<{ 'session-id': string; sdk_config: EkycSdkConfig }>({
        method: 'POST',
        path: '/session/init',
        auth: 'key',
        headers: { 'device-type': deviceType, ...(opts.clientUuid ? { client_uuid: opts.clientUuid } : {}) },
        repeatable: false,
      });
      const id = started['session-id'];
      const step = (lang: string | undefined) => ({ 'session-id': id, 'device-type': deviceType, ...(lang ? { lang } : {}) });
      return {
        id,
        deviceType,
        sdkConfig: started.sdk_config,
        document: (type, images, options = {}) => {
          const form = new FormData();
          for (const image of Array.isArray(images) ? images : [images]) form.append('files', toBlob(image, 'image/jpeg'), 'document.jpg');
          const headers = { ...step(options.lang), 'document-type': type, ...(options.side ? { 'side-type': options.side } : {}) };
          return this.request<EkycDocumentAnswer>({ method: 'POST', path: '/ocr', auth: 'key', headers, body: form, repeatable: false });
        },
        selfie: (images, options = {}) => {
          const form = new FormData();
          for (const image of Array.isArray(images) ? images : [images]) form.append('selfies', toBlob(image, 'image/jpeg'), 'selfie.jpg');
          return this.request<EkycSelfieAnswer>({ method: 'POST', path: '/face/liveness', auth: 'key', headers: step(options.lang), body: form, repeatable: false });
        },
      };
    },
    /** GET /session/settings: the application's flow settings, its overrides and its allowed origins (CORS). */
    settings: () => this.request<EkycSettings>({ method: 'GET', path: '/session/settings', auth: 'key', repeatable: true }),
    /** PUT /session/settings: replaces the overrides (and, when given, the allowed origins). */
    updateSettings: (overrides: Record<string, unknown>) =>
      this.request<EkycSettings>({ method: 'PUT', path: '/session/settings', auth: 'key', json: overrides, repeatable: true }),
  };

  // ---------------------------------------------------------------- Credit
  readonly credit = {
    /** GET /dmp/creditscoring/v1: the probability of repaying from each asked source (-1: no data). */
    score: (query: CreditQuery) =>
      this.request<CreditScore>({
        method: 'GET',
        path: '/dmp/creditscoring/v1',
        auth: 'key',
        query: { phone: query.phone, dltype: query.dltype, source: query.source, decision_time: query.decisionTime },
        repeatable: true,
      }),
  };
}

const enc = encodeURIComponent;

function imageForm(input: Bytes | ImageInput, extra: Record<string, string> = {}): FormData {
  const spec: ImageInput = input instanceof Blob || input instanceof ArrayBuffer || ArrayBuffer.isView(input) ? { image: input } : input;
  const form = new FormData();
  if (spec.image) form.append('image', toBlob(spec.image, 'image/jpeg'), 'image.jpg');
  if (spec.imageUrl) form.append('image_url', spec.imageUrl);
  if (spec.imageBase64) form.append('image_base64', spec.imageBase64);
  for (const [k, v] of Object.entries(extra)) form.append(k, v);
  return form;
}
