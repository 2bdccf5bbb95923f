import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requireApiKey } from '../platform/auth/hooks.js';
import type { Credentials } from '../platform/auth/credentials.js';
import { useServiceErrors } from '../platform/http/service.js';
import { livenessV2ErrorShape, livenessV3ErrorShape, matchErrorShape, searchErrorShape } from './errors.js';
import { readForm } from './form.js';
import type { FaceMatchService, FaceSearchService } from './service.js';
import { renderV2, renderV3 } from './liveness/responses.js';
import type { LivenessService, LivenessVersion } from './liveness/service.js';

interface Common {
  credentials: Credentials;
  maxImageBytes: number;
}

async function useMultipart(scope: FastifyInstance, maxImageBytes: number): Promise<void> {
  await scope.register(multipart, {
    limits: { fileSize: maxImageBytes, files: 4, fields: 40, fieldSize: 64 * 1024, parts: 50, headerPairs: 200 },
    throwFileSizeLimit: true,
  });
}

const tags = ['Face search'];

/** /dmp/facesearch/v2: answers `{code, data}`; parameters as multipart or urlencoded form (also the query). */
export async function faceSearchRoutes(scope: FastifyInstance, opts: Common & { service: FaceSearchService }): Promise<void> {
  useServiceErrors(scope, searchErrorShape);
  scope.addHook('onRequest', requireApiKey(opts.credentials));
  await useMultipart(scope, opts.maxImageBytes);
  const { service } = opts;
  const bodyLimit = opts.maxImageBytes + 1024 * 1024;
  const ok = (data: unknown) => ({ code: '200', data });
  const file = async (req: FastifyRequest) => {
    const form = await readForm(req);
    return { fields: form.fields, file: form.files.find((f) => f.field === 'file') ?? form.files[0] };
  };
  const schema = { tags, summary: '' };

  scope.post('/create', { schema: { ...schema, summary: 'Create or update a user' }, bodyLimit }, async (req) => ok(await service.create(req.appCode, (await readForm(req)).fields)));
  scope.post('/add', { schema: { ...schema, summary: "Index a face image for a user" }, bodyLimit }, async (req) => {
    const { fields, file: f } = await file(req);
    return ok(await service.add(req.appCode, fields, f));
  });
  scope.post('/search', { schema: { ...schema, summary: 'Search a collection for a face' }, bodyLimit }, async (req) => {
    const { fields, file: f } = await file(req);
    return ok(await service.search(req.appCode, fields, f));
  });
  scope.delete('/delete_faces', { schema: { ...schema, summary: "Remove a user's faces" }, bodyLimit }, async (req) => ok(await service.deleteFaces(req.appCode, (await readForm(req)).fields)));
  scope.delete('/delete', { schema: { ...schema, summary: 'Delete a user' }, bodyLimit }, async (req) => ok(await service.deleteUser(req.appCode, (await readForm(req)).fields)));
  scope.get('/list', { schema: { ...schema, summary: 'List the users of a collection' } }, async (req) => ok(await service.list(req.appCode, (await readForm(req)).fields)));
  scope.delete('/delete_collection', { schema: { ...schema, summary: 'Delete a collection' }, bodyLimit }, async (req) =>
    ok(await service.deleteCollection(req.appCode, (await readForm(req)).fields)),
  );
}

/** /dmp/checkface/v1: two `file[]` JPEG or PNG photos -> `{code, message, data: {isMatch, similarity, isBothImgIDCard}}`. */
export async function faceMatchRoutes(scope: FastifyInstance, opts: Common & { service: FaceMatchService }): Promise<void> {
  useServiceErrors(scope, matchErrorShape);
  scope.addHook('onRequest', requireApiKey(opts.credentials));
  await useMultipart(scope, opts.maxImageBytes);
  scope.post('/', { schema: { tags: ['Face match'], summary: 'Compare the faces of two images' }, bodyLimit: 2 * opts.maxImageBytes + 1024 * 1024 }, async (req) => {
    const form = await readForm(req);
    const data = await opts.service.match(form.files);
    return { code: '200', message: 'request successful.', data };
  });
}

/** The multipart form both liveness versions read, for the OpenAPI document (validation stays with the service). */
const livenessForm = {
  type: 'object',
  required: ['video'],
  properties: {
    video: { type: 'string', format: 'binary', description: 'Selfie video: mov, mp4, mkv, webm or avi; at most 10 MB; v2 5-10 s, v3 5-6 s at 25 fps or more' },
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
      'Codes: 200, 406 (quality), 407 (no face in cmnd, in face_match), 408, 409 (also below 25 fps, outside 5-6 s), 410 (no face or lost), 411, 412, 413, 422 (no frontal face), 423 (face leaves the frame). A resolution below 720p is a warning.',
  },
};

/** /dmp/checklive/v2 and /dmp/liveness/v3: `video` (+ optional `cmnd`) as multipart; the version picks the body shape. */
export async function livenessRoutes(
  scope: FastifyInstance,
  opts: { credentials: Credentials; maxVideoBytes: number; maxImageBytes: number; version: LivenessVersion; service: LivenessService },
): Promise<void> {
  useServiceErrors(scope, opts.version === 2 ? livenessV2ErrorShape : livenessV3ErrorShape);
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
    async (req) => render(await opts.service.check(opts.version, (await readForm(req)).files, {}, req.appCode)),
  );
}
