/**
 * Passport data pages (POST /vision/passport/vnm) on the layout-free reader's
 * stages: decode -> quality -> locate -> warp -> whole-page OCR -> labels as
 * anchors (a passport DocumentModel) -> values -> TD3 MRZ (mrz-td3.ts) ->
 * cross-validation -> `_prob`. The MRZ's check digits vouch for the number,
 * dates, sex and personal number; the visual zone gives the name with its
 * accents (confirmed against the MRZ's transliteration), the place of birth
 * (checked against the gazetteer's provinces) and the date of issue.
 */
import { fieldSpec, type DocumentModel } from '../model.js';
import { CARD_HEIGHT, CARD_WIDTH, type Box } from '../../layouts.js';
import type { CardWord, LabelHit } from '../../pipeline/anchors.js';
import { fieldProbability, formatProb, overallScore } from '../../pipeline/confidence.js';
import { stackBands } from '../../pipeline/crops.js';
import { ReaderFailure } from '../../pipeline/failure.js';
import { checkQuality } from '../../pipeline/quality.js';
import { fixSurname, normaliseDate, normaliseId, normaliseName, normaliseSex, rawFromWords, wordsByBand, type FieldValue, type WordFilter } from '../../pipeline/fields.js';
import { fuzzyHas } from '../../pipeline/kind.js';
import { anchorPage, lineUnder, readFlatPage, type FlatPage } from '../page.js';
import { numberFromPage, readPhotoMrz, td3Checks } from './mrz.js';
import { decodeImage, type DecodedImage } from '../../pipeline/decode.js';
import sharp from 'sharp';
import { readTd3, type Td3Reading } from '../../pipeline/mrz-td3.js';
import { mrzLines } from '../../pipeline/mrz.js';
import { matchProvince } from '../../province.js';
import { nameBand, nameFromZones, nameWords, type NameWord } from './name.js';
import type { OcrEngine } from '../../pipeline/ocr.js';
import type { ReadRefusal, ReadTask } from '../../pipeline/run.js';
import { foldKey } from '../../pipeline/text.js';
import { stageTimer } from '../../pipeline/timings.js';

export { matchProvince };

export const PASSPORT_FIELDS = ['passport_number', 'name', 'dob', 'sex', 'nationality', 'pob', 'id_number', 'doi', 'doe'] as const;
export type PassportField = (typeof PASSPORT_FIELDS)[number];

/** How each field's words are cleaned (pipeline/fields.ts rawFromWords); the ID number is cleaned as a place, as it always was. */
const PASSPORT_WORDS: Record<PassportField, WordFilter> = {
  passport_number: 'plain',
  name: 'name',
  dob: 'plain',
  sex: 'plain',
  nationality: 'plain',
  pob: 'place',
  id_number: 'place',
  doi: 'plain',
  doe: 'plain',
};

const spec = fieldSpec<PassportField>;

/** What a Vietnamese passport's data page prints (bilingual labels; the English half alone too). */
export const PASSPORT_MODEL: DocumentModel<PassportField> = {
  fields: [
    spec('passport_number', 'text', ['Số hộ chiếu', 'Số hộ chiếu / Passport No', 'Số hộ chiếu / Passport N°', 'Passport No']),
    // One line: the page prints the name on one, and the line below is the nationality's label and value.
    spec('name', 'name', ['Họ và tên', 'Họ và tên / Full name', 'Họ tên / Name', 'Full name']),
    spec('nationality', 'text', ['Quốc tịch', 'Quốc tịch / Nationality', 'Nationality']),
    spec('dob', 'date', ['Ngày sinh', 'Ngày sinh / Date of birth', 'Date of birth']),
    spec('pob', 'text', ['Nơi sinh', 'Nơi sinh / Place of birth', 'Place of birth']),
    spec('sex', 'text', ['Giới tính', 'Giới tính / Sex']),
    spec('id_number', 'digits', ['Số GCMND', 'Số GCMND / ID card No', 'Số định danh', 'Số định danh / Personal No', 'Số CCCD', 'ID card No', 'Personal No']),
    spec('doi', 'date', ['Ngày cấp', 'Ngày cấp / Date of issue', 'Date of issue']),
    spec('doe', 'date', ['Có giá trị đến', 'Có giá trị đến / Date of expiry', 'Ngày hết hạn', 'Date of expiry']),
  ],
  stops: [
    'Cộng hòa xã hội chủ nghĩa Việt Nam',
    'Socialist Republic of Viet Nam',
    'Hộ chiếu',
    'Passport',
    'Loại / Type',
    'Mã số / Code',
    'Nơi cấp / Place of issue',
    'Cục Quản lý xuất nhập cảnh',
  ],
};

