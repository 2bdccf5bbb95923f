import type { FastifyInstance } from 'fastify';
import type { Credentials } from '../platform/auth/credentials.js';
import { requireApiKey } from '../platform/auth/hooks.js';
import { readForm, useMultipart } from '../platform/http/form.js';
import { useServiceErrors } from '../platform/http/service.js';
import { livenessErrorShape } from './errors.js';
import { renderV2, renderV3 } from './responses.js';
import type { LivenessService, LivenessVersion } from './service.js';

/** The multipart form both liveness versions read, for the OpenAPI document (validation stays with the service). */
const livenessForm = {
  type: 'object',
  properties: {
    video: { type: 'string', format: 'binary', description: 'Selfie video: mov, mp4, mkv, webm or avi; at most 10 MB; v2 5-10 s, v3 5-6 s at 25 fps or more' },
    selfies: { type: 'string', format: 'binary', description: 'v3: one or more selfie images (jpg/png, at most 5 MB each) instead of a video' },
    cmnd: { type: 'string', format: 'binary', description: 'Optional ID card photo or portrait (jpg/png, at most 5 MB) compared with the straightest face of the video' },
  },
};

const livenessDoc: Record<LivenessVersion, { summary: string; description: string }> = {
  2: {
    summary: 'Liveness from a selfie video (v2)',
    description:
      'Answers HTTP 200 with `{code, message, is_live, prob, need_to_review, deepfake_prob, face_match | face_match_error}` (prob: live probability as a string). ' +
      'Codes: 200, 407 (no face in cmnd, in face_match_error), 408 (several faces), 409 (no video, wrong extension or container, duration, corrupted), 410 (no face, or lost), 411 (too small), 412 (blurry), 413 (still image). ' +
      '408-410 carry `data`; 411-413 only code, message, is_live, need_to_review. is_deepfake is absent and deepfake_prob "N/A": no deepfake detector is available.',
  },
  3: {
    summary: 'Liveness from a selfie video (v3)',
    description:
      'Answers HTTP 200 with `{code, message, liveness: {code, message, is_live, spoof_prob, need_to_review, is_deepfake, deepfake_prob, warning}, face_match: {code, message, isMatch, similarity, warning}}`, every value a string, "N/A" where it does not apply. ' +
      'The top-level code and message carry the outcome: 200, 301 (face is spoof), 303 (face not matching cmnd), 406 (quality), 407 (no face in cmnd), 408, 409 (also below 25 fps, outside 5-6 s), 410 (no face or lost), 411, 412, 413, 422 (no frontal face), 423 (face leaves the frame). A resolution below 720p is a warning. ' +
      "`selfies` (images) may replace `video`; `?v2_format=1` answers in v2's shape.",
  },
};

/** /dmp/checklive/v2 and /dmp/liveness/v3: `video` (+ optional `cmnd`) as multipart; the version picks the body shape. */
export async function livenessRoutes(
  scope: FastifyInstance,
  opts: { credentials: Credentials; maxVideoBytes: number; maxImageBytes: number; version: LivenessVersion; service: LivenessService },
): Promise<void> {
  useServiceErrors(scope, livenessErrorShape(opts.version, opts));
  scope.addHook('onRequest', requireApiKey(opts.credentials));
  await useMultipart(scope, opts.maxVideoBytes);
  const render = opts.version === 2 ? renderV2 : renderV3;
  scope.post(
    '/',
    {
      schema: { tags: ['Liveness'], ...livenessDoc[opts.version], consumes: ['multipart/form-data'], body: livenessForm },
      // The body schema documents the form; the parts are read (and checked) by the handler, so nothing validates it here.
      validatorCompiler: () => () => true,
      bodyLimit: opts.maxVideoBytes + opts.maxImageBytes + 1024 * 1024,
    },
    async (req) => {
      const result = await opts.service.check(opts.version, (await readForm(req)).files, {}, req.appCode);
      // v3 checks by v3's rules; `?v2_format=1` only changes the answer's shape (the guide).
      const v2Format = opts.version === 3 && (req.query as Record<string, unknown> | undefined)?.v2_format === '1';
      return v2Format ? renderV2(result) : render(result);
    },
  );
}
