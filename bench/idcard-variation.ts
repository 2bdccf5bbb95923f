/**
 * Synthetic cards printed with what real cards vary and the classic templates
 * do not: the text block's printing offset (up to ±4% of the card) and each
 * field's own small offset, line spacing, font family and weight (whatever of
 * a wish list is installed), the label wording of each issuing year (bilingual
 * or Vietnamese only), a value on the label's line or the line below, long
 * names and addresses wrapping onto more lines, QR code and emblem variants.
 * Fields flow one after the other (a wrapped address pushes the next field
 * down), as on a printed card, instead of sitting in fixed bands.
 *
 * Also the 2024 citizen card ("CĂN CƯỚC"), which has no classic template.
 */
import { execFileSync } from 'node:child_process';
import sharp from 'sharp';
import { writeMrz } from '../src/reader/pipeline/mrz.js';
import { CARD_HEIGHT, CARD_WIDTH, CLASSIC_TEMPLATES, type Box, type CardKind, type IdCardField } from './idcard-templates.js';
import { drawEmblem, drawFace, drawFingerprint, drawGuilloche, drawQr, type CardTruth, type Person, type Rng, toAscii, truthFields } from './idcard-synth.js';

export interface Variation {
  /** Largest printing offset of the text block, as a fraction of the card (default 0.04). */
  jitter?: number;
  /** Font families to draw from (default: every installed family of FONT_WISHES). */
  fonts?: string[];
}

const pick = <T>(rng: Rng, list: readonly T[]): T => list[Math.floor(rng() * list.length)];
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const between = (rng: Rng, lo: number, hi: number) => lo + rng() * (hi - lo);

/** Families worth printing with, when installed (fonts-dejavu-core, fonts-liberation2, fonts-noto-core, fonts-freefont-ttf). */
const FONT_WISHES = [
  'DejaVu Sans',
  'DejaVu Sans Condensed',
  'DejaVu Serif',
  'DejaVu Serif Condensed',
  'Liberation Sans',
  'Liberation Serif',
  'Liberation Sans Narrow',
  'Noto Sans',
  'Noto Serif',
  'FreeSans',
  'FreeSerif',
];
/** Rough width of a family relative to DejaVu Sans Condensed (for wrapping; `textLength` catches the rest). */
const FONT_WIDTH: Record<string, number> = {
  'DejaVu Sans': 1.1,
  'DejaVu Serif': 1.15,
  'DejaVu Serif Condensed': 1.03,
  'Liberation Sans': 1.0,
  'Liberation Serif': 0.95,
  'Noto Sans': 1.05,
  'Noto Serif': 1.1,
};

let installed: string[] | undefined;
/** The wished families fontconfig knows (DejaVu Sans alone when `fc-list` is missing). */
export function installedFonts(): string[] {
  if (installed) return installed;
  let listed = '';
  try {
    listed = execFileSync('fc-list', [':', 'family'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 });
  } catch {
    // no fontconfig: librsvg falls back to its default
  }
  const families = new Set(listed.split('\n').flatMap((l) => l.split(',').map((f) => f.trim())));
  installed = FONT_WISHES.filter((f) => families.has(f));
  if (installed.length === 0) installed = ['DejaVu Sans'];
  return installed;
}

