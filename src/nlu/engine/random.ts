import { seededRandom } from '../../platform/random.js';

/** The platform's seeded generator: training and splits are repeatable. */
export { seededRandom };

/** Fisher-Yates in place with the given generator. */
export function shuffleInPlace<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
