/**
 * The eKYC review desk and webhook settings under /console/api/apps/:code/ekyc,
 * inside the console's scope (its sign-in, CSRF and error shape). The desk
 * itself is the eKYC service's (src/ekyc/review.ts); every call names the
 * application, and a session or image of another application is not found.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { ReviewDeskError, WebhookSettingsError, type ReviewDesk, type SessionQuery } from '../ekyc/index.js';
import { sendBlob } from '../platform/blobs/http.js';
import { ServiceError } from '../platform/http/errors.js';
import { ConsoleErrors } from './errors.js';
import type { ConsoleService } from './service.js';

export interface EkycDeskRoutesOptions {
  desk: ReviewDesk;
  service: ConsoleService;
}

const Decision = Type.Object({ decision: Type.String(), reason: Type.String(), reviewer: Type.String() });
const Webhook = Type.Object({ url: Type.String({ minLength: 1 }), secret: Type.Optional(Type.String()) });
const Query = Type.Object({
  status: Type.Optional(Type.String()),
  needs_review: Type.Optional(Type.String()),
  document_type: Type.Optional(Type.String()),
  from: Type.Optional(Type.String()),
  to: Type.Optional(Type.String()),
  before: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String()),
});
const Viewer = Type.Object({ viewer: Type.Optional(Type.String({ maxLength: 100 })) });

type App = { Params: { code: string } };
type Session = { Params: { code: string; id: string } };

const ENTRY = { not_found: ConsoleErrors.notFound, invalid: ConsoleErrors.invalid, conflict: ConsoleErrors.conflict } as const;

/** The desk's refusals and a refused webhook URL in the console's shape. */
async function desk<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof ReviewDeskError) throw new ServiceError(ENTRY[err.kind], err.message);
    if (err instanceof WebhookSettingsError) throw new ServiceError(ConsoleErrors.invalid, err.message);
    throw err;
  }
}

export async function ekycDeskRoutes(scope: FastifyInstance, opts: EkycDeskRoutesOptions): Promise<void> {
  const { service } = opts;
  /** The application's code once it exists (404 otherwise). */
  const app = async (code: string) => (await service.application(code)).app_code;

  scope.get<App & { Querystring: Static<typeof Query> }>('/apps/:code/ekyc/sessions', { schema: { querystring: Query } }, async (request) =>
    desk(async () => opts.desk.sessions(await app(request.params.code), request.query as SessionQuery)),
  );

  scope.get<Session & { Querystring: Static<typeof Viewer> }>('/apps/:code/ekyc/sessions/:id', { schema: { querystring: Viewer } }, async (request) =>
    desk(async () => opts.desk.session(await app(request.params.code), request.params.id, request.query.viewer?.trim() || 'console')),
  );

  scope.get<{ Params: { code: string; id: string; image: string } }>('/apps/:code/ekyc/sessions/:id/images/:image', async (request, reply) => {
    const key = await desk(async () => opts.desk.imageKey(await app(request.params.code), request.params.id, request.params.image));
    // The person's photos are not kept by the browser's cache beyond the page.
    reply.header('cache-control', 'private, no-store');
    if (!(await sendBlob(request, reply, opts.desk.blobs, key, 'image/jpeg'))) throw new ServiceError(ConsoleErrors.notFound, 'The image is no longer stored');
    return reply;
  });

  scope.post<Session & { Body: Static<typeof Decision> }>('/apps/:code/ekyc/sessions/:id/review', { schema: { body: Decision } }, async (request) =>
    desk(async () => opts.desk.decide(await app(request.params.code), request.params.id, request.body)),
  );

  scope.get<App & { Querystring: { session?: string } }>('/apps/:code/ekyc/audit', async (request) =>
    desk(async () => opts.desk.auditTrail(await app(request.params.code), request.query.session)),
  );

  scope.get<App>('/apps/:code/ekyc/deliveries', async (request) => desk(async () => opts.desk.deliveries(await app(request.params.code))));

  scope.get<App>('/apps/:code/ekyc/webhook', async (request) => desk(async () => opts.desk.webhook(await app(request.params.code))));

  scope.put<App & { Body: Static<typeof Webhook> }>('/apps/:code/ekyc/webhook', { schema: { body: Webhook } }, async (request) =>
    desk(async () => opts.desk.setWebhook(await app(request.params.code), request.body.url, request.body.secret, 'console')),
  );

  scope.delete<App>('/apps/:code/ekyc/webhook', async (request) => desk(async () => opts.desk.removeWebhook(await app(request.params.code), 'console')));
}
