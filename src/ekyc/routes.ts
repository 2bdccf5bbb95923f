/**
 * HTTP adapter of the full flow: POST /session/init, POST /ocr, POST
 * /face/liveness, each in its own scope for its body shape (errors.ts). The
 * flow's inputs are headers (read with `-` or `_` alike) and a multipart form.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Credentials } from '../platform/auth/credentials.js';
import { requireApiKey } from '../platform/auth/hooks.js';
import { readForm, useMultipart } from '../platform/http/form.js';
import { useServiceErrors } from '../platform/http/service.js';
import { EkycError, initErrorShape, livenessErrorShape, OcrErrors, ocrErrorShape, type Lang } from './errors.js';
import type { EkycService } from './service.js';
import { FlowSettingsSchema, type FlowSettingsApi } from './settings.js';

export interface EkycRoutesOptions {
  service: EkycService;
  settings: FlowSettingsApi;
  credentials: Credentials;
  maxImageBytes: number;
}

/** A header by its name with `-` or `_`. */
function header(request: FastifyRequest, name: string): string | undefined {
  for (const spelling of [name, name.replace(/-/g, '_')]) {
    const v = request.headers[spelling];
    const text = Array.isArray(v) ? v[0] : v;
    if (text?.trim()) return text.trim();
  }
  return undefined;
}

/** `lang`: en by default; another value is the guide's invalid country code. */
function langOf(request: FastifyRequest): Lang {
  const lang = header(request, 'lang')?.toLowerCase();
  if (lang === undefined || lang === 'en') return 'en';
  if (lang === 'vi') return 'vi';
  throw new EkycError(OcrErrors.countryCode);
}

const tags = ['eKYC'];
const security = [{ apiKey: [] }];

export async function ekycRoutes(root: FastifyInstance, opts: EkycRoutesOptions): Promise<void> {
  const { service } = opts;
  const auth = requireApiKey(opts.credentials);
  const documentForm = { validatorCompiler: () => () => true };

  await root.register(
    async (scope) => {
      useServiceErrors(scope, initErrorShape);
      scope.post(
        '/init',
        { onRequest: auth, schema: { tags, security, summary: 'Start an eKYC session (headers device-type, optional client_uuid)' } },
        async (request) => service.init(request.appCode, header(request, 'device-type')?.toLowerCase(), header(request, 'client_uuid')),
      );
      const summary = "The calling application's flow settings: sdk_config, selfie attempts, lifetime, retention, fraud memory (docs/ekyc.md)";
      scope.get('/settings', { onRequest: auth, schema: { tags, security, summary } }, async (request) => opts.settings.view(request.appCode));
      scope.put(
        '/settings',
        // Checked by the service rather than by the route's validator, which would drop unknown fields instead of naming them.
        {
          onRequest: auth,
          validatorCompiler: () => () => true,
          schema: { tags, security, summary: 'Replace the overrides of those settings (and, when sent, allowed_origins)', body: FlowSettingsSchema },
        },
        async (request) => opts.settings.replace(request.appCode, request.body),
      );
    },
    { prefix: '/session' },
  );

  await root.register(
    async (scope) => {
      useServiceErrors(scope, ocrErrorShape);
      await useMultipart(scope, opts.maxImageBytes);
      scope.post(
        '',
        {
          onRequest: auth,
          bodyLimit: 2 * opts.maxImageBytes + 1024 * 1024,
          ...documentForm,
          schema: { tags, security, summary: "Read a session's document: headers session-id, device-type, document-type, side-type, lang; form files" },
        },
        async (request) => {
          const lang = langOf(request);
          const form = await readForm(request);
          return service.ocr(request.appCode, {
            sessionId: header(request, 'session-id'),
            deviceType: header(request, 'device-type')?.toLowerCase(),
            documentType: header(request, 'document-type'),
            sideType: header(request, 'side-type')?.toLowerCase(),
            lang,
            files: form.files.filter((f) => f.field === 'files' || f.field === 'files[]').map((f) => f.data),
          });
        },
      );
    },
    { prefix: '/ocr' },
  );

  await root.register(
    async (scope) => {
      useServiceErrors(scope, livenessErrorShape);
      await useMultipart(scope, opts.maxImageBytes);
      scope.post(
        '/liveness',
        {
          onRequest: auth,
          bodyLimit: 5 * opts.maxImageBytes + 1024 * 1024,
          ...documentForm,
          schema: { tags, security, summary: "A session's selfie: liveness and the match with the document (headers session-id, device-type, auto, lang; form selfies)" },
        },
        async (request) => {
          const lang = langOf(request);
          const form = await readForm(request);
          return service.selfie(request.appCode, {
            sessionId: header(request, 'session-id'),
            deviceType: header(request, 'device-type')?.toLowerCase(),
            lang,
            files: form.files,
          });
        },
      );
    },
    { prefix: '/face' },
  );
}
