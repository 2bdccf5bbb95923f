import { defineCatalogue, type ServiceErrorShape } from '../platform/http/errors.js';
import { fastifyStyleBody, fastifyStyleConditions } from '../platform/http/service.js';

/**
 * The credit-scoring errors. The spec shows no error body ("not shown"), so we
 * answer like the other spec-less service: fastify's shape plus a stable
 * `code`, with real HTTP statuses (a bad query is 400).
 */
export const CreditErrors = defineCatalogue({
  ...fastifyStyleConditions,
  unauthorized: { code: 'UNAUTHORIZED', message: 'Missing or invalid api_key', status: 401 },

  invalidPhone: { code: 'INVALID_PHONE', message: 'phone is not a Vietnamese mobile number', status: 400 },
  invalidDltype: { code: 'INVALID_DLTYPE', message: 'dltype is required: 1 (consumer loan) or 2 (cash loan)', status: 400 },
  invalidSource: { code: 'INVALID_SOURCE', message: 'source must be 0 (all), 1 (alpha), 2 (beta) or 3 (gamma)', status: 400 },
  invalidDecisionTime: { code: 'INVALID_DECISION_TIME', message: 'decision_time must be a Unix timestamp in seconds', status: 400 },
  decisionTimeInFuture: { code: 'DECISION_TIME_IN_FUTURE', message: 'decision_time is in the future', status: 400 },
});

export const creditErrorShape: ServiceErrorShape = {
  service: 'credit',
  platform: CreditErrors,
  render: fastifyStyleBody,
};
