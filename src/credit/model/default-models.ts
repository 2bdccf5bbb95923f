import { generatePopulation, type SyntheticPerson } from '../synthetic.js';
import { alphaFeatures } from '../sources/alpha-features.js';
import { isHoldout, trainScorecard, type LabelledRow } from './train.js';
import { parseScorecard, type Scorecard } from './scorecard.js';
import shipped from './default-models.json' with { type: 'json' };

/** The synthetic population the shipped default models are trained on. */
export const DEFAULT_TRAINING = { seed: 20_240_601, people: 30_000 } as const;
/** A different synthetic population, never trained on, for `saola credit eval`. */
export const DEFAULT_EVALUATION = { seed: 77_001, people: 10_000 } as const;
export const DEFAULT_TRAINED_TIME = '2025-01-01T00:00:00.000Z';

/** Each person's alpha features at their own decision time; people the source knows nothing about are left out. */
export function labelledRows(people: SyntheticPerson[], dltype: number): (LabelledRow & { phone: string })[] {
  const rows: (LabelledRow & { phone: string })[] = [];
  for (const p of people) {
    if (p.dltype !== dltype) continue;
    const features = alphaFeatures(p.events, p.decisionTime.getTime());
    if (features) rows.push({ phone: p.phone, features, repaid: p.repaid });
  }
  return rows;
}

/**
 * Trains the default alpha models (dltype 1 and 2) from the synthetic
 * population, deterministically: same code, same models. `npm run
 * credit:default-model` writes them to default-models.json.
 */
export function buildDefaultModels(): Scorecard[] {
  const people = generatePopulation(DEFAULT_TRAINING);
  return [1, 2].map((dltype) => {
    const rows = labelledRows(people, dltype);
    return trainScorecard(
      rows.filter((r) => !isHoldout(r.phone)),
      rows.filter((r) => isHoldout(r.phone)),
      {
        source: 'alpha',
        dltype,
        trainedOn: `synthetic population (seed ${DEFAULT_TRAINING.seed}, ${DEFAULT_TRAINING.people} invented people; not real data)`,
        trainedTime: DEFAULT_TRAINED_TIME,
      },
    );
  });
}

/** The default models shipped with the project (global: used by every application without its own). */
export function shippedDefaultModels(): Scorecard[] {
  return (shipped as unknown[]).map((m) => parseScorecard(m));
}