export interface ReadPassport {
  ok: true;
  kind: 'passport';
  fields: Partial<Record<PassportField, { value: string; prob: number }>>;
  overall: number;
  mrz?: Pick<Td3Reading, 'valid' | 'corrections' | 'lines'>;
  timings: Record<string, number>;
}
export type PassportResult = ReadPassport | ReadRefusal;

/** Fields no check digit covers: read a second time when the first reading is missing or unconfirmed. */
const RETRY_FIELDS: PassportField[] = ['pob', 'doi'];

/** The MRZ's band: the page's words with '<' runs, else the bottom fifth where TD3 sits. */
function td3Band(words: CardWord[]): Box {
  const rows = words.filter((w) => (w.text.match(/</g) ?? []).length >= 2 && w.top > CARD_HEIGHT * 0.5);
  if (rows.length === 0) return { x: 10, y: Math.round(CARD_HEIGHT * 0.78), w: CARD_WIDTH - 20, h: Math.round(CARD_HEIGHT * 0.21) };
  const top = Math.max(0, Math.min(...rows.map((w) => w.top)) - 20);
  const bottom = Math.min(CARD_HEIGHT, Math.max(...rows.map((w) => w.top + w.height)) + 20);
  return { x: 10, y: top, w: CARD_WIDTH - 20, h: bottom - top };
}

async function readTd3Band(ocr: OcrEngine, gray: Buffer, band: Box): Promise<Td3Reading | undefined> {
  const stack = await stackBands(gray, [band], 1.3);
  return readTd3(await mrzLines(ocr, stack.image));
}

/** Dates of issue and expiry in order (a passport is issued for at most ten years), after birth. */
function dateValue(s: string | undefined): number | undefined {
  if (!s) return undefined;
  const [d, m, y] = s.split('/').map(Number);
  return Date.UTC(y, m - 1, d);
}

/**
 * Cross-validation of the visual zone with the MRZ: a part whose check digit
 * passed confirms an equal value (high `_prob`) and replaces a different one.
 * The name is built from the visual zone's readings (best first; by default the
 * name field alone) word by word against the MRZ's letters (nameFromZones).
 */
