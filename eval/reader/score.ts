/**
 * Field-by-field scoring of the reader against truth, shared by the synthetic
 * evaluation and the `--real DIR` evaluation (a folder of photos with a
 * `truth.jsonl`: one JSON object a line, `file`, `kind` and the printed fields).
 */
import fs from 'node:fs';
import path from 'node:path';
import { LAYOUTS, type CardKind } from '../../src/reader/layouts.js';
import type { OcrEngine } from '../../src/reader/pipeline/ocr.js';
import { readCard, type ReadResult } from '../../src/reader/pipeline/run.js';
import { readPassport } from '../../src/reader/documents/passport/passport.js';
import { readLicence } from '../../src/reader/documents/licence/licence.js';
import { backTruthFromMrz, passportTruthFromMrz } from './mrz-truth.js';
import { fold } from '../../src/reader/pipeline/text.js';

export type Tally = { right: number; total: number };

/** Words every card prints as labels: a value made of them is a label read as a value. */
const LABEL_WORDS =
  /\b(h[oọ] v[aà] t[eê]n|full name|date of birth|ng[aà]y sinh|qu[eê] qu[aá]n|place of|n[oơ]i th[uư][oờ]ng tr[uú]|qu[oố]c t[iị]ch|nationality|gi[oớ]i t[ií]nh|c[oó] gi[aá] tr[iị]|personal identification|place of residence|date of expiry|ch[uữ] [dđ][eệ]m|khai sinh)\b/i;

/**
 * Single words of the printed labels (accents and case aside). A value holding one that the card's value does
 * not is a label piece read as a value ("Số 19 Ngõ 1 ký khai sinh Place of ..."), which LABEL_WORDS, matching
 * whole labels, misses.
 */
const LABEL_VOCABULARY = new Set(
  'ho va ten full name ngay thang nam sinh date birth que quan place origin noi thuong tru residence quoc tich nationality gioi tinh sex co gia tri den expiry dang ky khai issue cap het han of personal identification dac diem nhan dang chu dem dinh danh'.split(
    ' ',
  ),
);
const foldWords = (s: string) =>
  fold(s)
    .split(/[^a-z0-9]+/)
    .filter(Boolean);

/** Words of `got` (folded) that `want` does not hold as often, and that are label words. */
export function labelPieces(got: string, want: string): string[] {
  const left = new Map<string, number>();
  for (const w of foldWords(want)) left.set(w, (left.get(w) ?? 0) + 1);
  const extra: string[] = [];
  for (const w of foldWords(got)) {
    const n = left.get(w) ?? 0;
    if (n > 0) left.set(w, n - 1);
    else if (LABEL_VOCABULARY.has(w)) extra.push(w);
  }
  return extra;
}

export class Scores {
  readonly perField = new Map<string, Tally>();
  readonly perKindField = new Map<string, Tally>();
  /** Answers with `_prob` >= 80: how many, and how many of them wrong. */
  readonly confident: Tally = { right: 0, total: 0 };
  /** Values that are (part of) a printed label. */
  labelLeaks = 0;
  /** Values holding label words the card's value does not, and how many of them at `_prob` >= 80. */
  readonly labelPieceValues = { total: 0, confident: 0 };
  cards = 0;
  found = 0;
  /** Cards read after the reader looked for the card by its text (the outline's reading was doubtful). */
  textSearched = 0;
  /** Chip fronts read, and how many of them had their QR code read. */
  readonly chipQr = { fronts: 0, read: 0 };
  /** Per kind: photos, cards found, and answers with `_prob` >= 80 (how many wrong). */
  readonly perKind = new Map<string, { cards: number; found: number; confident: number; confidentWrong: number }>();
  /** Per kind: CPU seconds spent reading its photos (evaluateFolder, when given a CPU clock). */
  readonly perKindCpu = new Map<string, number>();
  /** Wall milliseconds per pipeline stage, summed over the ID cards read (`retried`: fields read twice). */
  readonly stageTotals = new Map<string, number>();
  /** ID cards whose stages are in `stageTotals`. */
  cardsTimed = 0;
  sideRight = 0;
  /** Per group of photos (a truth line's `group`): photos, cards found, fields right of fields scored. */
  readonly perGroup = new Map<string, { cards: number; found: number; right: number; total: number }>();
  readonly misses: string[] = [];
  readonly refusals = new Map<string, number>();
  /** Per field and `_prob` band (PROB_BANDS): how many values were answered in it, how many of them exact. */
  readonly reliability = new Map<string, Map<string, Tally>>();
  /** ID card fronts only (not licences): answers with `_prob` >= 80, and how many of them are right. */
  readonly frontsConfident: Tally = { right: 0, total: 0 };

