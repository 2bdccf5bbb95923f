/**
 * `npx tsx eval/reader/quality.ts [dir]`: the quality check (src/reader/quality-check.ts)
 * on real ID photos (default /work/shared/data/iddocs-dev, truth.jsonl's files):
 * each photo's scores and which criteria it fails, and how many pass. The
 * photos are real users' photos of readable cards, so a "likely" is either a
 * real defect (glare, low resolution) or a false alarm: read the table.
 */
import fs from 'node:fs';
import path from 'node:path';
import { measureQualityTask, qualityPassed, qualityResult } from '../../src/reader/quality-check.js';

const dir = process.argv[2] ?? '/work/shared/data/iddocs-dev';
const files = fs
  .readFileSync(path.join(dir, 'truth.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as { file: string; kind: string })
  .filter((t) => t.kind !== 'passport');
console.log('file | card found | bright spots | blur | luminance | resolution | failed criteria');
let passed = 0;
const failedBy: Record<string, number> = {};
for (const t of files) {
  const out = await measureQualityTask({ image: fs.readFileSync(path.join(dir, t.file)), maxPixels: 40_000_000, minCardArea: 0.12 });
  if (!out.ok) {
    console.log(`${t.file} | refused ${out.code}`);
    continue;
  }
  const q = qualityResult(out.measures);
  const failed = Object.entries(q.final_result)
    .filter(([, v]) => v === 'likely')
    .map(([k]) => k);
  for (const f of failed) failedBy[f] = (failedBy[f] ?? 0) + 1;
  if (qualityPassed(q)) passed++;
  console.log(
    `${t.file} | ${out.measures.cardFound} | ${q.bright_spots_score} | ${q.blur_score} (var ${out.measures.sharpness.toFixed(0)}) | ${q.luminance_score} | ${q.resolution} | ${failed.join(', ') || '-'}`,
  );
}
console.log(`\npassed: ${passed}/${files.length}; failed by: ${JSON.stringify(failedBy)}`);
