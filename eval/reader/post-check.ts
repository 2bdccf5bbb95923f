/**
 * `npx tsx eval/reader/post-check.ts [dir]`: the fraud check's
 * post-check (src/reader/post-check.ts) on real ID photos (default
 * /work/shared/data/iddocs-dev, passports left out). Each photo is read by the
 * reader; the post-check of the reading is set against the post-check of the
 * card as printed (truth.jsonl) and each photo counted as: passed; failed
 * because the card as printed fails (e.g. expired); failed on a wrong
 * reading (the check caught a misread: a success of the check); passed
 * although the printed card fails (missed); or not read. Prints file names
 * and codes only, never a field value. Also counts, on the fronts read, how
 * often the fraud check's headline and title checks pass: every real card
 * prints both, so each "failed" there is a false alarm (an OCR miss).
 */
import fs from 'node:fs';
import path from 'node:path';
import { LAYOUTS, type CardKind } from '../../src/reader/layouts.js';
import { chooseOcrEngine } from '../../src/reader/pipeline/ocr.js';
import { readCard } from '../../src/reader/pipeline/run.js';
import { postCheck } from '../../src/reader/post-check.js';
import { checkingResult } from '../../src/reader/fraud-check.js';

const dir = process.argv[2] ?? '/work/shared/data/iddocs-dev';
const KIND: Record<string, CardKind> = { chip_front: 'cccd_chip_front', chip_back: 'cccd_chip_back', cccd_front: 'cccd_12_front', cancuoc2024_front: 'cccd_2024_front' };
const rows = fs
  .readFileSync(path.join(dir, 'truth.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as Record<string, unknown> & { file: string; kind: string })
  .filter((t) => KIND[t.kind]);
const ocr = chooseOcrEngine('auto');
const FIELDS = ['id', 'name', 'dob', 'sex', 'nationality', 'home', 'address', 'doe', 'issue_date'];
const counts: Record<string, number> = {};
const printedCounts = { fronts: 0, headline: 0, title: 0 };
const count = (k: string) => (counts[k] = (counts[k] ?? 0) + 1);
console.log('file | read as | post-check of the reading | of the printed card | verdict | fields read differently');
for (const t of rows) {
  const printed: Record<string, string> = {};
  for (const f of FIELDS) if (typeof t[f] === 'string') printed[f] = t[f] as string;
  const truthCheck = postCheck([{ kind: KIND[t.kind], fields: printed }]);
  const r = await readCard({ image: fs.readFileSync(path.join(dir, t.file)), face: false, maxPixels: 4e7, minCardArea: 0.12 }, ocr);
  if (!r.ok) {
    count('not read');
    console.log(`${t.file} | refused ${r.code} | - | ${truthCheck.code} | not read | -`);
    continue;
  }
  const read: Record<string, string> = {};
  for (const [k, v] of Object.entries(r.fields)) if (v) read[k] = v.value;
  const readCheck = postCheck([{ kind: r.kind, fields: read }]);
  if (r.printed) {
    // The image measures do not enter these two checks.
    const c = checkingResult(r, { cardFound: true, colourSpread: 0, moire: 0 });
    printedCounts.fronts++;
    if (c.check_headline_result === 'passed') printedCounts.headline++;
    if (c.check_title_result === 'passed') printedCounts.title++;
  }
  const fold = (s: string) => s.normalize('NFC').toUpperCase().replace(/\s+/g, ' ').trim();
  // Only the fields the side read prints (a chip back's truth also carries the id it shares with the front).
  const differ = FIELDS.filter(
    (f) => LAYOUTS[r.kind].fields.includes(f as never) && printed[f] !== undefined && (read[f] === undefined || fold(read[f]) !== fold(printed[f])),
  );
  let verdict: string;
  if (readCheck.code === 'E00') verdict = truthCheck.code === 'E00' ? 'passed' : 'passed, printed card fails (missed)';
  else if (truthCheck.code === readCheck.code) verdict = 'failed: the printed card fails the same rule';
  else if (differ.length > 0) verdict = 'failed: a wrong reading caught';
  else verdict = 'failed: other';
  count(verdict);
  console.log(`${t.file} | ${r.kind} | ${readCheck.code} | ${truthCheck.code} | ${verdict} | ${differ.join(' ') || '-'}`);
}
console.log(
  `\n${rows.length} photos: ${Object.entries(counts)
    .map(([k, v]) => `${k} ${v}`)
    .join('; ')}`,
);
console.log(`fronts read: ${printedCounts.fronts}; check_headline passed ${printedCounts.headline}, check_title passed ${printedCounts.title}`);
await ocr.close();