  constructor(private readonly maxMisses = 40) {}

  private count(map: Map<string, Tally>, key: string, ok: boolean) {
    const t = map.get(key) ?? { right: 0, total: 0 };
    t.total++;
    if (ok) t.right++;
    map.set(key, t);
  }

  miss(text: string) {
    if (this.misses.length < this.maxMisses) this.misses.push(text);
  }

  /** Scores one card: `fields` are the truth as printed (the answer's form: dd/mm/yyyy, NAM/NỮ, names upper case). */
  add(
    name: string,
    kind: string,
    fields: Record<string, string>,
    r: ReadResult,
    entities?: { province: string; district: string; ward: string; street: string },
    group?: string,
  ) {
    this.cards++;
    if (group !== undefined) {
      const g = this.perGroup.get(group) ?? { cards: 0, found: 0, right: 0, total: 0 };
      this.perGroup.set(group, g);
      g.cards++;
      g.total += Object.keys(fields).length;
      if (r.ok) {
        g.found++;
        g.right += Object.entries(fields).filter(([f, want]) => sameValue(f, r.fields[f as keyof typeof r.fields]?.value ?? 'N/A', want)).length;
      }
    }
    const k = this.perKind.get(kind) ?? { cards: 0, found: 0, confident: 0, confidentWrong: 0 };
    this.perKind.set(kind, k);
    k.cards++;
    if (!r.ok) {
      this.refusals.set(`${r.code}: ${r.message}`, (this.refusals.get(`${r.code}: ${r.message}`) ?? 0) + 1);
      this.miss(`${kind} ${name}: refused with ${r.code}`);
      for (const f of Object.keys(fields)) {
        this.count(this.perField, f, false);
        this.count(this.perKindField, `${kind}.${f}`, false);
      }
      return;
    }
    this.found++;
    k.found++;
    if ('textLocate' in r.timings) this.textSearched++;
    if (kind === 'cccd_chip_front') {
      this.chipQr.fronts++;
      if ('qr' in r && r.qr) this.chipQr.read++;
    }
    if (sameSide(r.kind, kind)) this.sideRight++;
    else this.miss(`${kind} ${name}: read as ${r.kind}`);
    for (const [f, want] of Object.entries(fields)) {
      const got = r.fields[f as keyof typeof r.fields];
      const value = got?.value ?? 'N/A';
      const ok = sameValue(f, value, want);
      this.count(this.perField, f, ok);
      this.count(this.perKindField, `${kind}.${f}`, ok);
      if (got) {
        const bands = this.reliability.get(f) ?? new Map<string, Tally>();
        this.reliability.set(f, bands);
        this.count(bands, probBand(got.prob), ok);
      }
      if (got && got.prob >= 80 && kind.endsWith('_front') && !kind.startsWith('dl_')) {
        this.frontsConfident.total++;
        if (ok) this.frontsConfident.right++;
      }
      if (got && got.prob >= 80) {
        this.confident.total++;
        k.confident++;
        if (ok) this.confident.right++;
        else k.confidentWrong++;
      }
      if (got && LABEL_WORDS.test(value) && !LABEL_WORDS.test(want)) this.labelLeaks++;
      if (got && labelPieces(value, want).length > 0) {
        this.labelPieceValues.total++;
        if (got.prob >= 80) this.labelPieceValues.confident++;
      }
      if (!ok) this.miss(`${kind} ${name} ${f}: got "${value}" (${got ? got.prob.toFixed(0) : 'N/A'}) want "${want}"${got && got.prob >= 80 ? ' CONFIDENT' : ''}`);
    }
    if (entities) {
      const e = r.addressEntities;
      const same = (got: string, want: string) => got === want.replace(/\s+/g, ' ');
      const ok = !!e && same(e.province, entities.province) && same(e.district, entities.district) && same(e.ward, entities.ward) && same(e.street, entities.street);
      this.count(this.perField, 'address_entities', ok);
      if (!ok) this.miss(`${kind} ${name} address_entities: got ${JSON.stringify(e)} want ${JSON.stringify(entities)}`);
    }
  }

