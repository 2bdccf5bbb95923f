import { defineCatalogue, type ServiceErrorShape } from '../platform/http/errors.js';
import { fastifyStyleBody, fastifyStyleConditions } from '../platform/http/service.js';

/**
 * The training-data service's errors. The spec shows no error bodies, so we
 * answer in fastify's own shape plus a stable `code`, with real HTTP statuses.
 */
export const NluErrors = defineCatalogue({
  ...fastifyStyleConditions,
  unauthorized: { code: 'UNAUTHORIZED', message: 'Missing or invalid bearer token', status: 401 },

  sampleNotFound: { code: 'SAMPLE_NOT_FOUND', message: 'Sample not found', status: 404 },
  entityNotFound: { code: 'ENTITY_NOT_FOUND', message: 'Entity not found', status: 404 },
  intentNotFound: { code: 'INTENT_NOT_FOUND', message: 'Intent not found', status: 404 },
  intentSampleNotFound: { code: 'INTENT_SAMPLE_NOT_FOUND', message: 'Intent-sample mapping not found', status: 404 },
  entitySampleNotFound: { code: 'ENTITY_SAMPLE_NOT_FOUND', message: 'Entity-sample mapping not found', status: 404 },

  emptyContent: { code: 'EMPTY_CONTENT', message: 'Sample content must not be empty', status: 400 },
  invalidLabel: { code: 'INVALID_LABEL', message: 'Labels may only use a-z, 0-9 and _', status: 400 },
  invalidEntityType: { code: 'INVALID_ENTITY_TYPE', message: 'Entity type must be 1, 2 or 3', status: 400 },
  invalidSpan: { code: 'INVALID_SPAN', message: 'start and end must lie inside the sample, start < end', status: 400 },
  valueMismatch: { code: 'VALUE_MISMATCH', message: 'value must equal the sample text between start and end', status: 400 },
  invalidImport: { code: 'INVALID_IMPORT', message: 'Import body must be an array of {intent, sample}', status: 400 },

  historyNotFound: { code: 'HISTORY_NOT_FOUND', message: 'History entry not found', status: 404 },
  inboxItemNotFound: { code: 'INBOX_ITEM_NOT_FOUND', message: 'The inbox holds no such prediction', status: 404 },
  sampleOriginNotFound: { code: 'SAMPLE_ORIGIN_NOT_FOUND', message: 'The sample was not made from a saved prediction', status: 404 },
  reportNotFound: { code: 'REPORT_NOT_FOUND', message: 'No cross-validated report for this model', status: 404 },
  keywordNotFound: { code: 'KEYWORD_NOT_FOUND', message: 'The entity lists no such value', status: 404 },
  notEnoughData: { code: 'NOT_ENOUGH_DATA', message: 'Too little training data to learn from', status: 400 },
  invalidThreshold: { code: 'INVALID_THRESHOLD', message: 'threshold must be a number from 0 to 1', status: 400 },
  noModel: { code: 'MODEL_NOT_TRAINED', message: 'No trained model yet: POST /api/v3/train first and wait for status 2', status: 409 },

  entityLabelTaken: { code: 'ENTITY_LABEL_TAKEN', message: 'An entity with this label already exists', status: 409 },
  intentLabelTaken: { code: 'INTENT_LABEL_TAKEN', message: 'An intent with this label already exists', status: 409 },
  sampleHasIntent: { code: 'SAMPLE_HAS_INTENT', message: 'The sample is already mapped to an intent', status: 409 },
  duplicateEntitySample: {
    code: 'DUPLICATE_ENTITY_SAMPLE',
    message: 'This entity is already tagged at this position of the sample',
    status: 409,
  },
});

export const nluErrorShape: ServiceErrorShape = {
  service: 'nlu',
  platform: NluErrors,
  render: fastifyStyleBody,
};
