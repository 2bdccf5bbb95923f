import { defineCatalogue, type CatalogueEntry, type PlatformCondition, type ServiceErrorShape } from '../platform/http/errors.js';

/**
 * Face search (/dmp/facesearch/v2) answers `{code: "<n>", data: <message>}`:
 * domain outcomes with HTTP 200 and the code in the body (DECISIONS.md).
 */
export const SearchErrors = defineCatalogue({
  wrongFormat: { code: 400, message: 'Wrong format', status: 200 },
  missingField: { code: 400, message: 'Missing required field', status: 200 },
  noFace: { code: 400, message: 'No face detected', status: 200 },
  severalFaces: { code: 400, message: 'Multiple faces detected', status: 200 },
  faceTooSmall: { code: 400, message: 'Face too small', status: 200 },
  faceBlurry: { code: 400, message: 'Face too blurry', status: 200 },
  notFound: { code: 404, message: 'Not found', status: 200 },
  occluded: { code: 406, message: 'Face is covered by a mask, hat or sunglasses', status: 200 },
  idCard: { code: 410, message: 'Photo is id card', status: 200 },
});

/** Face match (/dmp/checkface/v1) answers `{code, message: "request successful.", data}`. */
export const MatchErrors = defineCatalogue({
  noFace: { code: 407, message: 'No faces detected', status: 200 },
  /** The guide's 407 row reads "No faces/more than 1 face detected"; its samples only show the no-face text. */
  severalFaces: { code: 407, message: 'No faces/more than 1 face detected', status: 200 },
  wrongType: { code: 408, message: 'Allowed mime types are image/jpeg, image/png', status: 200 },
  wrongCount: { code: 409, message: 'Please upload only 2 images for face check', status: 200 },
});

const platform = (prefix: string): Record<PlatformCondition, CatalogueEntry> => ({
  unauthorized: { code: 401, message: 'Missing or invalid api_key', status: 401 },
  bodyTooLarge: { code: 413, message: `${prefix}: file larger than 5 MB`, status: 413 },
  busy: { code: 429, message: 'Too many requests; try again shortly', status: 429 },
  invalidRequest: { code: 400, message: 'Invalid request', status: 400 },
  routeNotFound: { code: 404, message: 'Route not found', status: 404 },
  methodNotAllowed: { code: 405, message: 'Method not allowed', status: 405 },
  internal: { code: 500, message: 'Internal error; it has been logged', status: 500 },
});

export const searchErrorShape: ServiceErrorShape = {
  service: 'face-search',
  platform: platform('Face search'),
  render: (entry, message) => ({ code: String(entry.code), data: message }),
};

export const matchErrorShape: ServiceErrorShape = {
  service: 'face-match',
  platform: platform('Face match'),
  render: (entry, message) => ({ code: String(entry.code), message: 'request successful.', data: message }),
};

/**
 * Liveness (/dmp/checklive/v2, /dmp/liveness/v3): the spec's code table.
 * Every outcome answers HTTP 200 with the code in the body; the v2 and v3
 * bodies are built in src/face/liveness/responses.ts. One entry per outcome,
 * so a code that differs between versions (410 vs 423) stays one lookup.
 */
export const LivenessErrors = defineCatalogue({
  ok: { code: 200, message: 'Success', status: 200 },
  poorQuality: { code: 406, message: 'Face quality is not good enough (covered, too dark or too bright)', status: 200 },
  cmndNoFace: { code: 407, message: 'No faces detected', status: 200 },
  severalFaces: { code: 408, message: 'More than one face in the video', status: 200 },
  invalidVideo: { code: 409, message: 'No video uploaded or wrong extension; allowed extensions mov, mp4, mkv, webm', status: 200 },
  noFace: { code: 410, message: 'No face detected in the video', status: 200 },
  faceLost: { code: 410, message: 'The face was lost during the video', status: 200 },
  faceTooSmall: { code: 411, message: 'Face too small', status: 200 },
  faceBlurry: { code: 412, message: 'Face too blurry', status: 200 },
  stillImage: { code: 413, message: 'The video is a still image', status: 200 },
  notFrontal: { code: 422, message: 'No frontal face in the video', status: 200 },
  faceLeftFrame: { code: 423, message: 'The face leaves the frame during the video', status: 200 },
});

/** The envelope message: a success text even when the code is an error code (spec). */
export const LIVENESS_MESSAGE = 'request successful.';

const livenessPlatform: Record<PlatformCondition, CatalogueEntry> = {
  ...platform('Liveness'),
  bodyTooLarge: { code: 413, message: 'Liveness: upload larger than allowed (video 10 MB, cmnd 5 MB)', status: 413 },
};

/** v2 platform errors (401, 413, 429, 500): `{code, message, data}`, as v2's 408-410 carry a data string. */
export const livenessV2ErrorShape: ServiceErrorShape = {
  service: 'liveness-v2',
  platform: livenessPlatform,
  render: (entry, message) => ({ code: String(entry.code), message: LIVENESS_MESSAGE, is_live: false, need_to_review: false, data: message }),
};

const NA = 'N/A';

/** v3 platform errors: the v3 shape, every value a string, the reason in `liveness.message`. */
export const livenessV3ErrorShape: ServiceErrorShape = {
  service: 'liveness-v3',
  platform: livenessPlatform,
  render: (entry, message) => ({
    code: String(entry.code),
    message: LIVENESS_MESSAGE,
    liveness: { code: String(entry.code), message, is_live: NA, spoof_prob: NA, need_to_review: NA, is_deepfake: NA, deepfake_prob: NA, warning: NA },
    face_match: { code: NA, message: NA, isMatch: NA, similarity: NA, warning: NA },
  }),
};
