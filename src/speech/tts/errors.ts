import { defineCatalogue, type CatalogueEntry, type ServiceErrorShape } from '../../platform/http/errors.js';

/**
 * The text-to-speech error numbers (`error` in the answer; 0 is success). The
 * spec leaves them open; these are ours, listed in docs/tts.md. Bad requests
 * carry real HTTP statuses (400, 401, 404, 413, 429, 500) so HTTP-aware
 * clients notice; the body is always the synthesis answer shape.
 */
export const TtsErrors = defineCatalogue({
  unauthorized: { code: 1, message: 'Missing or invalid api_key', status: 401 },
  textTooShort: { code: 2, message: 'The text must be at least 3 characters', status: 400 },
  textTooLong: { code: 3, message: 'The text must be at most 5000 characters', status: 400 },
  invalidVoice: {
    code: 4,
    message:
      'voice must be one of banmai, lannhi, leminh, myan, thuminh, giahuy, linhsan, ngoclam, minhquang, banmaiace, thuminhace, ngoclamace, linhsanace, minhquangace',
    status: 400,
  },
  invalidSpeed: { code: 5, message: 'speed must be an integer from -3 to 3 (or empty for 0)', status: 400 },
  invalidFormat: { code: 6, message: 'format must be mp3 or wav', status: 400 },
  invalidCallbackUrl: { code: 7, message: 'callback_url must be an http or https URL of a public host', status: 400 },
  invalidText: { code: 8, message: 'The body must be UTF-8 text with something to read', status: 400 },
  busy: { code: 9, message: 'The system is busy; try again shortly', status: 429 },
  requestNotFound: { code: 10, message: 'No such request_id', status: 404 },
  audioNotReady: { code: 11, message: 'The audio is not ready yet, or it has expired', status: 404 },
  synthesisFailed: { code: 12, message: 'Speech synthesis failed', status: 500 },
  bodyTooLarge: { code: 13, message: 'The body is larger than this endpoint accepts', status: 413 },
  invalidRequest: { code: 14, message: 'Invalid request', status: 400 },
  routeNotFound: { code: 15, message: 'Route not found', status: 404 },
  methodNotAllowed: { code: 16, message: 'Method not allowed', status: 405 },
  internal: { code: 99, message: 'Internal error; it has been logged', status: 500 },
});

/** The answer of POST /hmi/tts/v5, errors included: `async` first (a client slices the raw text). */
export function synthesisAnswer(asyncUrl: string, error: number, message: string, requestId: string): string {
  return JSON.stringify({ async: asyncUrl, error, message, request_id: requestId });
}

export const ttsErrorShape: ServiceErrorShape = {
  service: 'tts',
  platform: TtsErrors,
  render(entry: CatalogueEntry, message: string, details?: unknown) {
    const requestId = (details as { requestId?: string } | undefined)?.requestId ?? '';
    return { async: '', error: Number(entry.code), message, request_id: requestId };
  },
};
