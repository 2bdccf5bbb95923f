import type { FastifyInstance, FastifyReply } from 'fastify';
import { requireApiKey } from '../../platform/auth/hooks.js';
import type { Credentials } from '../../platform/auth/credentials.js';
import { sendRouteNotFound, sendServiceError } from '../../platform/http/service.js';
import { asrErrorShape } from './errors.js';
import type { AsrService } from './service.js';
import { audioFromBody } from './upload.js';

export interface AsrRoutesOptions {
  service: AsrService;
  credentials: Credentials;
  /** Largest upload, bytes. */
  maxBytes: number;
}

const tags = ['Speech to text'];
const security = [{ apiKey: [] }];

const Recognition = {
  type: 'object',
  description: 'status 0 with hypotheses on success; status 1 (no voice), 2 (canceled) or 9 (system busy) with a message and an empty hypotheses list otherwise',
  properties: {
    status: { type: 'integer', enum: [0, 1, 2, 9] },
    hypotheses: { type: 'array', items: { type: 'object', properties: { utterance: { type: 'string' } }, required: ['utterance'] } },
    message: { type: 'string' },
    id: { type: 'string' },
  },
  required: ['status', 'hypotheses', 'id'],
} as const;

/** A client that hangs up before its answer is sent cancels the work. */
function disconnectSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  // The response closes when its answer is sent or when the connection drops; only the second is a cancel.
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}

/** HTTP adapter of POST /hmi/asr/general: the body is the audio file, with any or no Content-Type. */
export async function asrRoutes(scope: FastifyInstance, opts: AsrRoutesOptions): Promise<void> {
  // The error body carries the request id, so the shape is made per request.
  scope.setErrorHandler((err, request, reply) => sendServiceError(asrErrorShape(request.id), err, request, reply));
  scope.setNotFoundHandler((request, reply) => sendRouteNotFound(asrErrorShape(request.id), request, reply));
  scope.addHook('onRequest', requireApiKey(opts.credentials));

  scope.post(
    '/general',
    {
      config: { body: 'raw' },
      bodyLimit: opts.maxBytes,
      schema: {
        tags,
        security,
        summary: 'Speech to text',
        description:
          'The body is the audio file (wav, mp3, m4a/aac, ogg/opus, webm or flac) with any or no Content-Type. ' +
          'Long audio is split at pauses and recognised piece by piece.',
        response: { 200: Recognition },
      },
    },
    async (request, reply) => {
      const audio = audioFromBody(request.body, request.headers['content-type']);
      return opts.service.recognize(audio, request.id, disconnectSignal(reply));
    },
  );
}
