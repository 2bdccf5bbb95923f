import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { BlobStore } from '../../platform/blobs/store.js';
import { PermanentJobError, type Job, type JobContext, type JobQueue, type Worker } from '../../platform/jobs/queue.js';
import { deliverCallback, type CallbackJob } from './callback.js';
import type { TtsConfig } from './config.js';
import { pcmToWav, type Mp3Encoder } from './engine/encode.js';
import { CALLBACK_QUEUE, SYNTHESIS_QUEUE, type SynthesisJobPayload } from './service.js';
import type { TtsStore } from './store.js';
import type { VoiceEngines } from './engine/neural.js';
import { synthesiseText, type SpeechEngine } from './engine/synthesise.js';
import { CONTENT_TYPES, voiceInfo, wordsPerMinute, type AudioFormat } from './voices.js';

export interface TtsJobDeps {
  store: TtsStore;
  jobs: JobQueue;
  blobs: BlobStore;
  /** eSpeak NG: every voice without an installed model. */
  engine: SpeechEngine;
  /** The operator's installed voice models, by voice (neural.ts); without it every voice uses `engine`. */
  voices?: Pick<VoiceEngines, 'engineFor'>;
  encoder: Mp3Encoder;
  config: TtsConfig;
  log: FastifyBaseLogger;
}

/**
 * The synthesis job: text -> parts -> PCM -> WAV file -> (MP3 file) -> blob,
 * then the callback job. Idempotent per request id: a job that runs again
 * after a crash finds the finished blob and only makes sure of the callback.
 */
export function synthesisHandler(deps: TtsJobDeps) {
  const { store, blobs, engine, encoder, config, log } = deps;
  return async function synthesise(job: Job<SynthesisJobPayload>, ctx: JobContext): Promise<unknown> {
    const { requestId, text } = job.payload;
    const row = await store.getForWorker(requestId);
    if (!row) return { skipped: 'the request no longer exists' };
    const jobLog = log.child({ request_id: requestId, job_id: job.id, attempt: job.attempts });
    const format = row.format as AudioFormat;

    if ((await blobs.stat(row.blob_key)) !== undefined) {
      if (!row.ready_time) await store.markReady(requestId, { bytes: (await blobs.stat(row.blob_key))?.size ?? 0, ms: row.audio_ms ?? 0 });
      await enqueueCallback(deps, row.id, row.app_code, row.callback_url, { message: row.async_url, success: 'true' });
      jobLog.info('tts audio already stored; nothing to redo');
      return { already: true };
    }

    const started = Date.now();
    const voice = voiceInfo(row.voice);
    const chosen = voice && deps.voices ? await deps.voices.engineFor(voice) : engine;
    jobLog.info({ engine: chosen.name, characters: row.text_length }, 'tts synthesis started');
    const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(config.synthesisTimeoutMs)]);
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'saola-tts-'));
    try {
      if (!voice) throw new PermanentJobError(`unknown voice ${row.voice}`);
      const pcm = await synthesiseText(chosen, text, voice, wordsPerMinute(row.speed), {
        parallel: chosen.kind === 'wasm' ? 1 : 2,
        signal,
        onPart: (done, total) => ctx.progress(5 + Math.round((80 * done) / total)),
      });
      const synthesisMs = Date.now() - started;
      const wavPath = path.join(dir, 'audio.wav');
      await fs.writeFile(wavPath, pcmToWav(pcm));
      let filePath = wavPath;
      if (format === 'mp3') {
        filePath = path.join(dir, 'audio.mp3');
        await encoder.encode(wavPath, filePath, { kbps: config.mp3Kbps, signal });
      }
      await ctx.progress(95);
      const stored = await blobs.put(row.blob_key, createReadStream(filePath), { contentType: CONTENT_TYPES[format] });
      const audioMs = Math.round((pcm.samples.length / pcm.sampleRate) * 1000);
      await store.markReady(requestId, { bytes: stored.size, ms: audioMs });
      await enqueueCallback(deps, row.id, row.app_code, row.callback_url, { message: row.async_url, success: 'true' });
      jobLog.info({ parts: pcm.parts, audio_ms: audioMs, bytes: stored.size, synthesis_ms: synthesisMs, total_ms: Date.now() - started }, 'tts audio ready');
      return { bytes: stored.size, audioMs };
    } catch (error) {
      const last = error instanceof PermanentJobError || job.attempts >= job.maxAttempts;
      const message = error instanceof Error ? error.message : String(error);
      if (last) {
        await store.markFailed(requestId, message);
        await enqueueCallback(deps, row.id, row.app_code, row.callback_url, { message: `Speech synthesis failed: ${message}`, success: 'false' });
        jobLog.error({ err: error }, 'tts synthesis failed for good');
      } else {
        jobLog.warn({ err: error }, 'tts synthesis failed; it will be retried');
      }
      throw error;
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  };
}

