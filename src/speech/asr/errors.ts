import { defineCatalogue, type CatalogueEntry, type ServiceErrorShape } from '../../platform/http/errors.js';

/**
 * Speech to text answers `{status, message, id}` when it cannot give a
 * transcript. The spec has four statuses: 0 success, 1 no voice, 2 canceled,
 * 9 system busy. Everything maps onto them (docs/asr.md): problems with the
 * upload are 1 (no voice could be read from it), a cancellation is 2, and a
 * server that cannot serve (busy, no model, bad key, our fault) is 9. The HTTP
 * status tells the cases apart for clients that look at it.
 */
export const AsrStatus = { success: 0, noVoice: 1, canceled: 2, busy: 9 } as const;

export const AsrErrors = defineCatalogue({
  noVoice: { code: AsrStatus.noVoice, message: 'No voice detected in the audio', status: 200 },
  emptyAudio: { code: AsrStatus.noVoice, message: 'The body is empty: send the audio file as the request body', status: 400 },
  invalidAudio: {
    code: AsrStatus.noVoice,
    message: 'The body is not a readable audio file (wav, mp3, m4a/aac, ogg/opus, webm or flac)',
    status: 400,
  },
  audioTooLong: { code: AsrStatus.noVoice, message: 'The audio is longer than this server accepts', status: 413 },
  bodyTooLarge: { code: AsrStatus.noVoice, message: 'The audio file is larger than this server accepts', status: 413 },
  invalidRequest: { code: AsrStatus.noVoice, message: 'Invalid request', status: 400 },

  canceled: { code: AsrStatus.canceled, message: 'Recognition canceled: the client went away', status: 200 },
  timeLimit: { code: AsrStatus.canceled, message: 'Recognition canceled: it took longer than the time limit', status: 200 },

  busy: { code: AsrStatus.busy, message: 'System busy; try again shortly', status: 429 },
  noModel: {
    code: AsrStatus.busy,
    message: 'No speech recognition model is installed: install one with `saola models add asr <path>` or set SAOLA_ASR_MODEL',
    status: 503,
  },
  modelFailed: { code: AsrStatus.busy, message: 'The speech recognition model could not be loaded', status: 503 },
  unauthorized: { code: AsrStatus.busy, message: 'Missing or invalid api_key', status: 401 },
  routeNotFound: { code: AsrStatus.busy, message: 'Route not found', status: 404 },
  methodNotAllowed: { code: AsrStatus.busy, message: 'Method not allowed', status: 405 },
  internal: { code: AsrStatus.busy, message: 'Internal error; it has been logged', status: 500 },
});

/**
 * The error body of the recognition response: `{status, hypotheses: [], message, id}`.
 * The empty list stays: clients read `hypotheses[0]` (or its length) without
 * looking at `status` first, and a missing key crashes them (issue 29).
 */
export function asrErrorBody(entry: CatalogueEntry, message: string, id: string): { status: number; hypotheses: []; message: string; id: string } {
  return { status: Number(entry.code), hypotheses: [], message, id };
}

/** The shape for one request: the body carries that request's id. */
export function asrErrorShape(requestId: string): ServiceErrorShape {
  return {
    service: 'asr',
    platform: AsrErrors,
    render: (entry, message) => asrErrorBody(entry, message, requestId),
  };
}
