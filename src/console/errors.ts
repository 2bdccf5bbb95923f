import { defineCatalogue, type ServiceErrorShape } from '../platform/http/errors.js';
import { fastifyStyleBody, fastifyStyleConditions } from '../platform/http/service.js';

/** The console API's own answers, in the fastify style the platform uses for routes no spec covers. */
export const ConsoleErrors = defineCatalogue({
  disabled: {
    code: 'CONSOLE_DISABLED',
    message: 'The console is off: set SAOLA_ADMIN_PASSWORD in the server environment and restart to turn it on',
    status: 403,
  },
  signedOut: { code: 'SIGNED_OUT', message: 'Sign in first', status: 401 },
  wrongPassword: { code: 'WRONG_PASSWORD', message: 'Wrong password', status: 401 },
  lockedOut: { code: 'LOCKED_OUT', message: 'Too many failed sign-ins from this address; try again later', status: 429 },
  csrf: { code: 'CSRF', message: 'Missing or wrong X-CSRF-Token header (reload the console)', status: 403 },
  notFound: { code: 'NOT_FOUND', message: 'No such application or credential', status: 404 },
  invalid: { code: 'INVALID_REQUEST', message: 'Invalid request', status: 400 },
  conflict: { code: 'CONFLICT', message: 'Conflict', status: 409 },
  unavailable: { code: 'UNAVAILABLE', message: 'Not offered by this server', status: 503 },
});

export const consoleErrorShape: ServiceErrorShape = {
  service: 'console',
  platform: fastifyStyleConditions,
  render: fastifyStyleBody,
};
