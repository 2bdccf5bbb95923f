/**
 * `npm run eval:face -- --labels <dir or labels.csv> [--group-prefix] [--save-embeddings <file.json>] [--data-dir DIR]`:
 * face verification and search on labelled people with the shipped engine and
 * similarity map, or with --data-dir the active recogniser of that Saola data
 * folder (`saola models add face`) and its map (manifest or uncalibrated; a
 * calibration stored in a database is not read). Every pair of photos is scored (genuine within a person,
 * impostor across people); prints TAR/FAR at the API thresholds, the cosine
 * distributions and histogram, TAR at FAR 1e-3 and at zero impostors, search
 * top-1, per-group rows (a `group` column, or with --group-prefix the
 * identity's text before its first "-") and detect+embed CPU per photo.
 * A folder with only pairs.csv joins identities from its genuine pairs.
 * --fit: a similarity map fitted to these distributions (fitSimilarityMap),
 * its 5-fold cross-validation over people (fitted on four folds' people,
 * scored on the fifth's) and the map fitted on all of them.
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import {
  crossValidateMap,
  embedWithEngine,
  fitSimilarityMap,
  formatHeldOutFit,
  formatIdentitySummary,
  histogram,
  readLabels,
  scoreAllPairs,
  summariseIdentities,
} from './identity.js';
import { FaceRecognisers } from '../../src/face/recognisers.js';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    labels: { type: 'string' },
    'group-prefix': { type: 'boolean' },
    'save-embeddings': { type: 'string' },
    fit: { type: 'boolean' },
    'data-dir': { type: 'string' },
  },
  allowPositionals: false,
});
if (!values.labels) {
  console.error(
    'usage: npm run eval:face -- --labels <folder with labels.csv (file, identity[, group]) or pairs.csv> [--group-prefix] [--save-embeddings FILE] [--fit] [--data-dir DIR]',
  );
  process.exit(2);
}
const { dir, photos, from } = readLabels(values.labels);
if (values['group-prefix']) for (const p of photos) p.group ??= p.identity.split('-')[0];
const recognisers = new FaceRecognisers(values['data-dir']);
const recogniser = recognisers.active;
const map = recognisers.similarityMap(recogniser.name);
console.log(`labels: ${from}; model ${recogniser.name}, similarity map ${map.version}`);
const embedded = await embedWithEngine(dir, photos, (l) => console.error(l), recogniser);
if (values['save-embeddings']) {
  fs.writeFileSync(
    values['save-embeddings'],
    JSON.stringify({ model: recogniser.name, photos: embedded.photos.map((p) => ({ ...p, embedding: p.embedding ? Array.from(p.embedding) : null })) }),
  );
}
const summary = summariseIdentities(embedded.photos, { knots: map.knots });
console.log(formatIdentitySummary(summary, dir));
console.log(histogram(summary.genuine, summary.impostor).join('\n'));
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const cpu = sorted(embedded.cpuMs);
const wall = sorted(embedded.wallMs);
const q = (xs: number[], f: number) => xs[Math.min(xs.length - 1, Math.floor(f * xs.length))];
console.log(
  `detect+embed CPU per photo (process CPU, one engine thread, ID-card check off): median ${q(cpu, 0.5).toFixed(1)} ms, p90 ${q(cpu, 0.9).toFixed(1)} ms; wall median ${q(wall, 0.5).toFixed(1)} ms`,
);
if (values.fit) {
  console.log("\nsimilarity map fitted to these distributions (80 at the impostor tail's FAR 1e-4, 0.85 at 1e-5), cross-validated over people:");
  console.log(formatHeldOutFit(crossValidateMap(embedded.photos)));
  const all = scoreAllPairs(embedded.photos);
  console.log(`fitted on every pair of this set: ${JSON.stringify(fitSimilarityMap(all.genuine, all.impostor).knots)}`);
}
