import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requireApiKey } from '../platform/auth/hooks.js';
import type { Credentials } from '../platform/auth/credentials.js';
import { useServiceErrors } from '../platform/http/service.js';
import { readForm, useMultipart } from '../platform/http/form.js';
import { matchErrorShape, searchErrorShape } from './errors.js';
import type { FaceMatchService, FaceSearchService } from './service.js';

interface Common {
  credentials: Credentials;
  maxImageBytes: number;
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

  scope.post('/create', { schema: { ...schema, summary: 'Create or update a user' }, bodyLimit }, async (req) =>
    ok(await service.create(req.appCode, (await readForm(req)).fields)),
  );
  scope.post('/add', { schema: { ...schema, summary: 'Index a face image for a user' }, bodyLimit }, async (req) => {
    const { fields, file: f } = await file(req);
    return ok(await service.add(req.appCode, fields, f));
  });
  scope.post('/search', { schema: { ...schema, summary: 'Search a collection for a face' }, bodyLimit }, async (req) => {
    const { fields, file: f } = await file(req);
    return ok(await service.search(req.appCode, fields, f));
  });
  scope.delete('/delete_faces', { schema: { ...schema, summary: "Remove a user's faces" }, bodyLimit }, async (req) =>
    ok(await service.deleteFaces(req.appCode, (await readForm(req)).fields)),
  );
  scope.delete('/delete', { schema: { ...schema, summary: 'Delete a user' }, bodyLimit }, async (req) =>
    ok(await service.deleteUser(req.appCode, (await readForm(req)).fields)),
  );
  scope.get('/list', { schema: { ...schema, summary: 'List the users of a collection' } }, async (req) =>
    ok(await service.list(req.appCode, (await readForm(req)).fields)),
  );
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
