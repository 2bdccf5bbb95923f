/** Row types of the liveness tables. */

export interface LivenessThresholdRow {
  /** An application's code, or `*` for every application without its own. */
  scope: string;
  threshold: number;
  updated_at: string;
}

export type LivenessTables = {
  liveness_thresholds: LivenessThresholdRow;
};