export function crossValidate(fields: Partial<Record<PassportField, FieldValue>>, mrz: Td3Reading | undefined, nameReadings?: NameWord[][]): void {
  if (!mrz) {
    if (nameReadings) {
      const name = nameFromZones(nameReadings, undefined);
      if (name) fields.name = name;
    }
    return;
  }
  const parts: [PassportField, string | undefined, boolean][] = [
    ['passport_number', mrz.passportNumber, mrz.numberOk],
    ['dob', mrz.dob, mrz.dobOk],
    ['doe', mrz.doe, mrz.doeOk],
    ['id_number', mrz.personalNumber, mrz.personalOk && !!mrz.personalNumber && /^\d{12}$/.test(mrz.personalNumber)],
    // Sex and nationality have no check digit of their own: the composite check vouches for them.
    ['sex', mrz.sex, mrz.compositeOk],
  ];
  for (const [f, value, ok] of parts) {
    if (!value) continue;
    const v = fields[f];
    // A part's own check digit passes by chance once in ten misreadings (two misread characters, the check
    // digit one of them): it vouches for the part only when the composite check digit passes too.
    if (ok && mrz.compositeOk) fields[f] = v && v.value === value ? { ...v, valid: true, invalid: false, conf: Math.max(v.conf, 97) } : { value, conf: 95, valid: true };
    else if (ok) fields[f] = v && v.value === value ? { ...v, valid: true, invalid: false, conf: Math.max(v.conf, 90) } : { value, conf: 70 };
    else if (v && v.value !== value) fields[f] = { ...v, valid: false, invalid: true };
    else if (!v) fields[f] = { value, conf: 50 };
  }
  if (mrz.nationality === 'VNM' && mrz.compositeOk) {
    const v = fields.nationality;
    fields.nationality = { value: 'VIỆT NAM', conf: Math.max(v?.conf ?? 0, 95), valid: true };
  } else if (mrz.nationality && mrz.nationality !== 'VNM' && !fields.nationality) {
    // Another state's passport: its ICAO code as the MRZ writes it (D for Germany), vouched for by the composite check.
    fields.nationality = mrz.compositeOk ? { value: mrz.nationality, conf: 95, valid: true } : { value: mrz.nationality, conf: 50 };
  }
  // The name: its letters from the MRZ, its marks from the visual zone's readings (name.ts).
  const readings = nameReadings ?? (fields.name ? [nameWords([{ text: fields.name.value, conf: fields.name.conf }])] : []);
  const name = nameFromZones(readings, mrz.nameAscii, mrz.nameTruncated);
  if (name) fields.name = name;
  else delete fields.name;
}

function normalise(raw: Partial<Record<PassportField, { text: string; conf: number }>>): Partial<Record<PassportField, FieldValue>> {
  const out: Partial<Record<PassportField, FieldValue>> = {};
  const set = (f: PassportField, value: string | undefined, conf: number, valid?: boolean) => {
    if (value) out[f] = { value, conf, valid, invalid: valid === false };
  };
  for (const f of PASSPORT_FIELDS) {
    const r = raw[f];
    if (!r || !r.text) continue;
    const t = r.text;
    switch (f) {
      case 'passport_number': {
        const m = /\b([A-Z])\s?(\d{7})\b/.exec(t.toUpperCase().replace(/[^A-Z0-9 ]/g, ''));
        set(f, m ? m[1] + m[2] : undefined, r.conf);
        break;
      }
      case 'name': {
        // Restores a known family name's marks; a reading holding the nationality is not a name.
        const v = fixSurname(normaliseName(t));
        set(f, v && !/VIỆT NAM|VIETNAM/.test(v) ? v : undefined, r.conf);
        break;
      }
      case 'dob':
      case 'doi':
      case 'doe':
        set(f, normaliseDate(t), r.conf);
        break;
      case 'sex':
        set(f, normaliseSex(t.split('/')[0]), r.conf);
        break;
      case 'nationality':
        set(f, fuzzyHas(foldKey(t), 'viet nam') || fuzzyHas(foldKey(t), 'vietnamese') ? 'VIỆT NAM' : undefined, r.conf);
        break;
      case 'pob': {
        const p = matchProvince(t);
        set(f, p ?? undefined, r.conf, p ? true : undefined);
        break;
      }
      case 'id_number':
        set(f, normaliseId(t, 12), r.conf);
        break;
    }
  }
  // Dates in order: born before issue, issued before expiry, at most ten years apart.
  const dob = dateValue(out.dob?.value);
  const doi = dateValue(out.doi?.value);
  const doe = dateValue(out.doe?.value);
  if (doi !== undefined && doe !== undefined) {
    const years = (doe - doi) / (365.25 * 86400_000);
    const ok = years > 0 && years <= 10.1;
    for (const f of ['doi', 'doe'] as const) out[f] = { ...out[f]!, valid: ok || undefined, invalid: !ok };
  }
  if (dob !== undefined && doi !== undefined && dob >= doi) out.doi = { ...out.doi!, valid: false, invalid: true };
  return out;
}

