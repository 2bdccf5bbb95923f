import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Credentials } from '../../platform/auth/credentials.js';
import { requireApiKey } from '../../platform/auth/hooks.js';
import type { BlobStore } from '../../platform/blobs/store.js';
import { sendBlob } from '../../platform/blobs/http.js';
import { ServiceError } from '../../platform/http/errors.js';
import { useServiceErrors } from '../../platform/http/service.js';
import { TtsErrors, synthesisAnswer, ttsErrorShape } from './errors.js';
import { ACCEPTED_MESSAGE, MAX_CHARS, type SynthesisInput, type TtsService } from './service.js';
import { CONTENT_TYPES, type AudioFormat } from './voices.js';

export interface TtsRoutesOptions {
  service: TtsService;
  credentials: Credentials;
  blobs: BlobStore;
}

/** 5000 characters of up to 4 UTF-8 bytes each, percent-encoded in the worst case, plus slack. */
const BODY_LIMIT = 64 * 1024;

const tags = ['Text to speech'];
const security = [{ apiKey: [] }];

/** A parameter from the headers (as the spec says) or the query string (as some clients send it). */
function param(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers[name];
  const fromHeader = Array.isArray(header) ? header[0] : header;
  if (fromHeader !== undefined) return fromHeader;
  const query = request.query as Record<string, unknown> | undefined;
  const value = query?.[name];
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  return undefined;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The body is the text whatever the Content-Type (curl -d and axios send the
 * raw text as form-urlencoded). Only a body that is entirely one encoded form
 * field named text, content, input or data (`text=Xin+ch%C3%A0o`) is decoded.
 */
export function textOfBody(body: unknown, contentType: string | undefined): string {
  if (body === undefined || body === null) return '';
  if (!Buffer.isBuffer(body)) return typeof body === 'string' ? body : '';
  let text: string;
  try {
    text = utf8.decode(body).replace(/^\uFEFF/, '');
  } catch {
    throw new ServiceError(TtsErrors.invalidText, 'The body is not UTF-8 text');
  }
  if ((contentType ?? '').toLowerCase().includes('application/x-www-form-urlencoded')) {
    const field = /^(?:text|content|input|data)=([A-Za-z0-9%+._~*'()!-]*)$/.exec(text.trim());
    if (field) {
      try {
        return decodeURIComponent(field[1].replace(/\+/g, ' '));
      } catch {
        /* not valid percent-encoding: it is the text itself */
      }
    }
  }
  return text;
}

/** HTTP adapter of /hmi/tts/v5: declares each route and calls one service method. */
export async function ttsRoutes(scope: FastifyInstance, opts: TtsRoutesOptions): Promise<void> {
  const { service } = opts;
  useServiceErrors(scope, ttsErrorShape);
  const auth = requireApiKey(opts.credentials);

  scope.post(
    '/',
    {
      onRequest: auth,
      bodyLimit: BODY_LIMIT,
      config: { body: 'raw' },
      schema: {
        tags,
        security,
        summary: 'Synthesise speech (asynchronous)',
        description: `Body: the text, 3 to ${MAX_CHARS} characters, any or no Content-Type. Parameters as headers or query: voice, speed, format, callback_url. Answers at once with the link; the file appears there when ready.`,
      },
    },
    async (request, reply) => {
      const input: SynthesisInput = {
        text: textOfBody(request.body, request.headers['content-type']),
        voice: param(request, 'voice'),
        speed: param(request, 'speed'),
        format: param(request, 'format'),
        callbackUrl: param(request, 'callback_url'),
      };
      const accepted = await service.accept(request.appCode, input);
      // Sent as a string: the key order and compactness are part of the contract.
      return reply.type('application/json; charset=utf-8').send(synthesisAnswer(accepted.asyncUrl, 0, ACCEPTED_MESSAGE, accepted.requestId));
    },
  );

  scope.get<{ Params: { request_id: string } }>(
    '/status/:request_id',
    {
      onRequest: auth,
      schema: {
        tags,
        security,
        summary: 'Status of a synthesis request',
        params: { type: 'object', properties: { request_id: { type: 'string', maxLength: 100 } }, required: ['request_id'] },
      },
    },
    async (request) => service.status(request.appCode, request.params.request_id),
  );

  // The link itself: no api_key (clients hand it to players), the random token is the capability.
  scope.get<{ Params: { file: string } }>(
    '/audio/:file',
    {
      schema: {
        tags,
        summary: 'The synthesised audio: 404 until ready, then 200 (Range supported)',
        params: { type: 'object', properties: { file: { type: 'string', maxLength: 100 } }, required: ['file'] },
      },
    },
    async (request, reply) => {
      const row = await service.byLinkFile(request.params.file);
      reply.header('cache-control', 'no-store');
      if (row && (await sendBlob(request, reply, opts.blobs, row.blob_key, CONTENT_TYPES[row.format as AudioFormat]))) {
        reply.header('cache-control', 'private, max-age=3600');
        return reply;
      }
      const failed = row?.failed_time ? `; synthesis failed: ${row.error ?? 'unknown error'}` : '';
      throw new ServiceError(TtsErrors.audioNotReady, `${TtsErrors.audioNotReady.message}${failed}`, { requestId: row?.id ?? '' });
    },
  );
}
