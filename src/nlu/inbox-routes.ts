import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import {
  HistorySettings,
  HistorySettingsBody,
  InboxIdsBody,
  InboxItem,
  InboxLabelBody,
  InboxLabelResult,
  InboxPage,
  InboxQuery,
  InboxReportBody,
  InboxResolved,
  InboxStats,
  InboxStatsQuery,
  ModelReport,
  ModelReportQuery,
  ReportCompareQuery,
  ReportComparison,
  SampleOrigin,
} from './api-schemas.js';
import type { ReportService } from './model-report.js';
import type { InboxService } from './inbox.js';
import type { NluService } from './service.js';

const tags = ['NLU inbox'];
const security = [{ bearer: [] }];

/**
 * The inbox's and the model reports' part of /api/v3 (Saola extensions), registered by `nluRoutes` in its scope, so
 * they share its bearer auth and error shapes: each route declares its contract and calls one service method.
 */
export function inboxRoutes(scope: FastifyInstance, inbox: InboxService, service: NluService, reports: ReportService): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/inbox',
    {
      schema: {
        tags,
        security,
        description:
          'Saved predictions that were unsure, hit no intent or were reported, grouped by similarity (largest groups first); `limit` and `offset` page the groups.',
        querystring: InboxQuery,
        response: { 200: InboxPage },
      },
    },
    (req) => inbox.list(req.appCode, req.query),
  );
  app.post(
    '/inbox/report',
    {
      schema: {
        tags,
        security,
        description: "An end user's report that the answer to a saved prediction (its history_id) was wrong.",
        body: InboxReportBody,
        response: { 200: InboxItem },
      },
    },
    (req) => inbox.report(req.appCode, req.body.history_id, req.body.comment),
  );
  app.post(
    '/inbox/label',
    {
      schema: {
        tags,
        security,
        description: 'Labels items as an intent: each becomes a training sample (with its entity spans) that records its origin.',
        body: InboxLabelBody,
        response: { 200: InboxLabelResult },
      },
    },
    (req) => inbox.label(req.appCode, req.body),
  );
  app.post('/inbox/dismiss', { schema: { tags, security, body: InboxIdsBody, response: { 200: InboxResolved } } }, (req) =>
    inbox.resolve(req.appCode, req.body.history_ids, 'dismissed'),
  );
  app.post(
    '/inbox/out-of-scope',
    { schema: { tags, security, description: 'Marks items as what the bot is not meant to answer.', body: InboxIdsBody, response: { 200: InboxResolved } } },
    (req) => inbox.resolve(req.appCode, req.body.history_ids, 'out_of_scope'),
  );
  app.get(
    '/inbox/stats',
    { schema: { tags, security, description: 'Counts per UTC day (30 by default).', querystring: InboxStatsQuery, response: { 200: InboxStats } } },
    (req) => inbox.stats(req.appCode, req.query.days),
  );
  app.get('/inbox/settings', { schema: { tags, security, response: { 200: HistorySettings } } }, (req) => inbox.settings(req.appCode));
  app.put(
    '/inbox/settings',
    {
      schema: {
        tags,
        security,
        description: 'How saved predictions are kept: retention in days (0 keeps them) and masking of personal data before a text is saved.',
        body: HistorySettingsBody,
        response: { 200: HistorySettings },
      },
    },
    (req) => inbox.setSettings(req.appCode, req.body),
  );
  app.get(
    '/sample/:sample_code/origin',
    { schema: { tags, security, params: Type.Object({ sample_code: Type.String({ maxLength: 200 }) }), response: { 200: SampleOrigin } } },
    (req) => service.sampleOrigin(req.appCode, req.params.sample_code),
  );
  const reportTags = ['NLU training and prediction'];
  app.get(
    '/train/report',
    {
      schema: {
        tags: reportTags,
        security,
        description: 'The k-fold cross-validated report of a model version, made by its own job after the model is ready (`state` says whether it is).',
        querystring: ModelReportQuery,
        response: { 200: ModelReport },
      },
    },
    (req) => reports.report(req.appCode, req.query.model_code),
  );
  app.get(
    '/train/report/compare',
    {
      schema: {
        tags: reportTags,
        security,
        description: "What changed between two versions' reports (F1 per intent and entity label, confusion pairs gone and new).",
        querystring: ReportCompareQuery,
        response: { 200: ReportComparison },
      },
    },
    (req) => reports.compare(req.appCode, req.query),
  );
}
