/**
 * A SYNTHETIC population for credit scoring: invented people, invented phone
 * numbers, invented events and invented repayment outcomes. Nothing here
 * describes a real person or real repayment behaviour; it exists so the
 * default model, the tests and the demos have data with a known structure.
 *
 * Each person has a hidden creditworthiness z and an instability u. z drives
 * tenure, top-up habits and late bill payments; u drives handset changes.
 * Repayment depends on z (and, for cash loans, more on u than for consumer
 * loans), so the observable events are noisy evidence of the outcome. Events
 * continue for 90 days AFTER the decision time and defaulters go quiet then:
 * a feature computation that leaked the future would look better than it is.
 */
import { normaliseVietnamMobile } from './phone.js';
import type { AlphaEventType } from './schema.js';
import type { AlphaEvent } from './sources/alpha-features.js';
import { seededRandom } from '../platform/random.js';

export interface SyntheticOptions {
  seed: number;
  people: number;
  /** Decision times are spread uniformly over [from, to). */
  from?: Date;
  to?: Date;
  /** Share of people with no event before their decision time (the source has no data: -1). */
  thinFileShare?: number;
}

export interface SyntheticPerson {
  phone: string;
  /** The loan type this person applied for. */
  dltype: 1 | 2;
  decisionTime: Date;
  events: AlphaEvent[];
  /** 1 repaid the loan applied for, 0 defaulted. */
  repaid: number;
}

const DAY_MS = 86_400_000;
/** Mobile prefixes (after 84); a number outside libphonenumber's allocated ranges is drawn again. */
const PREFIXES = [
  '90',
  '91',
  '93',
  '94',
  '96',
  '97',
  '98',
  '32',
  '33',
  '34',
  '35',
  '36',
  '37',
  '38',
  '39',
  '70',
  '76',
  '77',
  '78',
  '79',
  '81',
  '82',
  '83',
  '84',
  '85',
  '86',
  '88',
  '89',
];

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

export function generatePopulation(opts: SyntheticOptions): SyntheticPerson[] {
  const rand = seededRandom(opts.seed);
  const normal = () => {
    const u = 1 - rand();
    const v = rand();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  };
  const poisson = (mean: number) => {
    // Knuth; means here are small.
    const limit = Math.exp(-mean);
    let k = 0;
    let p = rand();
    while (p > limit) {
      k++;
      p *= rand();
    }
    return k;
  };
  const from = (opts.from ?? new Date('2024-01-01T00:00:00Z')).getTime();
  const to = (opts.to ?? new Date('2025-01-01T00:00:00Z')).getTime();
  const thin = opts.thinFileShare ?? 0.05;
  const phones = new Set<string>();
  const people: SyntheticPerson[] = [];

  for (let n = 0; n < opts.people; n++) {
    let phone: string;
    do {
      phone = '84' + PREFIXES[Math.floor(rand() * PREFIXES.length)] + String(Math.floor(rand() * 1e7)).padStart(7, '0');
    } while (phones.has(phone) || !normaliseVietnamMobile(phone).ok);
    phones.add(phone);

    const z = normal();
    const u = normal();
    const income = 0.5 * z + Math.sqrt(0.75) * normal();
    const dltype: 1 | 2 = rand() < 0.6 ? 1 : 2;
    const logit = dltype === 1 ? 2.1 + 1.3 * z + 0.35 * income - 0.25 * u : 1.5 + 1.4 * z - 0.6 * u;
    const repaid = rand() < sigmoid(logit) ? 1 : 0;
    const decision = from + Math.floor(rand() * (to - from));
    const events: AlphaEvent[] = [];
    const add = (type: AlphaEventType, time: number, amount: number | null = null, daysLate: number | null = null) => {
      events.push({ type, time: Math.floor(time / 1000) * 1000, amount, daysLate });
    };

    const thinFile = rand() < thin;
    // Thin files: the SIM is activated only after the decision.
    const tenureDays = thinFile ? -1 - Math.floor(rand() * 60) : Math.min(4000, Math.max(7, Math.round(-Math.log(1 - rand()) * 600 * Math.exp(0.8 * z))));
    const activation = Math.floor((decision - tenureDays * DAY_MS - rand() * DAY_MS) / 1000) * 1000;
    if (thinFile || rand() > 0.08) add('activation', activation); // some files lost the activation record
    const start = Math.max(activation, decision - 400 * DAY_MS);
    const end = decision + 90 * DAY_MS;
    const postpaid = rand() < 0.25 + 0.1 * sigmoid(z);
    const topupRate = 3 * Math.exp(0.3 * z + 0.3 * income);
    const activeProbability = sigmoid(1.6 + 1.1 * z);
    const topupMedian = 50_000 * Math.exp(0.45 * income);
    const lateProbability = sigmoid(-1.9 - 1.2 * z);
    const deviceRate = 0.6 * Math.exp(0.7 * u - 0.2 * z);

    for (let month = start; month < end; month += 30 * DAY_MS) {
      const after = month >= decision;
      // After the decision, defaulters go quiet: only a leaky feature would see it.
      const quiet = after && repaid === 0 && rand() < 0.8;
      if (!postpaid) {
        if (!quiet && rand() < activeProbability) {
          const count = Math.max(1, poisson(topupRate));
          for (let k = 0; k < count; k++) {
            const amount = Math.max(10_000, Math.round((topupMedian * Math.exp(0.5 * normal())) / 10_000) * 10_000);
            add('topup', month + rand() * 30 * DAY_MS, amount);
          }
        }
      } else if (!quiet) {
        const late = rand() < lateProbability ? 1 + Math.floor(-Math.log(1 - rand()) * 8 * Math.exp(-0.4 * z)) : 0;
        const amount = Math.round((150_000 * Math.exp(0.4 * income + 0.3 * normal())) / 1000) * 1000;
        add('bill_payment', month + (5 + late) * DAY_MS + rand() * DAY_MS, amount, late);
      }
      if (rand() < deviceRate / 12) add('device_change', month + rand() * 30 * DAY_MS);
    }
    const kept = events.filter((e) => e.time >= activation);
    kept.sort((a, b) => a.time - b.time);
    people.push({ phone, dltype, decisionTime: new Date(Math.floor(decision / 1000) * 1000), events: kept, repaid });
  }
  return people;
}

/** The synthetic events as the import CSV (header and rows). */
export function* eventsCsv(people: SyntheticPerson[]): Generator<string> {
  yield 'phone,event_type,occurred_at,amount,days_late\n';
  for (const p of people) {
    for (const e of p.events) {
      yield `${p.phone},${e.type},${new Date(e.time).toISOString()},${e.amount ?? ''},${e.daysLate ?? ''}\n`;
    }
  }
}

/** The synthetic outcomes as the training CSV. */
export function* outcomesCsv(people: SyntheticPerson[]): Generator<string> {
  yield 'phone,decision_time,dltype,repaid\n';
  for (const p of people) yield `${p.phone},${Math.floor(p.decisionTime.getTime() / 1000)},${p.dltype},${p.repaid}\n`;
}
