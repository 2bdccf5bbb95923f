import { ServiceError } from '../platform/http/errors.js';
import type { CreditConfig } from './config.js';
import { CreditErrors } from './errors.js';
import { scoreWithContributions, topReasons, type Reason } from './model/scorecard.js';
import type { ModelRegistry } from './model/registry.js';
import { normaliseVietnamMobile } from './phone.js';
import type { Sources } from './sources/index.js';
import { SOURCE_NAMES, type SourceName } from './sources/source.js';

export const DLTYPES = [1, 2] as const;
/** `source` query values: 0 all, 1 alpha, 2 beta, 3 gamma. */
const SOURCE_BY_CODE: Record<string, readonly SourceName[]> = { '0': SOURCE_NAMES, '1': ['alpha'], '2': ['beta'], '3': ['gamma'] };

export interface ScoreQuery {
  phone: string;
  dltype: number;
  sources: readonly SourceName[];
  decisionTime: Date;
}

/** The credit scoring response: the spec's fields, then our extras (reasons, models). */
export interface CreditAnswer {
  phone: string;
  score: number;
  alpha_score: number;
  beta_score: number;
  gamma_score: number;
  /** Per scored source: the factors that moved its score most. */
  reasons: Partial<Record<SourceName, Reason[]>>;
  /** Per scored source: which model version produced the score. */
  models: Partial<Record<SourceName, string>>;
}

interface Logger {
  warn(obj: object, msg: string): void;
}

const round4 = (x: number) => Math.round(x * 1e4) / 1e4;

function single(raw: unknown, name: string): string | undefined {
  if (Array.isArray(raw)) throw new ServiceError(CreditErrors.invalidRequest, `${name} was given more than once`);
  if (raw === undefined || raw === null) return undefined;
  return String(raw).trim();
}

/** Reads and checks the query of GET /dmp/creditscoring/v1. `now` is epoch ms. */
export function parseScoreQuery(query: Record<string, unknown>, config: CreditConfig, now = Date.now()): ScoreQuery {
  const phone = normaliseVietnamMobile(single(query.phone, 'phone') ?? '');
  if (!phone.ok) throw new ServiceError(CreditErrors.invalidPhone, phone.message, { reason: phone.reason });

  const dltypeRaw = single(query.dltype, 'dltype');
  if (!dltypeRaw) throw new ServiceError(CreditErrors.invalidDltype, 'dltype is required: 1 (consumer loan) or 2 (cash loan)');
  if (dltypeRaw !== '1' && dltypeRaw !== '2') {
    throw new ServiceError(CreditErrors.invalidDltype, `dltype must be 1 (consumer loan) or 2 (cash loan), got "${dltypeRaw.slice(0, 20)}"`);
  }

  const sourceRaw = single(query.source, 'source') || '0';
  const sources = SOURCE_BY_CODE[sourceRaw];
  if (!sources) throw new ServiceError(CreditErrors.invalidSource, `source must be 0 (all), 1 (alpha), 2 (beta) or 3 (gamma), got "${sourceRaw.slice(0, 20)}"`);

  const timeRaw = single(query.decision_time, 'decision_time');
  let decisionMs = now;
  if (timeRaw) {
    if (!/^\d{1,15}(\.\d{1,9})?$/.test(timeRaw)) {
      throw new ServiceError(CreditErrors.invalidDecisionTime, `decision_time must be a Unix timestamp in seconds, got "${timeRaw.slice(0, 30)}"`);
    }
    decisionMs = Math.floor(Number(timeRaw) * 1000);
    if (decisionMs > now + config.clockSkewSeconds * 1000) {
      const hint = Number(timeRaw) > 1e11 ? ' (it looks like milliseconds; send seconds)' : '';
      throw new ServiceError(CreditErrors.decisionTimeInFuture, `decision_time ${timeRaw} is in the future (now is ${Math.floor(now / 1000)})${hint}`);
    }
  }
  return { phone: phone.phone, dltype: Number(dltypeRaw), sources, decisionTime: new Date(decisionMs) };
}

/** Scores a phone number from each asked source; a source that knows nothing answers -1. */
export class CreditService {
  constructor(
    private readonly sources: Sources,
    private readonly models: ModelRegistry,
    private readonly config: CreditConfig,
    private readonly log: Logger,
  ) {}

  async score(appCode: string, query: ScoreQuery): Promise<CreditAnswer> {
    const answer: CreditAnswer = { phone: query.phone, score: -1, alpha_score: -1, beta_score: -1, gamma_score: -1, reasons: {}, models: {} };
    const results = await Promise.all(query.sources.map((name) => this.scoreSource(appCode, name, query)));
    for (const result of results) {
      if (!result) continue;
      answer[`${result.source}_score`] = result.score;
      answer.reasons[result.source] = result.reasons;
      answer.models[result.source] = result.model;
    }
    const scored = SOURCE_NAMES.map((s) => answer[`${s}_score`]).filter((s) => s !== -1);
    answer.score = scored.length === 0 ? -1 : round4(scored.reduce((a, b) => a + b, 0) / scored.length);
    return answer;
  }

  private async scoreSource(
    appCode: string,
    name: SourceName,
    query: ScoreQuery,
  ): Promise<{ source: SourceName; score: number; reasons: Reason[]; model: string } | undefined> {
    let features;
    try {
      features = await this.sources[name].features(appCode, query.phone, query.decisionTime);
    } catch (err) {
      // An unreachable external source costs its score, not the whole answer.
      this.log.warn({ source: name, err: (err as Error).message }, 'credit source unavailable; answering -1 for it');
      return undefined;
    }
    if (!features) return undefined;
    const model = await this.models.model(appCode, name, query.dltype);
    if (!model) {
      this.log.warn({ source: name, dltype: query.dltype }, 'credit source has data but no model; answering -1 for it');
      return undefined;
    }
    const { probability, reasons } = scoreWithContributions(model.scorecard, features);
    return { source: name, score: round4(probability), reasons: topReasons(reasons, this.config.reasonCount), model: model.ref };
  }
}