  /**
   * The reliability table: per field, for each `_prob` band, how many values were answered in it and the share of
   * them exact (markdown, one row a field, then every field together).
   */
  reliabilityReport(): string[] {
    const cell = (t: Tally | undefined) => (t && t.total > 0 ? `${t.right}/${t.total} (${((100 * t.right) / t.total).toFixed(0)}%)` : '-');
    const all = new Map<string, Tally>();
    const rows = [...this.reliability.entries()].sort().map(([f, bands]) => {
      for (const [b, t] of bands) {
        const a = all.get(b) ?? { right: 0, total: 0 };
        all.set(b, { right: a.right + t.right, total: a.total + t.total });
      }
      return `| ${f} | ${PROB_BANDS.map((b) => cell(bands.get(b.name))).join(' | ')} |`;
    });
    return [
      `| field | ${PROB_BANDS.map((b) => `\`_prob\` ${b.name}`).join(' | ')} |`,
      `|---|${PROB_BANDS.map(() => '---').join('|')}|`,
      ...rows,
      `| every field | ${PROB_BANDS.map((b) => cell(all.get(b.name))).join(' | ')} |`,
    ];
  }

  report(): string[] {
    const pct = (t: Tally) => `${((100 * t.right) / Math.max(1, t.total)).toFixed(1)}% (${t.right}/${t.total})`;
    const wrong = this.confident.total - this.confident.right;
    const out = [
      `card found: ${((100 * this.found) / Math.max(1, this.cards)).toFixed(1)}% (${this.found}/${this.cards}); side and type right: ${((100 * this.sideRight) / Math.max(1, this.cards)).toFixed(1)}%; looked for by its text on ${this.textSearched} of the cards found`,
      `answers with _prob >= 80 that are wrong: ${((100 * wrong) / Math.max(1, this.confident.total)).toFixed(2)}% (${wrong}/${this.confident.total}); fronts only: ${pctWrong(this.frontsConfident)}; label read as a value: ${this.labelLeaks}; values holding label words: ${this.labelPieceValues.total} (${this.labelPieceValues.confident} at >= 80)`,
      ...(this.chipQr.fronts > 0 ? [`chip fronts read: QR code read on ${this.chipQr.read} of ${this.chipQr.fronts}`] : []),
      'exact match per field:',
      ...[...this.perField.entries()].sort().map(([f, t]) => `  ${f.padEnd(18)} ${pct(t)}`),
      'per kind:',
      ...[...this.perKind.entries()].sort().map(([kind, k]) => {
        const all = [...this.perKindField.entries()]
          .filter(([f]) => f.startsWith(`${kind}.`))
          .reduce((a, [, t]) => ({ right: a.right + t.right, total: a.total + t.total }), { right: 0, total: 0 });
        const cpu = this.perKindCpu.get(kind);
        const perPhoto = cpu === undefined ? '' : `, CPU per photo ${(cpu / k.cards).toFixed(2)} s`;
        return `  ${kind.padEnd(30)} found ${pct({ right: k.found, total: k.cards })}, all fields ${pct(all)}, _prob >= 80 wrong ${k.confidentWrong}/${k.confident}${perPhoto}`;
      }),
      'per kind and field:',
      ...[...this.perKindField.entries()].sort().map(([f, t]) => `  ${f.padEnd(30)} ${pct(t)}`),
    ];
    if (this.perGroup.size) {
      out.push('per group:');
      for (const [g, t] of [...this.perGroup.entries()].sort()) out.push(`  ${g.padEnd(30)} found ${t.found}/${t.cards}, fields ${pct(t)}`);
    }
    if (this.refusals.size) out.push(`refusals: ${JSON.stringify(Object.fromEntries(this.refusals))}`);
    if (this.misses.length) out.push(`first misses:\n  ${this.misses.join('\n  ')}`);
    return out;
  }
}

/** The `_prob` bands of the reliability table: under 50, 50-79, 80-94, 95 and over. */
export const PROB_BANDS = [
  { name: '< 50', below: 50 },
  { name: '50-79', below: 80 },
  { name: '80-94', below: 95 },
  { name: '>= 95', below: Infinity },
] as const;

/** The band a `_prob` falls in. */
export function probBand(prob: number): string {
  return PROB_BANDS.find((b) => prob < b.below)!.name;
}

/** "0.83% (1/120)": the share of a tally that is wrong. */
const pctWrong = (t: Tally) => `${((100 * (t.total - t.right)) / Math.max(1, t.total)).toFixed(2)}% (${t.total - t.right}/${t.total})`;

/**
 * Whether an answer is the printed value. The gazetteer has a few double spaces ("Huyện  Vũng Liêm"); a printed
 * card shows one. A place is answered with its units separated by commas, which a card prints or not (a real
 * set transcribes the printed lines joined by a space): commas aside, the words must be the same, accents and all.
 */
export function sameValue(field: string, got: string, want: string): boolean {
  const plain = (s: string) => s.replace(/\s+/g, ' ').trim();
  if (plain(got) === plain(want)) return true;
  const place = (s: string) => plain(s.replace(/,/g, ' '));
  return ['address', 'home', 'pob', 'issue_loc'].includes(field) && place(got) === place(want);
}

/** The reader's kind answers the truth's kind: the same kind, or a side that prints the same words (the two 12-digit backs). */
export function sameSide(read: string, truth: string): boolean {
  if (read === truth) return true;
  // A set that names a licence front `dl_front` leaves its model open (paper or PET).
  if (truth === 'dl_front') return read === 'dl_paper_front' || read === 'dl_pet_front';
  const a = LAYOUTS[read as CardKind];
  const b = LAYOUTS[truth as CardKind];
  return !!a && !!b && a.type === b.type && a.side === b.side;
}

export interface RealEntry {
  file: string;
  kind: string;
  fields: Record<string, string>;
  address_entities?: { province: string; district: string; ward: string; street: string };
  /** The line's `group`, reported apart (the hard-placements set's placement). */
  group?: string;
}

/** The fields an ID card answer carries (a truth line's other keys, such as notes or the MRZ lines, are not scored). */
const ANSWER_FIELDS = new Set([
  'id',
  'name',
  'dob',
  'sex',
  'nationality',
  'home',
  'address',
  'doe',
  'religion',
  'ethnicity',
  'features',
  'issue_date',
  'issue_loc',
  'pob',
]);

/** A licence front's answer fields (documents/licence/licence.ts). */
const LICENCE_ANSWER_FIELDS = new Set(['id', 'name', 'dob', 'nation', 'address', 'place_issue', 'date', 'doe', 'class', 'code']);

/**
 * A licence truth line in the licence answer's names: `nationality` is `nation`, `issue_date` is `date`, and the
 * place of issue is the printed "<place>, ngày ... tháng ... năm ..." line's part before "ngày".
 */
function licenceTruth(all: Record<string, unknown>): Record<string, string> {
  const renamed: Record<string, unknown> = { ...all, nation: all.nationality, date: all.issue_date };
  if (typeof all.issue_place_date === 'string') {
    const place = /^(.*?)[,.]?\s*ng[aà]y\b/iu.exec(all.issue_place_date)?.[1];
    if (place) renamed.place_issue = place.trim();
  }
  return Object.fromEntries(
    Object.entries(renamed)
      .filter(([k, v]) => typeof v === 'string' && LICENCE_ANSWER_FIELDS.has(k))
      .map(([k, v]) => [k, answerForm(k === 'date' ? 'issue_date' : k, v as string)]),
  );
}

/** Kind names a dataset may use for the reader's kinds (the shared development set names the card models this way). */
const TRUTH_KINDS: Record<string, string> = {
  chip_front: 'cccd_chip_front',
  chip_back: 'cccd_chip_back',
  cccd_front: 'cccd_12_front',
  cancuoc2024_front: 'cccd_2024_front',
  cancuoc2024_back: 'cccd_2024_back',
};

/**
 * A printed value in the answer's form: sex upper case, a date printed with dashes or dots (the 9-digit card's
 * "dd-mm-yyyy") as dd/mm/yyyy (docs/api-contract.md#value-formats).
 */
function answerForm(field: string, printed: string): string {
  if (field === 'sex') return printed.toUpperCase();
  const date = /^(\d{1,2})[-./](\d{1,2})[-./](\d{4})$/.exec(printed.trim());
  const two = (s: string) => s.padStart(2, '0');
  return ['dob', 'doe', 'issue_date'].includes(field) && date ? `${two(date[1])}/${two(date[2])}/${date[3]}` : printed;
}

/**
 * Reads `DIR/truth.jsonl`. Each line: `{"file": "a.jpg", "kind": "cccd_chip_front", "id": "...", "name": "...", ...}`
 * (the fields at the top level or under `fields`); blank lines and lines starting with `#` are skipped.
 */
export function readTruthFile(dir: string): RealEntry[] {
  const text = fs.readFileSync(path.join(dir, 'truth.jsonl'), 'utf8');
  const out: RealEntry[] = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim() || line.trim().startsWith('#')) return;
    let o: Record<string, unknown>;
    try {
      o = JSON.parse(line) as Record<string, unknown>;
    } catch {
      throw new Error(`truth.jsonl line ${i + 1}: not JSON`);
    }
    if (typeof o.file !== 'string' || typeof o.kind !== 'string') throw new Error(`truth.jsonl line ${i + 1}: "file" and "kind" are required`);
    const { file, kind, fields, address_entities, group, ...rest } = o;
    // A passport is scored on what its MRZ carries (its printed dates are in the issuer's own form).
    if (kind === 'passport') {
      out.push({ file, kind, fields: passportTruthFromMrz(rest.mrz) });
      return;
    }
    const all = { ...(fields as Record<string, unknown> | undefined), ...rest };
    // A licence is scored on the licence answer's fields.
    if (kind.startsWith('dl_')) {
      out.push({ file, kind, fields: licenceTruth(all) });
      return;
    }
    // Only the answer's fields are scored: notes, sources and the printed lines kept apart are not answers.
    const strings = Object.fromEntries(
      Object.entries(all)
        .filter(([k, v]) => typeof v === 'string' && ANSWER_FIELDS.has(k))
        .map(([k, v]) => [k, answerForm(k, v as string)]),
    ) as Record<string, string>;
    // A back's MRZ is scored on its own fields (the answer carries no id: the MRZ does).
    if (Array.isArray(rest.mrz) && rest.mrz.length === 3) {
      delete strings.id;
      Object.assign(strings, backTruthFromMrz(rest.mrz));
    }
    out.push({
      file,
      kind: TRUTH_KINDS[kind] ?? kind,
      fields: strings,
      address_entities: address_entities as RealEntry['address_entities'],
      ...(typeof group === 'string' ? { group } : {}),
    });
  });
  return out;
}