/** Whether the page's words say passport (title or labels) or carry a TD3 first line. */
function looksLikePassport(words: CardWord[]): boolean {
  const text = foldKey(words.map((w) => w.text).join(' '));
  return ['hochieu', 'passport', 'sohochieu', 'noisinh', 'placeofbirth'].some((p) => fuzzyHas(text, p)) || /p<vnm/i.test(words.map((w) => w.text).join(''));
}

/** The words of a reading of the name, or none when it holds the nationality (the line below read instead). */
function nameOf(words: { text: string; conf: number }[] | undefined): NameWord[] {
  const out = nameWords(words ?? []);
  return /VIỆT NAM|VIETNAM/.test(out.map((w) => w.text).join(' ')) ? [] : out;
}

/**
 * The band of a value printed under its label, the label's line included (a band cut through the
 * label's letters reads as one garbled line): one row high, as wide as the column (up to the next
 * label on the row).
 */
function valueBand(hit: LabelHit<PassportField>, hits: LabelHit<PassportField>[]): Box {
  const next = hits.filter((h) => h !== hit && Math.abs(h.box.y - hit.box.y) < 0.03 * CARD_HEIGHT && h.box.x > hit.box.x + 60).map((h) => h.box.x);
  const w = Math.min(330, CARD_WIDTH - hit.box.x, Math.min(Infinity, ...next) - hit.box.x - 4);
  return { x: Math.max(0, hit.box.x - 8), y: Math.max(0, hit.box.y - 3), w: w + 8, h: 0.09 * CARD_HEIGHT };
}

/** Labels of the page printed above values (their line in a band is not a value). */
const LABEL_WORDS = [
  'noisinh',
  'placeofbirth',
  'ngaycap',
  'dateofissue',
  'ngaysinh',
  'dateofbirth',
  'giatriden',
  'dateofexpiry',
  'gioitinh',
  'hovaten',
  'fullname',
  'quoctich',
  'nationality',
  'dinhdanh',
  'personalno',
  'idcard',
  'sohochieu',
  'noicap',
  'placeofissue',
];
const isLabelLine = (text: string) => {
  const key = foldKey(text);
  return LABEL_WORDS.some((l) => (l.length >= 8 ? fuzzyHas(key, l) : key.includes(l)));
};

/** The value's line among a band's words: the first line under the label's. */
export function valueLine<W extends { line: string; text: string; top: number }>(words: W[]): W[] {
  const lines = new Map<string, W[]>();
  for (const w of words) lines.set(w.line, [...(lines.get(w.line) ?? []), w]);
  const values = [...lines.values()].filter((ws) => !isLabelLine(ws.map((w) => w.text).join(' ')));
  return values.sort((x, y) => Math.min(...x.map((w) => w.top)) - Math.min(...y.map((w) => w.top)))[0] ?? [];
}

/**
 * The name's line among a band's words: not the label's line ("Họ và tên / Full name"), and of the
 * others the one of the tallest letters (labels are printed smaller).
 */
export function nameLine<W extends { line: string; height: number; text: string }>(words: W[]): W[] {
  const lines = new Map<string, W[]>();
  for (const w of words) if (/\p{L}/u.test(w.text)) lines.set(w.line, [...(lines.get(w.line) ?? []), w]);
  for (const [k, ws] of lines) if (isLabelLine(ws.map((w) => w.text).join(' '))) lines.delete(k);
  const median = (ws: W[]) => ws.map((w) => w.height).sort((x, y) => x - y)[Math.floor((ws.length - 1) / 2)];
  return [...lines.values()].sort((x, y) => median(y) - median(x))[0] ?? [];
}

/** What the visual zone gave: its normalised fields and the readings of the name, best first. */
interface VisualZone {
  normal: Partial<Record<PassportField, FieldValue>>;
  readings: NameWord[][];
  /** The MRZ read on the flat page (when the photo's was not fully valid). */
  flatMrz?: Td3Reading;
  /** The flat page's words (whole-page reading). */
  words: CardWord[];
}

