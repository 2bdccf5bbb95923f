/**
 * `npx tsx eval/face/second-face.ts`: how often face match's "more than one
 * face" refusal (407) would refuse a photo of one person, per second-face
 * rule, on the shared face photos (/work/shared/data/faces: portraits of
 * pairs.csv; faces-dev: labels.csv) and how often it refuses the photos that
 * do hold several people (couple.jpg, selfie-many-people.jpg); then the
 * portraits of pairs.csv placed as users' photos place people (small in a wide
 * shot, in front of a blurred crowd, turned), judged by the configured rule.
 */
import fs from 'node:fs';
import path from 'node:path';
import { analyze } from '../../src/face/engine/worker.js';
import { competingFaces } from '../../src/face/engine/subject.js';
import { loadFaceConfig } from '../../src/face/config.js';
import { boxInUpload, readPairs } from '../../src/face/evaluation.js';
import { assessFace } from '../../src/face/engine/index.js';
import { placements } from '../../fixtures/faces/photos.js';

const facesDir = process.argv[2] ?? '/work/shared/data/faces';
const devDir = process.argv[3] ?? '/work/shared/data/faces-dev';
const MANY = ['couple.jpg', 'selfie-many-people.jpg'];

const single: string[] = [];
if (fs.existsSync(path.join(facesDir, 'pairs.csv'))) {
  single.push(...new Set(readPairs(facesDir).flatMap((p) => [p.x, p.y].map((n) => path.join(facesDir, n)))));
  // The mirror reflection is one person: a refusal there is a refusal of a normal selfie.
  if (fs.existsSync(path.join(facesDir, 'img11_reflection.jpg'))) single.push(path.join(facesDir, 'img11_reflection.jpg'));
}
if (fs.existsSync(path.join(devDir, 'labels.csv'))) {
  const rows = fs.readFileSync(path.join(devDir, 'labels.csv'), 'utf8').trim().split('\n').slice(1);
  single.push(...rows.map((r) => path.join(devDir, r.split(',')[0])));
}
const many = MANY.map((n) => path.join(facesDir, n)).filter((p) => fs.existsSync(p));

const cfg = loadFaceConfig({});
type Found = { file: string; faces: Extract<Awaited<ReturnType<typeof analyze>>, { ok: true }>['faces'] };
async function run(files: string[]): Promise<Found[]> {
  const out: Found[] = [];
  for (const file of files) {
    const r = await analyze({
      image: fs.readFileSync(file),
      detectThreshold: cfg.detectThreshold,
      checkCard: false,
      subject: { centreWeight: cfg.subjectCentreWeight, secondFaceSharpness: cfg.secondFaceSharpness },
    });
    out.push({ file, faces: r.ok ? r.faces : [] });
  }
  return out;
}
const singles = await run(single);
const groups = await run(many);
const extra = singles.filter((s) => s.faces.length > 1);
console.log(`single-person photos: ${singles.length} (no face found: ${singles.filter((s) => s.faces.length === 0).length}; more than one detection: ${extra.length})`);
console.log('\nsecond-face area ratio | sharpness ratio | single-person photos refused | multi-person photos refused');
for (const ratio of [0.05, 0.1, 0.15, 0.25, 0.4]) {
  for (const sharp of [0, 0.3]) {
    const refused = (f: Found) => f.faces.length > 1 && competingFaces(f.faces[0], f.faces.slice(1), { secondFaceRatio: ratio, secondFaceSharpness: sharp }).length > 0;
    const bad = singles.filter(refused);
    console.log(
      `${ratio} | ${sharp} | ${bad.length}/${singles.length} ${bad.map((b) => path.relative(path.dirname(facesDir), b.file)).join(' ')} | ${groups.filter(refused).length}/${groups.length}`,
    );
  }
}

// One person placed where users' photos put people (fixtures/faces/photos.ts placements; the crowd is selfie-many-people.jpg).
const crowdFile = path.join(facesDir, 'selfie-many-people.jpg');
if (fs.existsSync(crowdFile)) {
  const crowd = fs.readFileSync(crowdFile);
  const verdicts = new Map<string, Record<string, number>>();
  for (const found of singles.filter((f) => f.file.startsWith(facesDir + path.sep) && !f.file.endsWith('img11_reflection.jpg'))) {
    const base = await analyze({ image: fs.readFileSync(found.file), detectThreshold: cfg.detectThreshold, checkCard: false });
    if (!base.ok || !base.faces[0]) continue;
    let placed;
    try {
      placed = await placements(fs.readFileSync(found.file), boxInUpload(base, base.faces[0]), crowd);
    } catch (err) {
      console.log(`${path.basename(found.file)}: not placed (${(err as Error).message})`);
      continue;
    }
    for (const p of placed) {
      const r = await analyze({
        image: p.image,
        detectThreshold: cfg.detectThreshold,
        checkCard: false,
        subject: { centreWeight: cfg.subjectCentreWeight, secondFaceSharpness: cfg.secondFaceSharpness },
      });
      const kind = assessFace(r, { ...cfg, minBlurVariance: 0 }, { single: true }).kind;
      const row = verdicts.get(p.name) ?? {};
      row[kind] = (row[kind] ?? 0) + 1;
      verdicts.set(p.name, row);
    }
  }
  console.log(`\nplacement (configured rule: ratio ${cfg.secondFaceRatio}, sharpness ${cfg.secondFaceSharpness}) | face match verdicts`);
  for (const [name, row] of verdicts)
    console.log(
      `${name} | ${Object.entries(row)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
    );
}
