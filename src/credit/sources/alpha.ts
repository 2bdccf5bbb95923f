import type { AlphaEventType } from '../schema.js';
import type { CreditStore } from '../store.js';
import { alphaFeatures } from './alpha-features.js';
import type { Features, FeatureSource } from './source.js';

/** Alpha: the feature store in Saola's own database, filled by `saola credit import alpha`. */
export class AlphaFeatureStore implements FeatureSource {
  readonly name = 'alpha' as const;
  readonly engine: string;

  constructor(
    private readonly store: CreditStore,
    dialect: string,
  ) {
    this.engine = `feature store (${dialect})`;
  }

  async features(appCode: string, phone: string, decisionTime: Date): Promise<Features | null> {
    const rows = await this.store.eventsBefore(appCode, phone, decisionTime);
    const events = rows.map((r) => ({
      type: r.event_type as AlphaEventType,
      time: Date.parse(r.occurred_at),
      amount: r.amount === null ? null : Number(r.amount),
      daysLate: r.days_late === null ? null : Number(r.days_late),
    }));
    return alphaFeatures(events, decisionTime.getTime());
  }
}