/**
 * The visual zone of the flat page: labels as anchors, the line under a label, a second reading of the
 * fields no check digit covers, and the name's band read on its own.
 */
async function readVisualZone(page: FlatPage<'passport'>, ocr: OcrEngine, readFlatMrz: boolean, timings: Record<string, number>): Promise<VisualZone> {
  const { gray, words } = page;
  const a = anchorPage(words, PASSPORT_MODEL);
  const { hits } = a;
  const anchored = a.values;
  const raw: Partial<Record<PassportField, { text: string; conf: number }>> = {};
  for (const f of PASSPORT_FIELDS) {
    const a = anchored[f];
    if (a) raw[f] = rawFromWords(PASSPORT_WORDS[f], a.lines);
  }
  // A value the anchors left unassigned: the line under its label.
  const first = normalise(raw);
  for (const f of PASSPORT_FIELDS) {
    const hit = hits.find((h) => h.field === f);
    const under = !first[f] && hit ? lineUnder(a, hit) : undefined;
    if (under) raw[f] = rawFromWords(PASSPORT_WORDS[f], [under.words]);
  }
  let normal = normalise(raw);
  // The whole page's reading of the name (a reading holding the nationality is not the name).
  const pageName = nameOf(a.values.name ? rawFromWords('name', a.values.name.lines).words : undefined);
  const flatMrz = readFlatMrz ? await readTd3Band(ocr, gray, td3Band(words)) : undefined;
  // Second reading, in one more OCR call: the visual-zone-only fields that came out missing or unconfirmed
  // (the band under and beside their label, enlarged; the data page prints values under labels), and always
  // the name's line with its label (nameBand): the whole page's reading often drops it or its marks.
  const retry = RETRY_FIELDS.filter((f) => !normal[f]?.valid)
    .map((f) => ({ f, hit: hits.find((h) => h.field === f) }))
    .filter((x): x is { f: PassportField; hit: LabelHit<PassportField> } => !!x.hit);
  const nameBox = nameBand(hits, { name: 'name', nationality: 'nationality', dob: 'dob', column: ['dob', 'sex', 'doi'] });
  const boxes = retry.map(({ hit }) => valueBand(hit, hits));
  if (boxes.length > 0) {
    const stack = await stackBands(gray, boxes, 1.8);
    const byBand = wordsByBand(await ocr.recognize(stack.image, { lang: 'vie', psm: 6 }), stack.spans);
    const second = { ...raw };
    retry.forEach(({ f }, i) => {
      const words = valueLine(byBand[i] ?? []);
      if (words.length) second[f] = rawFromWords(PASSPORT_WORDS[f], [words]);
    });
    const again = normalise(second);
    for (const { f } of retry) if (again[f] && (again[f]!.valid || !normal[f])) normal = { ...normal, [f]: again[f] };
    timings.retried = retry.length;
  }
  // Its own call: stacked with the narrow bands above, the wide name band changes how Tesseract reads them.
  const bandName = nameBox ? nameOf(nameLine(await ocr.recognize((await stackBands(gray, [nameBox], 1.4)).image, { lang: 'vie', psm: 6 }))) : [];
  return { normal, readings: [bandName, pageName].filter((r) => r.length > 0), flatMrz, words };
}

/** The decoded photo turned clockwise by `turns` quarter turns (a page photographed sideways or upside down). */
async function turnPhoto(image: DecodedImage, turns: number): Promise<DecodedImage> {
  const { data, info } = await sharp(image.rgb, { raw: { width: image.width, height: image.height, channels: 3 } })
    .rotate(turns * 90)
    .raw()
    .toBuffer({ resolveWithObject: true });
  const gray = Buffer.alloc(info.width * info.height);
  for (let i = 0, j = 0; i < gray.length; i++, j += 3) gray[i] = (data[j] * 77 + data[j + 1] * 150 + data[j + 2] * 29) >> 8;
  return { rgb: data, gray, width: info.width, height: info.height };
}

