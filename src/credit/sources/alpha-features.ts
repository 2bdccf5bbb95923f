import type { AlphaEventType } from '../schema.js';
import type { Features } from './source.js';

/** An alpha event as the feature function sees it. */
export interface AlphaEvent {
  type: AlphaEventType;
  /** Epoch milliseconds. */
  time: number;
  amount: number | null;
  daysLate: number | null;
}

const DAY_MS = 86_400_000;
/** The longest look-back of any alpha feature except tenure (which uses the activation event). */
export const ALPHA_LOOKBACK_DAYS = 366;

/** The alpha features, with what each one means (docs and reasons use these texts). */
export const ALPHA_FEATURES: Readonly<Record<string, string>> = {
  tenure_days: 'days since the SIM was activated',
  topup_count_90d: 'top-ups in the last 90 days',
  topup_amount_90d: 'VND topped up in the last 90 days',
  topup_active_months_6m: 'months with a top-up among the last 6 (30-day) months',
  days_since_last_topup: 'days since the last top-up',
  bill_payments_12m: 'bill payments in the last 12 months',
  late_payment_ratio_12m: 'share of bill payments made late in the last 12 months',
  max_days_late_12m: 'longest bill payment delay in the last 12 months, days',
  device_changes_12m: 'device (handset) changes in the last 12 months',
};

/**
 * The alpha features of one number as of `decisionTime` (epoch ms). Only
 * events strictly before it count, whatever the caller passed in: the
 * guarantee of no leakage lives here, not in the query. Null when no event
 * precedes the decision time (the source knows nothing yet).
 */
export function alphaFeatures(events: readonly AlphaEvent[], decisionTime: number): Features | null {
  const past = events.filter((e) => e.time < decisionTime);
  if (past.length === 0) return null;
  const since = (days: number) => decisionTime - days * DAY_MS;

  let activation: number | null = null;
  let topupCount = 0;
  let topupAmount = 0;
  let lastTopup: number | null = null;
  const activeMonths = new Set<number>();
  let bills = 0;
  let lateBills = 0;
  let maxLate = 0;
  let deviceChanges = 0;

  for (const e of past) {
    switch (e.type) {
      case 'activation':
        if (activation === null || e.time < activation) activation = e.time;
        break;
      case 'topup':
        if (e.time >= since(90)) {
          topupCount += 1;
          topupAmount += e.amount ?? 0;
        }
        if (e.time > since(180)) activeMonths.add(Math.floor((decisionTime - e.time) / (30 * DAY_MS)));
        if (lastTopup === null || e.time > lastTopup) lastTopup = e.time;
        break;
      case 'bill_payment':
        if (e.time >= since(365)) {
          bills += 1;
          const late = e.daysLate ?? 0;
          if (late > 0) lateBills += 1;
          if (late > maxLate) maxLate = late;
        }
        break;
      case 'device_change':
        if (e.time >= since(365)) deviceChanges += 1;
        break;
    }
  }
  const days = (ms: number) => Math.floor(ms / DAY_MS);
  return {
    tenure_days: activation === null ? null : days(decisionTime - activation),
    topup_count_90d: topupCount,
    topup_amount_90d: topupAmount,
    topup_active_months_6m: activeMonths.size,
    days_since_last_topup: lastTopup === null ? null : days(decisionTime - lastTopup),
    bill_payments_12m: bills,
    late_payment_ratio_12m: bills === 0 ? null : lateBills / bills,
    max_days_late_12m: bills === 0 ? null : maxLate,
    device_changes_12m: deviceChanges,
  };
}
