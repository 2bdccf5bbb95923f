import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { uuidv7 } from 'uuidv7';
import type { Config } from '../../platform/config.js';
import { ServiceError } from '../../platform/http/errors.js';
import type { JobQueue, JobStatus } from '../../platform/jobs/queue.js';
import { checkCallbackUrl } from './callback.js';
import type { TtsConfig } from './config.js';
import { TtsErrors } from './errors.js';
import { hasSpeech, normaliseText } from './engine/normalise.js';
import type { TtsRequestRow } from './schema.js';
import type { TtsStore } from './store.js';
import { parseFormat, parseSpeed, parseVoice, type AudioFormat, type Voice } from './voices.js';

export const SYNTHESIS_QUEUE = 'tts.synthesise';
export const CALLBACK_QUEUE = 'tts.callback';

export const MIN_CHARS = 3;
export const MAX_CHARS = 5000;

/** The original's answer text. */
export const ACCEPTED_MESSAGE = 'The content will be returned after a few seconds under the async link.';

/** Where the audio links live, below the public base URL. */
export const LINK_PATH = '/hmi/tts/v5/audio/';

/**
 * A real client reads the link as `body[10:100]` of the raw answer: after
 * `{"async":"` (10 characters) it takes 90. So the link is exactly 90
 * characters: the random token fills what the base URL leaves. Tokens are
 * never shorter than 22 characters (132 random bits), so a base URL longer
 * than 46 characters gives a longer link (docs/tts.md).
 */
export const LINK_LENGTH = 90;
const MIN_TOKEN = 22;
const MAX_TOKEN = 64;

export function newLink(publicUrl: string, format: AudioFormat): { token: string; url: string } {
  const fixed = publicUrl.length + LINK_PATH.length + 1 + format.length;
  const length = Math.max(MIN_TOKEN, Math.min(MAX_TOKEN, LINK_LENGTH - fixed));
  const token = randomBytes(48).toString('base64url').slice(0, length);
  return { token, url: `${publicUrl}${LINK_PATH}${token}.${format}` };
}

/** What a synthesis request carries: the body's text and the four parameters as they came (headers or query). */
export interface SynthesisInput {
  text: string;
  voice?: string;
  speed?: string;
  format?: string;
  callbackUrl?: string;
}

export interface SynthesisJobPayload {
  requestId: string;
  text: string;
}

export interface Accepted {
  requestId: string;
  asyncUrl: string;
}

export interface RequestStatus {
  request_id: string;
  status: JobStatus;
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

/** The synthesis requests of every app: accepts them, reports on them, finds their files. */
export class TtsService {
  /** The backlog as last counted, when, and the requests this process accepted since. */
  private backlog = { count: 0, at: -Infinity, since: 0, reading: undefined as Promise<void> | undefined };