async function enqueueCallback(deps: TtsJobDeps, requestId: string, appCode: string, url: string | null, body: CallbackJob['body']): Promise<void> {
  if (!url) return;
  const payload: CallbackJob = { requestId, url, body };
  // One callback per request, even when the synthesis job runs twice.
  const job = await deps.jobs.enqueue(CALLBACK_QUEUE, payload, { appCode, key: requestId, maxAttempts: deps.config.callbackAttempts });
  if (job.created) deps.log.info({ request_id: requestId, job_id: job.id, success: body.success }, 'tts callback queued');
}

export function callbackHandler(deps: Pick<TtsJobDeps, 'config' | 'log'>) {
  return async function callback(job: Job<CallbackJob>, ctx: JobContext): Promise<unknown> {
    const { status } = await deliverCallback(job.payload, { timeoutMs: deps.config.callbackTimeoutMs, allowPrivate: deps.config.callbackAllowPrivate }, ctx.signal);
    deps.log.info({ request_id: job.payload.requestId, job_id: job.id, attempt: job.attempts, status }, 'tts callback delivered');
    return { status };
  };
}

/** Starts the synthesis and callback workers and the retention sweep; returns what stops them. */
export function startTtsWorkers(deps: TtsJobDeps): { stop(): Promise<void> } {
  const { jobs, config, log } = deps;
  const onError = (error: unknown, job?: Job) => {
    if (job) log.warn({ job_id: job.id, queue: job.queue, attempt: job.attempts, err: error }, 'tts job attempt failed');
    else log.error({ err: error }, 'tts job queue error');
  };
  const workers: Worker[] = [
    jobs.work<SynthesisJobPayload>(SYNTHESIS_QUEUE, synthesisHandler(deps), {
      concurrency: config.concurrency,
      // The queue's short default lease (heartbeat-renewed): a job whose worker
      // died is synthesised elsewhere within seconds, before a client that
      // fetches the link 10 s later gives up.
      backoff: doublingBackoff(1000, 60_000),
      onError,
    }),
    jobs.work<CallbackJob>(CALLBACK_QUEUE, callbackHandler(deps), {
      concurrency: 4,
      backoff: doublingBackoff(config.callbackBackoffMs, config.callbackBackoffCapMs),
      onError,
    }),
  ];
  const sweep = async () => {
    try {
      const removed = await sweepExpired(deps, new Date(Date.now() - config.retentionSeconds * 1000));
      if (removed.files > 0 || removed.requests > 0) log.info(removed, 'tts retention sweep');
      // A live request gets its job within milliseconds of its row; a minute without one is a crash's leftover.
      const orphans = await deps.store.deleteOrphansBefore(new Date(Date.now() - 60_000));
      if (orphans > 0) log.warn({ orphans }, 'tts requests left without a job by a crash were removed');
    } catch (error) {
      log.error({ err: error }, 'tts retention sweep failed');
    }
  };
  // sweep() catches its own errors, so its promise never rejects.
  const timer = setInterval(() => void sweep(), config.sweepSeconds * 1000);
  timer.unref();
  void sweep();
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all(workers.map((w) => w.stop()));
    },
  };
}

/** Deletes audio written before `before` and forgets finished requests created before it. */
export async function sweepExpired(deps: Pick<TtsJobDeps, 'blobs' | 'store'>, before: Date): Promise<{ files: number; requests: number }> {
  // Requests first: a file is written after its request was created, so when a link answers 404 its
  // request is already forgotten too (the other order left a moment where the status outlived the audio).
  const requests = await deps.store.deleteFinishedBefore(before);
  const files = await deps.blobs.deleteOlderThan('tts/', before);
  return { files, requests };
}

/** Delay before the retry after failed try `attempt` (1-based): base, 2 x base, 4 x base ... capped. */
export function doublingBackoff(baseMs: number, capMs: number): (attempt: number) => number {
  return (attempt) => Math.min(capMs, baseMs * 2 ** Math.max(0, Math.min(attempt - 1, 30)));
}