/**
 * Reads a passport data page: the MRZ in the photo first (any issuing state, any quarter turn), then the
 * page flattened and its visual zone, the two cross-validated. A page whose MRZ was read but that could
 * not be flattened or recognised is answered from its MRZ alone; a photo below the quality gate is refused first, and a photo with no MRZ found is read as
 * before (the page's words must say passport, and its MRZ is read on the flat page).
 */
export async function readPassport(task: ReadTask, ocr: OcrEngine): Promise<PassportResult> {
  const { timings, lap } = stageTimer();
  try {
    let image = await decodeImage(Buffer.from(task.image.buffer, task.image.byteOffset, task.image.byteLength), task.maxPixels);
    // The quality gate comes before the MRZ: whether a too small or too dark photo is refused must not hang on
    // whether the OCR engine at hand still makes out its MRZ (the answer-from-the-MRZ-alone path below).
    checkQuality(image.gray, image.width, image.height);
    const photo = await readPhotoMrz(ocr, image.gray, image.width, image.height);
    lap('mrz');
    if (photo && photo.turns) image = await turnPhoto(image, photo.turns);
    let zone: VisualZone = { normal: {}, readings: [], words: [] };
    try {
      // With an MRZ the photo is a passport, already upright: no words need say so.
      const recognise = (w: CardWord[]) => (photo || looksLikePassport(w) ? ('passport' as const) : undefined);
      const page = await readFlatPage(task, ocr, 'passport data page', recognise, lap, image);
      zone = await readVisualZone(page, ocr, !photo?.reading.valid || photo.network === true, timings);
    } catch (err) {
      // No page found or flattened (an open booklet, a screenshot): the MRZ's fields alone.
      if (!(photo && err instanceof ReaderFailure && (err.code === 2 || err.code === 3))) throw err;
      timings.mrzOnly = 1;
    }
    let mrz = photo?.reading;
    // A valid Tesseract reading of the flat page's band is taken over the network's photo reading: its name line is Tesseract's whole.
    if (zone.flatMrz && (!mrz || td3Checks(zone.flatMrz) > td3Checks(mrz) || (photo?.network && zone.flatMrz.valid))) mrz = zone.flatMrz;
    const normal = zone.normal;
    lap('fields');
    crossValidate(normal, mrz, zone.readings);
    // A number the MRZ could not vouch for, settled by the page printing it (any issuer's format).
    if (mrz && !(mrz.numberOk && mrz.compositeOk && !photo?.rival)) {
      const settled = numberFromPage(mrz, mrz === photo?.reading ? photo.rival : undefined, zone.words);
      if (settled) normal.passport_number = { value: settled, conf: 90, valid: true };
    }
    lap('cross');
    const fields: ReadPassport['fields'] = {};
    for (const f of PASSPORT_FIELDS) {
      const v = normal[f];
      if (v) fields[f] = { value: v.value, prob: fieldProbability(v) };
    }
    return {
      ok: true,
      kind: 'passport',
      fields,
      overall: overallScore(PASSPORT_FIELDS.map((f) => fields[f]?.prob ?? 0)),
      mrz: mrz ? { valid: mrz.valid, corrections: mrz.corrections, lines: mrz.lines } : undefined,
      timings,
    };
  } catch (err) {
    if (err instanceof ReaderFailure) return { ok: false, code: err.code, message: err.message };
    throw err;
  }
}

/** The /vision/passport/vnm data item: every field with its `_prob`, `N/A` where not read. */
export function passportItem(page: ReadPassport): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  for (const f of PASSPORT_FIELDS) {
    const v = page.fields[f];
    item[f] = v?.value ?? 'N/A';
    item[`${f}_prob`] = v ? formatProb(v.prob) : 'N/A';
  }
  item.type = 'passport';
  item.overall_score = formatProb(page.overall);
  return item;
}
