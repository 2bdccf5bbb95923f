/** Rebuilds default-models.json from the synthetic population: `npm run credit:default-model`. */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildDefaultModels } from './default-models.js';

const models = buildDefaultModels();
const file = fileURLToPath(new URL('./default-models.json', import.meta.url));
fs.writeFileSync(file, JSON.stringify(models, null, 1) + '\n');
for (const m of models) {
  console.log(`alpha dltype ${m.dltype}: ${m.features.length} features, train ${m.train_rows} rows, holdout ${JSON.stringify(m.holdout)}`);
}
console.log(`wrote ${file}`);
