/** A feature vector: named numbers, null where the value is unknown (the scorecard has a bin for missing). */
export type Features = Record<string, number | null>;

export const SOURCE_NAMES = ['alpha', 'beta', 'gamma'] as const;
export type SourceName = (typeof SOURCE_NAMES)[number];

/**
 * A data source has one job: the features of a phone number as of a decision
 * time, computed only from data timestamped before it. `null` means the
 * source knows nothing about the number (its score is then -1).
 */
export interface FeatureSource {
  readonly name: SourceName;
  /** What backs it, for /readyz and logs ("feature store (sqlite)", "none", "http https://..."). */
  readonly engine: string;
  features(appCode: string, phone: string, decisionTime: Date): Promise<Features | null>;
}

/** A source with no data configured: knows nothing about any number, as beta and gamma today. */
export class NoDataSource implements FeatureSource {
  readonly engine = 'none (no data configured)';
  constructor(readonly name: SourceName) {}
  async features(): Promise<Features | null> {
    return null;
  }
}
