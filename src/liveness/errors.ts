import { apiKeyPlatformEntries, defineCatalogue, type CatalogueEntry, type PlatformCondition, type ServiceErrorShape } from '../platform/http/errors.js';

/**
 * Liveness (/dmp/checklive/v2, /dmp/liveness/v3): the spec's code table.
 * Every outcome answers HTTP 200 with the code in the body; the v2 and v3
 * bodies are built in responses.ts. One entry per outcome,
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
  // v3's outcomes after a successful analysis (the original's integration guide); 302 is never answered: no deepfake detector.
  spoof: { code: 301, message: 'Face in video is spoof', status: 200 },
  deepfake: { code: 302, message: 'Video seems like deepfake', status: 200 },
  faceMismatch: { code: 303, message: 'face is not matching with document', status: 200 },
});

/** v3's top-level (and sub-object) texts per code, as the original's integration guide words them. */
export const LIVENESS_V3_TEXT: Record<string, string> = {
  '200': 'request successful',
  '301': 'Face in video is spoof',
  '302': 'Video seems like deepfake',
  '303': 'face is not matching with document',
  '406': 'Face quality is not good enough (covered, too dark/bright..)',
  '407': 'No faces detected in document',
  '408': 'More than 1 face in the video',
  '409': 'Invalid upload image',
  '410': 'No face/Lost face in the video',
  '411': 'The face is too small',
  '412': 'The face is too blurry',
  '413': 'Video may seem like image',
  '422': 'No frontal face in video',
  '423': 'Face is out of frame during video',
};

/** v3's sub-messages when a part succeeded. */
export const LIVENESS_V3_OK = { liveness: 'liveness check successful', faceMatch: 'face matching successful' } as const;

/** v3's warning below HD (the guide's text), for a video or for selfie images. */
export const lowResolutionWarning = (what: 'video' | 'image') => `Resolution of ${what} is too low. Please upload ${what} with at least HD resolution to ensure accuracy`;

/** The envelope message: a success text even when the code is an error code (spec). */
export const LIVENESS_MESSAGE = 'request successful.';

const mb = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;

/** The platform's conditions for liveness: an upload over its limit is invalid input (409), never 413, which means "the video is a still image". */
function livenessPlatform(limits: UploadLimits): Record<PlatformCondition, CatalogueEntry> {
  return {
    ...apiKeyPlatformEntries('Liveness'),
    bodyTooLarge: {
      code: 409,
      message: `Invalid upload: the video may be at most ${mb(limits.maxVideoBytes)}, the cmnd image at most ${mb(limits.maxImageBytes)}`,
      status: 200,
    },
  };
}

export interface UploadLimits {
  maxVideoBytes: number;
  maxImageBytes: number;
}

const NA = 'N/A';

/** Platform errors (401, 409 for too large an upload, 429, 500) in each version's shape. */
export function livenessErrorShape(version: 2 | 3, limits: UploadLimits): ServiceErrorShape {
  if (version === 2) {
    // v2: `{code, message, data}`, as v2's 408-410 carry a data string.
    return {
      service: 'liveness-v2',
      platform: livenessPlatform(limits),
      render: (entry, message) => ({ code: String(entry.code), message: LIVENESS_MESSAGE, is_live: false, need_to_review: false, data: message }),
    };
  }
  // v3: every value a string, the reason in `liveness.message`.
  return {
    service: 'liveness-v3',
    platform: livenessPlatform(limits),
    render: (entry, message) => {
      const code = String(entry.code);
      // The top-level code and message carry the outcome (the guide); the reason stays in liveness.message.
      const text = LIVENESS_V3_TEXT[code] ?? message;
      return {
        code,
        message: text,
        liveness: { code, message, is_live: NA, spoof_prob: NA, need_to_review: NA, is_deepfake: NA, deepfake_prob: NA, warning: NA },
        face_match:
          code === '409' ? { code, message: text, isMatch: NA, similarity: NA, warning: NA } : { code: NA, message: NA, isMatch: NA, similarity: NA, warning: NA },
      };
    },
  };
}