/**
 * Reads every photo of `DIR/truth.jsonl` (of `kinds` only, when given) and scores it; with `cpu` (a clock of CPU
 * seconds), the CPU each kind's photos took.
 */
export async function evaluateFolder(dir: string, ocr: OcrEngine, scores = new Scores(), kinds?: string[], cpu?: () => number): Promise<Scores> {
  for (const e of readTruthFile(dir)) {
    if (kinds && !kinds.includes(e.kind)) continue;
    const before = cpu?.();
    await evaluateEntry(dir, e, ocr, scores);
    if (cpu && before !== undefined) scores.perKindCpu.set(e.kind, (scores.perKindCpu.get(e.kind) ?? 0) + cpu() - before);
  }
  return scores;
}

/** Reads one photo of the truth file and scores it. */
async function evaluateEntry(dir: string, e: RealEntry, ocr: OcrEngine, scores: Scores): Promise<void> {
  const image = fs.readFileSync(path.join(dir, e.file));
  const task = { image, face: false, maxPixels: 4e7, minCardArea: 0.12 };
  if (e.kind === 'passport') {
    const p = await readPassport(task, ocr);
    scores.add(e.file, e.kind, e.fields, p.ok ? { ...p, corners: [], kind: 'passport' as CardKind } : p);
  } else if (e.kind.startsWith('dl_')) {
    const l = await readLicence(task, ocr);
    scores.add(e.file, e.kind, e.fields, l.ok ? { ...l, corners: [], kind: l.kind as CardKind } : l);
  } else if (e.kind in LAYOUTS) {
    const r = await readCard(task, ocr);
    if (r.ok) {
      scores.cardsTimed++;
      for (const [stage, ms] of Object.entries(r.timings)) scores.stageTotals.set(stage, (scores.stageTotals.get(stage) ?? 0) + ms);
    }
    scores.add(e.file, e.kind, e.fields, withMrzFields(r), e.address_entities, e.group);
  }
}

/** A back's MRZ reading as fields `mrz_id`, `mrz_dob`, `mrz_doe`: confident (99) where the whole MRZ is valid, else 50. */
function withMrzFields(r: ReadResult): ReadResult {
  if (!r.ok || !r.mrz) return r;
  const prob = r.mrz.valid ? 99 : 50;
  const extra: Record<string, { value: string; prob: number }> = {};
  if (r.mrz.id) extra.mrz_id = { value: r.mrz.id, prob };
  if (r.mrz.dob) extra.mrz_dob = { value: r.mrz.dob, prob };
  if (r.mrz.doe) extra.mrz_doe = { value: r.mrz.doe, prob };
  return { ...r, fields: { ...r.fields, ...extra } };
}
