import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { requireApiKey } from '../platform/auth/hooks.js';
import type { Credentials } from '../platform/auth/credentials.js';
import { useServiceErrors } from '../platform/http/service.js';
import type { CreditConfig } from './config.js';
import { creditErrorShape } from './errors.js';
import { parseScoreQuery, type CreditService } from './service.js';

export interface CreditRoutesOptions {
  service: CreditService;
  credentials: Credentials;
  config: CreditConfig;
}

const Text = (description: string) => Type.Optional(Type.String({ description }));

/** HTTP adapter of /dmp/creditscoring: the route checks the key, parses the query and calls the service. */
export async function creditRoutes(scope: FastifyInstance, opts: CreditRoutesOptions): Promise<void> {
  useServiceErrors(scope, creditErrorShape);
  scope.addHook('onRequest', requireApiKey(opts.credentials));
  scope.get(
    '/v1',
    {
      schema: {
        tags: ['Credit scoring'],
        security: [{ apiKey: [] }],
        description:
          'Scores a phone number from the asked data sources. Answers phone (84xxxxxxxxx), score (mean of the per-source scores ' +
          'that are not -1; -1 when all are), alpha_score, beta_score, gamma_score (probability of repaying in [0, 1], or -1 ' +
          'when the source has no data or was not asked), reasons (top factors per scored source) and models (model versions).',
        // Everything is read as text and checked by the service, so each mistake gets its own error code.
        querystring: Type.Object({
          phone: Text('phone number in any written form (+84, 84, 0...; spaces, dots, dashes)'),
          dltype: Text('1 consumer loan, 2 cash loan (required)'),
          source: Text('0 all (default), 1 alpha, 2 beta, 3 gamma'),
          decision_time: Text('Unix seconds (default now); only data from before it is used'),
        }),
      },
    },
    (request) => opts.service.score(request.appCode, parseScoreQuery(request.query as Record<string, unknown>, opts.config)),
  );
}
