import { apiKeyPlatformEntries as platform, defineCatalogue, type ServiceErrorShape } from '../platform/http/errors.js';

/**
 * Face search (/dmp/facesearch/v2) answers `{code: "<n>", data: <message>}`:
 * domain outcomes with HTTP 200 and the code in the body (docs/api-contract.md#domain-outcomes-are-http-200).
 */
export const SearchErrors = defineCatalogue({
  wrongFormat: { code: 400, message: 'Wrong format', status: 200 },
  missingField: { code: 400, message: 'Missing required field', status: 200 },
  noFace: { code: 400, message: 'No face detected', status: 200 },
  severalFaces: { code: 400, message: 'Multiple faces detected', status: 200 },
  faceTooSmall: { code: 400, message: 'Face too small', status: 200 },
  faceBlurry: { code: 400, message: 'Face too blurry', status: 200 },
  /** `add` only, when SAOLA_FACE_MIN_ADD_QUALITY is set: the embedding net reads the face poorly (blur, pose, low resolution). */
  lowQuality: { code: 400, message: 'Face quality too low', status: 200 },
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
