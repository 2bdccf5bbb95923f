/**
 * `npx tsx eval/nlu/many-intents.ts [INTENTS] [PER_INTENT] [MAX_WEIGHTS]` (defaults 300, 30, the engine's
 * `MAX_INTENT_WEIGHTS`): one intent training as the API trains it (measured on a held-out 20%, then trained on
 * everything) of a bot with many intents over a varied vocabulary, on this thread: wall and CPU time, the
 * features met and kept, the model document's size, the resident memory after it (`/usr/bin/time -v` for the
 * peak) and the held-out accuracy. The sentences are random syllables, each intent with 8 of its own words in
 * about 40% of its places: not language, a stress for the intent model's size (its weights are dense, one per
 * feature and intent), which the generated five-domain set (30 intents, a small vocabulary) never reaches.
 */
import { MAX_INTENT_WEIGHTS, trainModel, type TrainingExample } from '../src/nlu/engine/model.js';
import { seededRandom } from '../src/nlu/engine/random.js';

const intents = Number(process.argv[2] ?? 300);
const perIntent = Number(process.argv[3] ?? 30);
const maxWeights = Number(process.argv[4] ?? MAX_INTENT_WEIGHTS);

const random = seededRandom(20261126);
const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
const ONSETS = ['b', 'c', 'ch', 'd', 'đ', 'g', 'gi', 'h', 'k', 'kh', 'l', 'm', 'n', 'ng', 'nh', 'ph', 'qu', 'r', 's', 't', 'th', 'tr', 'v', 'x'];
const VOWELS = ['a', 'ă', 'â', 'e', 'ê', 'i', 'o', 'ô', 'ơ', 'u', 'ư', 'y', 'ai', 'ao', 'au', 'oi', 'ôi', 'ơi', 'ui', 'ưa', 'ia', 'ua'];
const CODAS = ['', '', 'n', 'ng', 'nh', 'm', 'c', 't', 'p', 'ch'];
const TONES = ['', '\u0301', '\u0300', '\u0309', '\u0303', '\u0323'];
const pool = Array.from({ length: 4000 }, () => (pick(ONSETS) + pick(VOWELS) + pick(TONES) + pick(CODAS)).normalize('NFC'));
const common = pool.slice(0, 200);
const examples: TrainingExample[] = [];
for (let i = 0; i < intents; i++) {
  const own = Array.from({ length: 8 }, () => pool[200 + Math.floor(random() * 3800)]!);
  for (let k = 0; k < perIntent; k++) {
    const words = Array.from({ length: 6 + Math.floor(random() * 6) }, () => (random() < 0.4 ? pick(own) : random() < 0.5 ? pick(common) : pick(pool)));
    examples.push({ text: words.join(' '), intent: `intent_${i}`, entities: [] });
  }
}

const started = Date.now();
const cpu = process.cpuUsage();
const document = trainModel({ examples, entities: [], parts: { intent: true, entity: false }, options: { holdout: 0.2, seed: 5, maxWeights } });
const used = process.cpuUsage(cpu);
const intent = document.intent!;
const met = intent.vocabulary.length + (intent.featuresLeftOut ?? 0);
console.log(
  `${examples.length} samples, ${intents} intents: wall ${((Date.now() - started) / 1000).toFixed(1)} s, CPU ${((used.user + used.system) / 1e6).toFixed(1)} s, ` +
    `features ${intent.vocabulary.length} kept of ${met}, model document ${(JSON.stringify(document).length / 1e6).toFixed(1)} MB, ` +
    `resident ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB, held-out accuracy ${document.metrics.intent?.accuracy.toFixed(3)}`,
);