  constructor(
    private readonly store: TtsStore,
    private readonly jobs: JobQueue,
    private readonly config: Config,
    private readonly tts: TtsConfig,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Validates, records and queues a request; answers at once with its link. */
  async accept(appCode: string, input: SynthesisInput): Promise<Accepted> {
    const voice: Voice | undefined = parseVoice(input.voice ?? '');
    if (!voice) throw new ServiceError(TtsErrors.invalidVoice, `${TtsErrors.invalidVoice.message}; got "${clip(input.voice)}"`);
    const speed = parseSpeed(input.speed ?? '');
    if (speed === undefined) throw new ServiceError(TtsErrors.invalidSpeed, `${TtsErrors.invalidSpeed.message}; got "${clip(input.speed)}"`);
    const format = parseFormat(input.format ?? '');
    if (!format) throw new ServiceError(TtsErrors.invalidFormat, `${TtsErrors.invalidFormat.message}; got "${clip(input.format)}"`);
    const callbackUrl = input.callbackUrl?.trim() || undefined;
    if (callbackUrl) {
      const refused = await checkCallbackUrl(callbackUrl, this.tts.callbackAllowPrivate);
      if (refused) throw new ServiceError(TtsErrors.invalidCallbackUrl, refused);
    }

    const text = input.text.normalize('NFC').trim();
    const characters = [...text].length;
    if (characters < MIN_CHARS) {
      throw new ServiceError(TtsErrors.textTooShort, `${TtsErrors.textTooShort.message}; got ${characters}`);
    }
    if (characters > MAX_CHARS) {
      throw new ServiceError(TtsErrors.textTooLong, `${TtsErrors.textTooLong.message}; got ${characters}`);
    }
    if (!hasSpeech(normaliseText(text))) {
      throw new ServiceError(TtsErrors.invalidText, 'The text has no letters or numbers to read');
    }

    await this.checkBacklog();
    const id = uuidv7();
    // Read at request time: the operator (or a test) may change the public URL while running.
    const link = newLink(this.config.publicUrl, format);
    const row: TtsRequestRow = {
      id,
      app_code: appCode,
      link_token: link.token,
      async_url: link.url,
      voice,
      speed,
      format,
      text_length: characters,
      callback_url: callbackUrl ?? null,
      job_id: null,
      blob_key: `tts/${safeKeySegment(appCode)}/${id}.${format}`,
      audio_bytes: null,
      audio_ms: null,
      error: null,
      created_time: new Date().toISOString(),
      ready_time: null,
      failed_time: null,
    };
    await this.store.insert(row);
    const payload: SynthesisJobPayload = { requestId: id, text };
    // Keyed by the request id: enqueuing twice (a retried insert) still makes one job.
    const job = await this.jobs.enqueue(SYNTHESIS_QUEUE, payload, { appCode, key: id, maxAttempts: this.tts.synthesisAttempts });
    await this.store.setJob(id, job.id);
    this.log.info({ request_id: id, job_id: job.id, app_code: appCode, voice, speed, format, characters, callback: Boolean(callbackUrl) }, 'tts request queued');
    return { requestId: id, asyncUrl: link.url };
  }

  /**
   * Refuses a request (429, code 9) while the synthesis backlog is full: without a bound, requests
   * arriving faster than the engines synthesise wait ever longer. The count is read at most once a
   * second (every process sees the others' requests by then) plus this process's own since.
   */
  private async checkBacklog(): Promise<void> {
    if (this.tts.maxBacklog <= 0) return;
    if (performance.now() - this.backlog.at > 1000) {
      this.backlog.reading ??= this.store.countUnfinished().then(
        (n) => {
          this.backlog = { count: n, at: performance.now(), since: 0, reading: undefined };
        },
        (err: unknown) => {
          this.backlog.reading = undefined;
          throw err;
        },
      );
      await this.backlog.reading;
    }
    if (this.backlog.count + this.backlog.since >= this.tts.maxBacklog) {
      throw new ServiceError(TtsErrors.busy, `${this.backlog.count + this.backlog.since} requests are waiting for synthesis; try again shortly`);
    }
    this.backlog.since++;
  }

  async status(appCode: string, requestId: string): Promise<RequestStatus> {
    const row = await this.store.get(requestId, appCode);
    if (!row) throw new ServiceError(TtsErrors.requestNotFound, undefined, { requestId });
    const job = row.job_id ? await this.jobs.get(row.job_id, appCode) : undefined;
    let status: JobStatus = job?.status ?? 'queued';
    if (row.ready_time) status = 'done';
    else if (row.failed_time) status = 'failed';
    else if (status === 'done') status = 'running'; // the row is written just after the job's result
    const failed = status === 'failed';
    const lastError = row.error ?? job?.lastError ?? null;
    return {
      request_id: row.id,
      status,
      progress: status === 'done' ? 100 : (job?.progress ?? 0),
      error: failed ? Number(TtsErrors.synthesisFailed.code) : 0,
      message: failed
        ? `${TtsErrors.synthesisFailed.message}: ${lastError ?? 'unknown error'}`
        : status === 'done'
          ? 'The audio is ready under the async link.'
          : lastError && status === 'queued'
            ? `Retrying after an error: ${lastError}`
            : ACCEPTED_MESSAGE,
      async: row.async_url,
      voice: row.voice,
      speed: row.speed,
      format: row.format,
      characters: row.text_length,
      audio_seconds: row.audio_ms === null ? null : row.audio_ms / 1000,
      created_time: row.created_time,
      ready_time: row.ready_time,
      attempts: job?.attempts ?? 0,
    };
  }

  /** The request behind a public link file name (`<token>.<format>`), if any. */
  async byLinkFile(file: string): Promise<TtsRequestRow | undefined> {
    const match = /^([A-Za-z0-9_-]{22,64})\.(mp3|wav)$/.exec(file);
    if (!match) return undefined;
    const row = await this.store.getByToken(match[1]);
    return row && row.format === match[2] ? row : undefined;
  }
}

function clip(value: string | undefined): string {
  const text = value ?? '';
  return text.length > 40 ? `${text.slice(0, 40)}...` : text;
}

/** App codes become a blob key segment; keep only the characters keys allow. */
function safeKeySegment(appCode: string): string {
  const cleaned = appCode.replace(/[^A-Za-z0-9_-]/g, '_').replace(/^[._]+/, '');
  return cleaned || 'app';
}