function textWidth(text: string, size: number, font: string, bold: boolean): number {
  let w = 0;
  for (const ch of text) {
    if (ch === ' ') w += 0.29;
    else if (/[0-9]/.test(ch)) w += 0.58;
    else if (ch === ch.toLocaleUpperCase('vi') && ch !== ch.toLocaleLowerCase('vi')) w += 0.68;
    else if (/[ilIj.,:;'|!]/.test(ch)) w += 0.3;
    else w += 0.55;
  }
  return w * size * (FONT_WIDTH[font] ?? 1) * (bold ? 1.1 : 1);
}

/**
 * Label wordings of the card models and issuing years. The first of each list is the
 * Vietnamese-only form, the later ones bilingual; a card takes one era for all its labels.
 */
const LABELS: Record<string, { vi: string[]; bi: string[] }> = {
  id: { vi: ['Số:', 'Số'], bi: ['Số / No.:', 'Số/No.:'] },
  id2024: { vi: ['Số định danh cá nhân:'], bi: ['Số định danh cá nhân / Personal identification number:', 'Số định danh cá nhân/Personal identification number'] },
  name: { vi: ['Họ và tên:', 'Họ tên:'], bi: ['Họ và tên / Full name:', 'Họ và tên/Full name:'] },
  name2024: {
    vi: ['Họ, chữ đệm và tên khai sinh:'],
    bi: ['Họ, chữ đệm và tên khai sinh / Surname, middle name and given name:', 'Họ, chữ đệm và tên khai sinh/Full name:'],
  },
  dob: {
    vi: ['Ngày sinh:', 'Ngày, tháng, năm sinh:', 'Sinh ngày:'],
    bi: ['Ngày sinh / Date of birth:', 'Ngày, tháng, năm sinh / Date of birth:', 'Ngày sinh/Date of birth:'],
  },
  sex: { vi: ['Giới tính:'], bi: ['Giới tính / Sex:', 'Giới tính/Sex:'] },
  nationality: { vi: ['Quốc tịch:'], bi: ['Quốc tịch / Nationality:', 'Quốc tịch/Nationality:'] },
  home: { vi: ['Quê quán:', 'Nguyên quán:'], bi: ['Quê quán / Place of origin:', 'Quê quán/Place of origin:'] },
  address: { vi: ['Nơi thường trú:', 'Nơi ĐKHK thường trú:'], bi: ['Nơi thường trú / Place of residence:', 'Nơi thường trú/Place of residence:'] },
  address2024: { vi: ['Nơi cư trú:'], bi: ['Nơi cư trú / Place of residence:', 'Nơi cư trú/Place of residence:'] },
  pob: { vi: ['Nơi đăng ký khai sinh:'], bi: ['Nơi đăng ký khai sinh / Place of birth:', 'Nơi đăng ký khai sinh/Place of birth:'] },
  doe: { vi: ['Có giá trị đến:', 'Có giá trị đến'], bi: ['Có giá trị đến / Date of expiry:', 'Có giá trị đến/Date of expiry:'] },
  doe2024: { vi: ['Ngày, tháng, năm hết hạn:'], bi: ['Ngày, tháng, năm hết hạn / Date of expiry:', 'Ngày, tháng, năm hết hạn/Date of expiry'] },
  features: { vi: ['Đặc điểm nhận dạng:'], bi: ['Đặc điểm nhân dạng / Personal identification:', 'Đặc điểm nhận dạng/Personal identification:'] },
  issue_date: { vi: ['Ngày, tháng, năm:'], bi: ['Ngày, tháng, năm / Date, month, year:', 'Ngày, tháng, năm/Date, month, year:'] },
  issue2024: { vi: ['Ngày, tháng, năm cấp:'], bi: ['Ngày, tháng, năm cấp / Date of issue:', 'Ngày, tháng, năm cấp/Date of issue:'] },
  ethnicity: { vi: ['Dân tộc:'], bi: ['Dân tộc:'] },
  religion: { vi: ['Tôn giáo:'], bi: ['Tôn giáo:'] },
};

interface Cell {
  field: IdCardField;
  /** Key into LABELS ('' for a value printed without a label). */
  label: string;
  /** Share of the row's width (default: the whole row). */
  share?: number;
  size: number;
  bold?: boolean;
  /** Most lines the value may take. */
  maxLines: number;
  /** Chance that the value starts on the line under its label (1: always; 0: never). */
  below: number;
}

interface Template {
  fields: IdCardField[];
  side: 'front' | 'back';
  /** Eras a card of this model is printed in. */
  eras: ('vi' | 'bi')[];
  tint: [string, string];
  /** The text block: left, top, right edge, and its rows of cells. */
  block: { x: number; y: number; right: number; gap: number; rows: Cell[][] };
  /** A second block (the expiry under the portrait). */
  corner?: { x: number; y: number; right: number; gap: number; rows: Cell[][] };
  statics: { text: string | string[]; x: number; y: number; size: number; bold?: boolean; color?: string; anchor?: 'start' | 'middle' }[];
  emblem?: Box;
  photo?: Box;
  qr?: Box;
  chip?: Box;
  fingerprints?: Box[];
  mrz?: Box;
}

const HEADER_1 = 'CỘNG HÒA XÃ HỘI CHỦ NGHĨA VIỆT NAM';
const HEADER_2 = 'Độc lập - Tự do - Hạnh phúc';
const header = (x: number, y: number, size = 23) => [
  { text: HEADER_1, x, y, size, bold: true, anchor: 'middle' as const },
  { text: HEADER_2, x, y: y + size * 1.35, size: size - 2, anchor: 'middle' as const },
];
const cell = (field: IdCardField, label: string, size: number, maxLines = 1, below = 0, extra: Partial<Cell> = {}): Cell => ({
  field,
  label,
  size,
  maxLines,
  below,
  ...extra,
});
const FRONT_12: IdCardField[] = ['id', 'name', 'dob', 'sex', 'nationality', 'home', 'address', 'doe'];
const front12 = (title: string, tint: [string, string]): Template => ({
  fields: FRONT_12,
  side: 'front',
  eras: ['vi'],
  tint,
  emblem: { x: 50, y: 40, w: 150, h: 150 },
  photo: { x: 50, y: 250, w: 200, h: 260 },
  statics: [...header(615, 50, 24), { text: title, x: 615, y: 135, size: 36, bold: true, color: '#b01010', anchor: 'middle' }],
  block: {
    x: 300,
    y: 152,
    right: 985,
    gap: 1.62,
    rows: [
      [cell('id', 'id', 30, 1, 0, { bold: true })],
      [cell('name', 'name', 26, 2, 0.3, { bold: true })],
      [cell('dob', 'dob', 23, 1, 0, { share: 0.5 }), cell('sex', 'sex', 23, 1, 0, { share: 0.5 })],
      [cell('nationality', 'nationality', 23)],
      [cell('home', 'home', 23, 2, 0.2)],
      [cell('address', 'address', 23, 3, 0.3)],
    ],
  },
  corner: { x: 40, y: 548, right: 460, gap: 1.5, rows: [[cell('doe', 'doe', 21)]] },
});

export const VARIED_TEMPLATES: Record<CardKind, Template> = {
  cmnd_09_front: {
    fields: ['id', 'name', 'dob', 'home', 'address'],
    side: 'front',
    eras: ['vi'],
    tint: ['#d9ecec', '#b9d8e0'],
    emblem: { x: 60, y: 60, w: 180, h: 180 },
    photo: { x: 70, y: 300, w: 170, h: 230 },
    statics: [...header(625, 58, 24), { text: 'GIẤY CHỨNG MINH NHÂN DÂN', x: 625, y: 150, size: 34, bold: true, anchor: 'middle' }],
    block: {
      x: 280,
      y: 170,
      right: 985,
      gap: 1.72,
      rows: [
        [cell('id', 'SỐ', 32, 1, 0, { bold: true })],
        [cell('name', 'Họ tên:', 26, 2, 0, { bold: true })],
        [cell('dob', 'Sinh ngày:', 24)],
        [cell('home', 'Nguyên quán:', 24, 2)],
        [cell('address', 'Nơi ĐKHK thường trú:', 24, 2)],
      ],
    },
  },
  cmnd_09_back: {
    fields: ['religion', 'ethnicity', 'features', 'issue_date', 'issue_loc'],
    side: 'back',
    eras: ['vi'],
    tint: ['#e1eeee', '#c9e0e4'],
    fingerprints: [
      { x: 40, y: 90, w: 170, h: 220 },
      { x: 230, y: 90, w: 170, h: 220 },
    ],
    statics: [
      { text: 'NGÓN TRỎ TRÁI', x: 125, y: 75, size: 18, bold: true, anchor: 'middle' },
      { text: 'NGÓN TRỎ PHẢI', x: 315, y: 75, size: 18, bold: true, anchor: 'middle' },
    ],
    block: {
      x: 430,
      y: 30,
      right: 985,
      gap: 1.75,
      rows: [
        [cell('ethnicity', 'ethnicity', 24, 1, 0, { share: 0.5 }), cell('religion', 'religion', 24, 1, 0, { share: 0.5 })],
        [cell('features', 'DẤU VẾT RIÊNG VÀ DỊ HÌNH', 23, 2, 1)],
        [cell('issue_date', '', 24)],
        [cell('issue_loc', 'GIÁM ĐỐC CA', 24)],
      ],
    },
  },
  cmnd_12_front: front12('CHỨNG MINH NHÂN DÂN', ['#f2e8d8', '#d9e6f2']),
  cccd_12_front: front12('CĂN CƯỚC CÔNG DÂN', ['#eef0e6', '#dde8f4']),
  cmnd_12_back: back12(['#efe6d6', '#dbe5ee']),
  cccd_12_back: back12(['#eef0e6', '#dde8f4']),
  cccd_chip_front: {
    fields: FRONT_12,
    side: 'front',
    eras: ['bi'],
    tint: ['#f4efe4', '#cfe0f0'],
    emblem: { x: 40, y: 30, w: 140, h: 140 },
    photo: { x: 40, y: 240, w: 200, h: 260 },
    qr: { x: 830, y: 25, w: 140, h: 140 },
    statics: [
      ...header(505, 50, 23),
      { text: 'CĂN CƯỚC CÔNG DÂN', x: 505, y: 128, size: 34, bold: true, color: '#b01010', anchor: 'middle' },
      { text: 'Citizen Identity Card', x: 505, y: 156, size: 20, anchor: 'middle' },
    ],
    block: {
      x: 270,
      y: 168,
      right: 985,
      gap: 1.5,
      rows: [
        [cell('id', 'id', 29, 1, 0, { bold: true })],
        [cell('name', 'name', 26, 2, 0.85, { bold: true })],
        [cell('dob', 'dob', 22)],
        [cell('sex', 'sex', 22, 1, 0, { share: 0.45 }), cell('nationality', 'nationality', 22, 1, 0, { share: 0.55 })],
        [cell('home', 'home', 22, 2, 0.85)],
        [cell('address', 'address', 22, 3, 0.85)],
      ],
    },
    corner: { x: 30, y: 512, right: 262, gap: 1.4, rows: [[cell('doe', 'doe', 18, 1, 1)]] },
  },
  cccd_chip_back: {
    fields: ['features', 'issue_date'],
    side: 'back',
    eras: ['bi'],
    tint: ['#f4efe4', '#cfe0f0'],
    chip: { x: 60, y: 70, w: 150, h: 115 },
    fingerprints: [
      { x: 690, y: 30, w: 140, h: 180 },
      { x: 845, y: 30, w: 140, h: 180 },
    ],
    mrz: { x: 30, y: 420, w: 940, h: 190 },
    statics: [
      { text: 'Ngón trỏ trái', x: 760, y: 232, size: 16, bold: true, anchor: 'middle' },
      { text: 'Ngón trỏ phải', x: 915, y: 232, size: 16, bold: true, anchor: 'middle' },
      { text: ['CỤC TRƯỞNG CỤC CẢNH SÁT QUẢN LÝ HÀNH CHÍNH', 'VỀ TRẬT TỰ XÃ HỘI'], x: 330, y: 360, size: 17, bold: true, anchor: 'middle' },
    ],
    block: {
      x: 30,
      y: 210,
      right: 660,
      gap: 1.45,
      rows: [[cell('features', 'features', 21, 2, 0.85)], [cell('issue_date', 'issue_date', 20)]],
    },
  },
  cccd_2024_front: {
    fields: ['id', 'name', 'dob', 'sex', 'nationality'],
    side: 'front',
    eras: ['bi'],
    tint: ['#f6eee6', '#d6e4f2'],
    emblem: { x: 40, y: 34, w: 130, h: 130 },
    photo: { x: 40, y: 250, w: 200, h: 260 },
    chip: { x: 60, y: 180, w: 0, h: 0 },
    statics: [
      ...header(560, 52, 23),
      { text: 'CĂN CƯỚC', x: 560, y: 128, size: 38, bold: true, color: '#b01010', anchor: 'middle' },
      { text: 'IDENTITY CARD', x: 560, y: 158, size: 20, anchor: 'middle' },
    ],
    block: {
      x: 270,
      y: 185,
      right: 985,
      gap: 1.5,
      rows: [
        [cell('id', 'id2024', 28, 1, 1, { bold: true })],
        [cell('name', 'name2024', 26, 2, 1, { bold: true })],
        [cell('dob', 'dob', 22)],
        [cell('sex', 'sex', 22, 1, 0, { share: 0.45 }), cell('nationality', 'nationality', 22, 1, 0, { share: 0.55 })],
      ],
    },
  },
  cccd_2024_back: {
    fields: ['address', 'pob', 'issue_date', 'doe'],
    side: 'back',
    eras: ['bi'],
    tint: ['#f6eee6', '#d6e4f2'],
    qr: { x: 820, y: 40, w: 150, h: 150 },
    mrz: { x: 30, y: 420, w: 940, h: 190 },
    statics: [
      { text: 'BỘ CÔNG AN', x: 890, y: 240, size: 18, bold: true, anchor: 'middle' },
      { text: 'MINISTRY OF PUBLIC SECURITY', x: 890, y: 262, size: 12, anchor: 'middle' },
    ],
    block: {
      x: 40,
      y: 40,
      right: 790,
      gap: 1.45,
      rows: [[cell('address', 'address2024', 22, 3, 1)], [cell('pob', 'pob', 22, 2, 1)], [cell('issue_date', 'issue2024', 21)], [cell('doe', 'doe2024', 21)]],
    },
  },
};

function back12(tint: [string, string]): Template {
  return {
    fields: ['features', 'issue_date'],
    side: 'back',
    eras: ['vi'],
    tint,
    fingerprints: [
      { x: 40, y: 80, w: 170, h: 220 },
      { x: 230, y: 80, w: 170, h: 220 },
    ],
    statics: [
      { text: 'Ngón trỏ trái', x: 125, y: 65, size: 18, bold: true, anchor: 'middle' },
      { text: 'Ngón trỏ phải', x: 315, y: 65, size: 18, bold: true, anchor: 'middle' },
      { text: ['CỤC TRƯỞNG CỤC CẢNH SÁT', 'ĐKQL CƯ TRÚ VÀ DLQG VỀ DÂN CƯ'], x: 700, y: 330, size: 20, bold: true, anchor: 'middle' },
    ],
    block: { x: 430, y: 55, right: 985, gap: 1.7, rows: [[cell('features', 'features', 24, 2, 0.2)], [cell('issue_date', 'issue_date', 24)]] },
  };
}

/** The value as printed on this kind of card (the truth answers dates as dd/mm/yyyy and sex upper case). */
function printedValue(kind: CardKind, field: IdCardField, value: string): string {
  if (field === 'dob' && kind === 'cmnd_09_front') return value.replace(/\//g, '-');
  if (field === 'sex') return value === 'NAM' ? 'Nam' : 'Nữ';
  if (field === 'issue_date' && kind === 'cmnd_09_back') {
    const [d, m, y] = value.split('/');
    return `Ngày ${d} tháng ${m} năm ${y}`;
  }
  return value;
}

function wrap(value: string, widths: number[], measure: (s: string) => number): string[] {
  const out: string[] = [];
  let current = '';
  for (const word of value.split(' ')) {
    const trial = current ? `${current} ${word}` : word;
    if (current && measure(trial) > widths[Math.min(out.length, widths.length - 1)]) {
      out.push(current);
      current = word;
    } else current = trial;
  }
  if (current) out.push(current);
  return out;
}

/** Renders a card of `kind` with per-card variation drawn from `rng`. */
export async function renderVariedCard(kind: CardKind, person: Person, rng: Rng, variation: Variation = {}): Promise<{ png: Buffer; truth: CardTruth }> {
  const t = VARIED_TEMPLATES[kind];
  const fields = truthFields(kind, t.fields, person);
  const truth: CardTruth = {
    kind,
    fields,
    addressEntities: t.fields.includes('address')
      ? { province: person.address.province, district: person.address.district, ward: person.address.ward, street: person.address.street }
      : undefined,
  };
  const jitter = variation.jitter ?? 0.04;
  const fonts = variation.fonts ?? installedFonts();
  const font = pick(rng, fonts);
  const labelFont = rng() < 0.7 ? font : pick(rng, fonts);
  const valueBold = rng() < 0.75;
  const era = pick(rng, t.eras);
  const spacing = between(rng, 0.94, 1.08);
  const sizeScale = between(rng, 0.94, 1.05);
  const ink = pick(rng, ['#111', '#1a1a2a', '#202020', '#0d1f3a']);
  const labelInk = pick(rng, ['#2a2a2a', '#333', '#3a2a2a', '#1f2f4f']);
  // The whole text block is printed off by up to ±jitter of the card; each field moves a little more on its own.
  let dx = (rng() - 0.5) * 2 * jitter * CARD_WIDTH;
  let dy = (rng() - 0.5) * 2 * jitter * CARD_HEIGHT;

  let body = `<defs><linearGradient id="bg" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${t.tint[0]}"/><stop offset="1" stop-color="${t.tint[1]}"/></linearGradient>
  <clipPath id="round"><rect width="${CARD_WIDTH}" height="${CARD_HEIGHT}" rx="38"/></clipPath></defs>`;
  body += `<g clip-path="url(#round)"><rect width="${CARD_WIDTH}" height="${CARD_HEIGHT}" fill="url(#bg)"/>${drawGuilloche(rng, pick(rng, ['#7aa0b0', '#b08a7a', '#8aa07a']))}`;
  if (t.emblem) {
    const s = between(rng, 0.85, 1.1);
    body += drawEmblem({ x: t.emblem.x, y: t.emblem.y, w: t.emblem.w * s, h: t.emblem.h * s });
  }
  if (t.photo) body += drawFace(t.photo, rng);
  // The chip card's QR code is sometimes printed smaller or further in; the 2024 back always has one.
  if (t.qr && (kind === 'cccd_2024_back' || rng() < 0.85)) {
    const s = between(rng, 0.8, 1.05);
    body += drawQr({ x: t.qr.x + (t.qr.w * (1 - s)) / 2, y: t.qr.y, w: t.qr.w * s, h: t.qr.h * s }, rng);
  }
  if (t.chip && t.chip.w > 0)
    body += `<rect x="${t.chip.x}" y="${t.chip.y}" width="${t.chip.w}" height="${t.chip.h}" rx="14" fill="#d8b45a" stroke="#9a7a2a" stroke-width="3"/>`;
  for (const f of t.fingerprints ?? []) body += drawFingerprint(f);
  const titleDy = dy;
  for (const s of t.statics) {
    const lines = Array.isArray(s.text) ? s.text : [s.text];
    lines.forEach((text, i) => {
      body += `<text x="${s.x + dx * 0.3}" y="${s.y + i * s.size * 1.45 + dy * 0.3}" font-family="${font}" font-size="${s.size}" ${s.bold ? 'font-weight="bold"' : ''} fill="${s.color ?? '#1c1c1c'}" text-anchor="${s.anchor ?? 'start'}">${esc(text)}</text>`;
    });
  }

  // A block is laid out twice (to learn its height, then in place): both times with the same random draws.
  const draws = Array.from({ length: 96 }, () => rng());
  const blockText = (block: NonNullable<Template['corner']>, offX: number, shrink = 1) => {
    let k = 0;
    const rng = () => draws[k++ % draws.length];
    const out: string[] = [];
    let y = block.y;
    for (const row of block.rows) {
      let x = block.x + offX;
      const right = Math.min(CARD_WIDTH - 18, block.right + offX);
      let rowBottom = y;
      for (const c of row) {
        const width = (right - (block.x + offX)) * (c.share ?? 1);
        const cx = x + (rng() - 0.5) * 0.02 * CARD_WIDTH;
        const cy = y + (rng() - 0.5) * 0.01 * CARD_HEIGHT;
        const size = c.size * sizeScale * shrink;
        const labelSize = size * (era === 'bi' ? 0.78 : 0.82);
        const labels = LABELS[c.label];
        const label = labels ? pick(rng, labels[era]) : c.label;
        const value = printedValue(kind, c.field, fields[c.field] ?? '');
        const bold = c.bold || (valueBold && c.field === 'name');
        const measure = (s: string) => textWidth(s, size, font, bold);
        const labelW = label ? textWidth(label, labelSize, labelFont, false) + size * 0.4 : 0;
        const below = label !== '' && (rng() < c.below || labelW > width * 0.62);
        const lineH = size * block.gap * spacing;
        let ly = cy + size;
        if (label)
          out.push(
            `<text x="${cx.toFixed(1)}" y="${ly.toFixed(1)}" font-family="${labelFont}" font-size="${labelSize.toFixed(1)}" fill="${labelInk}">${esc(label)}</text>`,
          );
        const firstX = below ? cx : cx + labelW;
        if (below) ly += lineH * 0.95;
        const widths = [cx + width - firstX - 8, width - 8];
        let chunks = wrap(value, widths, measure);
        if (chunks.length > c.maxLines) chunks = [...chunks.slice(0, c.maxLines - 1), chunks.slice(c.maxLines - 1).join(' ')];
        chunks.forEach((chunk, i) => {
          const vx = i === 0 ? firstX : cx;
          const maxW = (i === 0 ? widths[0] : widths[1]) + 4;
          const fit = measure(chunk) > maxW ? ` textLength="${maxW.toFixed(0)}" lengthAdjust="spacingAndGlyphs"` : '';
          const color = kind === 'cmnd_09_front' && c.field === 'id' ? '#c01818' : ink;
          out.push(
            `<text x="${vx.toFixed(1)}" y="${(ly + i * lineH).toFixed(1)}" font-family="${font}" font-size="${size.toFixed(1)}" ${bold ? 'font-weight="bold"' : ''} fill="${color}"${fit}>${esc(chunk)}</text>`,
          );
        });
        rowBottom = Math.max(rowBottom, ly + (chunks.length - 1) * lineH + size * 0.5);
        x += width;
      }
      y = rowBottom + size0(row) * (block.gap - 1.05) * spacing;
    }
    return { svg: out.join(''), bottom: y };
  };
  // Lay the block out once to learn its height, then keep it on the card (and off the MRZ).
  // A corner block under the main one's left part (the 12-digit fronts' expiry) is room the main block leaves.
  const cornerBelow = t.corner && t.corner.right > t.block.x ? t.corner.y + 8 : Infinity;
  const limit = Math.min(cornerBelow, t.mrz ? t.mrz.y - 8 : t.corner ? CARD_HEIGHT - 8 : CARD_HEIGHT - 24);
  // Printing offsets move the block within the card's printable area, never onto its edge or rounded corners,
  // nor onto the pre-printed title above it: a block too tall for the room left is printed smaller, as a card
  // with a long address is (before, it was moved up until it fit, through the title: the id printed over
  // "CHỨNG MINH NHÂN DÂN", which real cards never do and no reader reads).
  dx = Math.max(dx, 24 - t.block.x);
  const titles = t.statics.filter((st) => st.y < t.block.y);
  const titleBase = Math.max(-Infinity, ...titles.map((st) => st.y + ((Array.isArray(st.text) ? st.text.length : 1) - 1) * st.size * 1.45));
  // The title was printed at 0.3 of the first offset; the block's first letters start a little below its y.
  const lowestDy = Number.isFinite(titleBase) ? titleBase + 0.3 * titleDy + 8 - t.block.y : -Infinity;
  dy = Math.max(dy, lowestDy);
  let placed = blockText({ ...t.block, y: t.block.y + dy }, dx);
  for (let shrink = 1; placed.bottom > limit && shrink > 0.8;) {
    const up = Math.max(lowestDy, dy - (placed.bottom - limit));
    if (up > dy - (placed.bottom - limit)) shrink -= 0.03;
    dy = up;
    placed = blockText({ ...t.block, y: t.block.y + dy }, dx, shrink);
  }
  body += placed.svg;
  if (t.corner) body += blockText({ ...t.corner, y: Math.min(t.corner.y + dy * 0.3, CARD_HEIGHT - 50) }, dx * 0.3).svg;
  if (t.mrz) {
    const mrz = writeMrz({ id: person.id12, dob: person.dob, doe: person.doe, sex: person.sex, nameAscii: toAscii(person.name) });
    mrz.forEach((text, i) => {
      body += `<text x="${t.mrz!.x + 8}" y="${t.mrz!.y + 52 + i * 58}" font-family="DejaVu Sans Mono" font-size="40" letter-spacing="7" fill="#111" textLength="920" lengthAdjust="spacing">${esc(text)}</text>`;
    });
  }
  body += '</g>';
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${CARD_WIDTH}" height="${CARD_HEIGHT}">${body}</svg>`;
  return { png: await sharp(Buffer.from(svg)).png().toBuffer(), truth };
}

const size0 = (row: Cell[]) => Math.max(...row.map((c) => c.size));

/** The classic kinds the varied templates mirror (the 2024 card has no classic template). */
export const CLASSIC_KINDS = Object.keys(CLASSIC_TEMPLATES);
