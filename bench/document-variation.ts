/**
 * Synthetic Vietnamese passport data pages with ground truth, printed with the
 * ID cards' per-card variation (fonts installed, printing offsets, label
 * wordings, sizes, inks) and a valid TD3 MRZ (src/reader/pipeline/mrz-td3.ts's
 * writer), then photographed like the ID cards (idcard-synth.ts `photograph`).
 * The page is drawn at the flat card's 1000x630 so the same photographer and
 * warp apply (a real data page is a little taller: 125x88 mm; the reader warps
 * whatever outline it finds to that size). Deterministic for a seed.
 */
import sharp from 'sharp';
import { writeTd3 } from '../src/reader/pipeline/mrz-td3.js';
import { drawFace, drawGuilloche, photograph, randomPerson, seededRng, toAscii, type Person, type Photo, type PhotoOptions, type Rng } from './idcard-synth.js';
import { installedFonts, type Variation } from './idcard-variation.js';

const W = 1000;
const H = 630;
const pick = <T>(rng: Rng, list: readonly T[]): T => list[Math.floor(rng() * list.length)];
const between = (rng: Rng, lo: number, hi: number) => lo + rng() * (hi - lo);
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const pad = (n: number) => String(n).padStart(2, '0');

export type PassportTruthField = 'passport_number' | 'name' | 'dob' | 'sex' | 'nationality' | 'pob' | 'id_number' | 'doi' | 'doe';
export interface PassportTruth {
  kind: 'passport';
  fields: Record<PassportTruthField, string>;
  mrz: [string, string];
}

/** Label wordings by printing (the 2022 book names the personal number "Số định danh"). */
const ERAS = [
  { number: 'Số hộ chiếu/Passport N°', idLabel: 'Số GCMND/ID card N°', idInMrz: false },
  { number: 'Số hộ chiếu / Passport No.', idLabel: 'Số định danh/Personal No.', idInMrz: true },
];

export function passportData(person: Person, rng: Rng): { truth: PassportTruth; era: (typeof ERAS)[number] } {
  const era = pick(rng, ERAS);
  const letter = pick(rng, ['B', 'C', 'C', 'C', 'N', 'P', 'K']);
  const passportNumber = letter + String(Math.floor(rng() * 1e7)).padStart(7, '0');
  const birthYear = Number(person.dob.slice(6));
  const year = Math.max(birthYear + 1, 2013 + Math.floor(rng() * 12));
  const doi = `${pad(1 + Math.floor(rng() * 28))}/${pad(1 + Math.floor(rng() * 12))}/${year}`;
  const doe = `${doi.slice(0, 6)}${year + 10}`;
  const nameAscii = toAscii(person.name).toUpperCase();
  const mrz = writeTd3({ passportNumber, nameAscii, dob: person.dob, doe, sex: person.sex, idNumber: era.idInMrz ? person.id12 : undefined });
  return {
    era,
    truth: {
      kind: 'passport',
      mrz,
      fields: {
        passport_number: passportNumber,
        name: person.name,
        dob: person.dob,
        sex: person.sex,
        nationality: 'VIỆT NAM',
        pob: person.home.province,
        id_number: person.id12,
        doi,
        doe,
      },
    },
  };
}

/** Renders one data page (flat, 1000x630 PNG) and its truth. */
export async function renderPassportPage(person: Person, rng: Rng, variation: Variation = {}): Promise<{ png: Buffer; truth: PassportTruth }> {
  const { truth, era } = passportData(person, rng);
  const f = truth.fields;
  const jitter = variation.jitter ?? 0.03;
  const fonts = variation.fonts ?? installedFonts();
  const font = pick(rng, fonts);
  const labelFont = rng() < 0.7 ? font : pick(rng, fonts);
  const ink = pick(rng, ['#111', '#1a1a2a', '#202020', '#0d1f3a']);
  const labelInk = pick(rng, ['#2a2a2a', '#333', '#1f2f4f']);
  const size = between(rng, 22, 25);
  const labelSize = size * between(rng, 0.68, 0.76);
  const dx = (rng() - 0.5) * 2 * jitter * W;
  const dy = (rng() - 0.5) * 2 * jitter * H * 0.5;
  const tint = pick(rng, [
    ['#f4efe2', '#e6eddc'],
    ['#eef1ea', '#f3e6e0'],
    ['#f0ece4', '#e2e9ef'],
  ]);
  let body = `<defs><linearGradient id="bg" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${tint[0]}"/><stop offset="1" stop-color="${tint[1]}"/></linearGradient></defs>`;
  body += `<rect width="${W}" height="${H}" fill="url(#bg)"/>${drawGuilloche(rng, pick(rng, ['#9ab0a0', '#b09a8a', '#8aa0b8']))}`;
  const text = (x: number, y: number, s: string, sz: number, opts: { bold?: boolean; fill?: string; family?: string; anchor?: string } = {}) =>
    `<text x="${x.toFixed(1)}" y="${y.toFixed(1)}" font-family="${opts.family ?? font}" font-size="${sz.toFixed(1)}" fill="${opts.fill ?? ink}"${opts.bold ? ' font-weight="bold"' : ''}${opts.anchor ? ` text-anchor="${opts.anchor}"` : ''}>${esc(s)}</text>`;
  body += text(W / 2 + dx * 0.3, 40, 'CỘNG HÒA XÃ HỘI CHỦ NGHĨA VIỆT NAM', 22, { bold: true, anchor: 'middle', family: labelFont });
  body += text(W / 2 + dx * 0.3, 66, 'SOCIALIST REPUBLIC OF VIET NAM', 17, { anchor: 'middle', family: labelFont });
  body += text(W / 2 + dx * 0.3, 98, 'HỘ CHIẾU / PASSPORT', 26, { bold: true, anchor: 'middle', family: labelFont, fill: '#7a1a1a' });
  const photo = { x: 30 + dx * 0.3, y: 130, w: 215, h: 280 };
  body += drawFace(photo, rng);
  // Label above, value below, in rows of one to three columns; every offset varies per page.
  const x0 = 280 + dx;
  let y = 132 + dy;
  const step = between(rng, 50, 56);
  const cell = (x: number, label: string, value: string, bold = true) =>
    text(x, y, label, labelSize, { fill: labelInk, family: labelFont }) + text(x, y + size + 2, value, size, { bold });
  const colW = between(rng, 215, 240);
  body += cell(x0, 'Loại/Type', 'P', false) + cell(x0 + 110, 'Mã số/Code', 'VNM', false) + cell(x0 + 110 + colW * 0.9, era.number, f.passport_number);
  y += step;
  body += cell(x0, pick(rng, ['Họ và tên/Full name', 'Họ và tên / Full name']), f.name);
  y += step;
  body += cell(x0, 'Quốc tịch/Nationality', 'VIỆT NAM/VIETNAMESE');
  y += step;
  body += cell(x0, 'Ngày sinh/Date of birth', f.dob) + cell(x0 + colW + 40, 'Nơi sinh/Place of birth', f.pob);
  y += step;
  body += cell(x0, 'Giới tính/Sex', f.sex === 'NAM' ? 'NAM/M' : 'NỮ/F') + cell(x0 + colW + 40, era.idLabel, f.id_number);
  y += step;
  body += cell(x0, 'Ngày cấp/Date of issue', f.doi) + cell(x0 + colW + 40, 'Có giá trị đến/Date of expiry', f.doe);
  y += step * 0.9;
  body += text(x0, y, 'Nơi cấp/Place of issue', labelSize, { fill: labelInk, family: labelFont }) + text(x0 + 250, y, 'Cục Quản lý xuất nhập cảnh', size * 0.85);
  // The MRZ: OCR-B-like monospace, 44 characters across the page's width.
  const mrzSize = between(rng, 27.5, 29);
  const mrzY = between(rng, 540, 552);
  for (const [i, line] of truth.mrz.entries())
    body += `<text x="${(22 + dx * 0.2).toFixed(1)}" y="${(mrzY + i * 46).toFixed(1)}" font-family="DejaVu Sans Mono" font-size="${mrzSize.toFixed(1)}" fill="#111" textLength="${W - 44}" lengthAdjust="spacing">${esc(line)}</text>`;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">${body}</svg>`;
  const png = await sharp(Buffer.from(svg)).png().toBuffer();
  return { png, truth };
}

export interface DocumentSample {
  kind: 'passport';
  truth: PassportTruth;
  photo: Photo;
  flat: Buffer;
}

/** One photographed passport page, deterministic for the seed. */
export async function makePassportSample(seed: number, options: PhotoOptions = {}, variation?: Variation): Promise<DocumentSample> {
  const rng = seededRng(seed);
  const person = randomPerson(rng);
  const { png, truth } = await renderPassportPage(person, rng, variation);
  const photo = await photograph(png, rng, options);
  return { kind: 'passport', truth, photo, flat: png };
}

// ---------------------------------------------------------------------------------------------
// Driving licences: the old paper licence (front and back), the PET card (front and back) and the
// 2025 model (the PET layout with the Ministry of Public Security's header and the new classes).

export type LicenceSampleKind = 'dl_paper_front' | 'dl_paper_back' | 'dl_pet_front' | 'dl_pet_back' | 'dl_2025_front';
export const LICENCE_SAMPLE_KINDS: LicenceSampleKind[] = ['dl_paper_front', 'dl_paper_back', 'dl_pet_front', 'dl_pet_back', 'dl_2025_front'];

export interface LicenceTruth {
  kind: LicenceSampleKind;
  /** The answer's type. */
  type: string;
  fields: Record<string, string>;
  /** The paper back's class and date arrays. */
  classes?: string[];
  dates?: string[];
}

const OLD_CLASSES = ['A1', 'A2', 'A3', 'B1', 'B2', 'C', 'D', 'E', 'FC'];
const NEW_CLASSES = ['A1', 'A', 'B1', 'B', 'C1', 'C', 'D1', 'D2', 'D', 'BE', 'C1E', 'CE'];

export async function renderLicence(kind: LicenceSampleKind, person: Person, rng: Rng, variation: Variation = {}): Promise<{ png: Buffer; truth: LicenceTruth }> {
  const jitter = variation.jitter ?? 0.03;
  const fonts = variation.fonts ?? installedFonts();
  const font = pick(rng, fonts);
  const labelFont = rng() < 0.7 ? font : pick(rng, fonts);
  const ink = pick(rng, ['#111', '#1a1a2a', '#202020', '#0d1f3a']);
  const labelInk = pick(rng, ['#2a2a2a', '#333', '#1f2f4f']);
  const size = between(rng, 23, 26);
  const dx = (rng() - 0.5) * 2 * jitter * W;
  const dy = (rng() - 0.5) * 2 * jitter * H * 0.5;
  const paper = kind.startsWith('dl_paper');
  const tint = paper
    ? pick(rng, [
        ['#f3e9d8', '#efe2c8'],
        ['#f1ead8', '#e9dcc0'],
      ])
    : pick(rng, [
        ['#f5e7e7', '#e8eef5'],
        ['#f2eadf', '#e2ecf2'],
      ]);
  let body = `<defs><linearGradient id="bg" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${tint[0]}"/><stop offset="1" stop-color="${tint[1]}"/></linearGradient></defs>`;
  body += `<rect width="${W}" height="${H}" fill="url(#bg)"/>${drawGuilloche(rng, pick(rng, ['#c0a0a0', '#a0b0c0', '#b0a890']))}`;
  const text = (x: number, y: number, s: string, sz: number, opts: { bold?: boolean; fill?: string; family?: string; anchor?: string } = {}) =>
    `<text x="${x.toFixed(1)}" y="${y.toFixed(1)}" font-family="${opts.family ?? font}" font-size="${sz.toFixed(1)}" fill="${opts.fill ?? ink}"${opts.bold ? ' font-weight="bold"' : ''}${opts.anchor ? ` text-anchor="${opts.anchor}"` : ''}>${esc(s)}</text>`;
  const year = Number(person.dob.slice(6));
  const issueYear = Math.max(year + 18, 2008 + Math.floor(rng() * 17));
  const date = `${pad(1 + Math.floor(rng() * 28))}/${pad(1 + Math.floor(rng() * 12))}/${issueYear}`;
  const classPool = kind === 'dl_2025_front' ? NEW_CLASSES : OLD_CLASSES;
  const cls = pick(rng, classPool);
  // Motorcycle classes of the old system never expire.
  const noExpiry = kind !== 'dl_2025_front' && ['A1', 'A2', 'A3'].includes(cls);
  const doe = noExpiry ? 'Không thời hạn' : `${date.slice(0, 6)}${issueYear + pick(rng, [5, 10])}`;
  const id = `${person.id12.slice(0, 2)}${person.id12.slice(4)}${pad(Math.floor(rng() * 100))}`.slice(0, 12);
  const place = pick(rng, ['Hà Nội', 'TP. Hồ Chí Minh', 'Đà Nẵng', 'Hải Phòng', 'Cần Thơ', 'Nghệ An', 'Thanh Hóa', 'Bình Dương']);
  const address = person.address.text;
  const type = { dl_paper_front: 'old', dl_paper_back: 'old_back', dl_pet_front: 'new', dl_pet_back: 'new_back', dl_2025_front: 'new' }[kind];
  const truth: LicenceTruth = { kind, type, fields: {} };
  body += text(W / 2 + dx * 0.3, 38, 'CỘNG HÒA XÃ HỘI CHỦ NGHĨA VIỆT NAM', 21, { bold: true, anchor: 'middle', family: labelFont });
  body += text(W / 2 + dx * 0.3, 62, 'Độc lập - Tự do - Hạnh phúc', 19, { anchor: 'middle', family: labelFont });
  const bilingual = !paper;
  const label = (vi: string, en: string) => (bilingual ? `${vi}/${en}:` : `${vi}:`);
  if (kind === 'dl_paper_back') {
    body += text(W / 2 + dx, 120 + dy, 'CÁC HẠNG XE ĐƯỢC ĐIỀU KHIỂN', 26, { bold: true, anchor: 'middle', family: labelFont, fill: '#6a1a1a' });
    body +=
      text(120 + dx, 170 + dy, 'Hạng xe', 20, { fill: labelInk, family: labelFont }) +
      text(420 + dx, 170 + dy, 'Ngày trúng tuyển', 20, { fill: labelInk, family: labelFont });
    const n = 1 + Math.floor(rng() * 3);
    const classes = [...OLD_CLASSES].sort(() => rng() - 0.5).slice(0, n);
    const dates: string[] = [];
    let y = 215 + dy;
    for (const [i, c] of classes.entries()) {
      const d = `${pad(1 + Math.floor(rng() * 28))}/${pad(1 + Math.floor(rng() * 12))}/${issueYear - i * 2}`;
      dates.push(d);
      body += text(130 + dx, y, c, size, { bold: true }) + text(420 + dx, y, d, size, { bold: true });
      y += between(rng, 44, 52);
    }
    body += text(W / 2 + dx, 560, 'Giấy phép lái xe có giá trị trong cả nước', 18, { anchor: 'middle', family: labelFont, fill: labelInk });
    truth.classes = classes;
    truth.dates = dates;
  } else if (kind === 'dl_pet_back') {
    body +=
      text(60 + dx, 110 + dy, 'Hạng/Class', 20, { bold: true, family: labelFont }) +
      text(230 + dx, 110 + dy, 'Loại xe được điều khiển/Vehicles', 20, { bold: true, family: labelFont });
    const rows: [string, string][] = [
      ['A1', 'Xe mô tô hai bánh có dung tích xi lanh từ 50 cm3'],
      ['A2', 'Xe mô tô hai bánh có dung tích xi lanh từ 175 cm3'],
      ['B1', 'Ô tô chở người đến 9 chỗ ngồi'],
      ['B2', 'Ô tô chở người đến 9 chỗ, ô tô tải dưới 3500 kg'],
      ['C', 'Ô tô tải từ 3500 kg trở lên'],
      ['D', 'Ô tô chở người từ 10 đến 30 chỗ'],
    ];
    let y = 150 + dy;
    for (const [c, d] of rows) {
      body += text(75 + dx, y, c, 20, { bold: true }) + text(230 + dx, y, d, 18);
      y += 44;
    }
    body += text(60 + dx, 450 + dy, 'Ngày trúng tuyển/Date', 18, { fill: labelInk, family: labelFont });
  } else {
    const header = kind === 'dl_2025_front' ? 'BỘ CÔNG AN' : paper ? 'BỘ GIAO THÔNG VẬN TẢI' : 'BỘ GIAO THÔNG VẬN TẢI';
    body += text(W / 2 + dx * 0.3, 96, paper ? 'GIẤY PHÉP LÁI XE' : "GIẤY PHÉP LÁI XE/DRIVER'S LICENSE", 26, {
      bold: true,
      anchor: 'middle',
      family: labelFont,
      fill: '#7a1a1a',
    });
    body += text(40 + dx * 0.3, 130, header, 15, { family: labelFont, fill: labelInk });
    body += drawFace({ x: 40 + dx * 0.3, y: 160, w: 200, h: 260 }, rng);
    const x0 = 270 + dx;
    let y = 165 + dy;
    const step = between(rng, 48, 54);
    const row = (l: string, v: string, bold = true) => {
      const lw = l.length * 0.6 * size * 0.78;
      const s = text(x0, y, l, size * 0.78, { fill: labelInk, family: labelFont }) + text(x0 + lw + 10, y, v, size, { bold });
      y += step;
      return s;
    };
    body += row(label('Số', 'No'), id);
    body += row(label('Họ tên', 'Full name'), person.name);
    body += row(label(paper ? 'Sinh ngày' : 'Ngày sinh', 'Date of birth'), person.dob);
    body += row(label('Quốc tịch', 'Nationality'), 'VIỆT NAM');
    // The address: one or two lines under/after its label.
    const addrLabel = label('Nơi cư trú', 'Address');
    const lw = addrLabel.length * 0.6 * size * 0.78;
    const words = address.split(' ');
    const cut = words.length > 6 ? Math.ceil(words.length / 2) : words.length;
    body +=
      text(x0, y, addrLabel, size * 0.78, { fill: labelInk, family: labelFont }) + text(x0 + lw + 10, y, words.slice(0, cut).join(' '), size * 0.92, { bold: true });
    if (cut < words.length) {
      y += size * 1.3;
      body += text(x0 + lw + 10, y, words.slice(cut).join(' '), size * 0.92, { bold: true });
    }
    y += step;
    const [dd, mm, yyyy] = date.split('/');
    body += text(x0 + 60, y, `${place}, ngày ${dd} tháng ${mm} năm ${yyyy}`, size * 0.8, { family: labelFont });
    y += step * 0.9;
    if (!paper) body += row(label('Hạng', 'Class'), cls);
    body += row(label('Có giá trị đến', 'Expires'), doe);
    const code = `${pick(rng, ['AB', 'AC', 'AD', 'AE'])}${String(Math.floor(rng() * 1e6)).padStart(6, '0')}`;
    if (paper) body += text(40 + dx * 0.3, 470, `Mã số: ${code}`, size * 0.8, { family: labelFont });
    truth.fields = { id, name: person.name, dob: person.dob, nation: 'VIỆT NAM', address, place_issue: place, date, doe };
    if (paper) truth.fields.code = code;
    else truth.fields.class = cls;
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">${body}</svg>`;
  return { png: await sharp(Buffer.from(svg)).png().toBuffer(), truth };
}

export interface LicenceSample {
  kind: LicenceSampleKind;
  truth: LicenceTruth;
  photo: Photo;
  flat: Buffer;
}

/** One photographed licence of a given (or random) kind, deterministic for the seed. */
export async function makeLicenceSample(seed: number, kind?: LicenceSampleKind, options: PhotoOptions = {}, variation?: Variation): Promise<LicenceSample> {
  const rng = seededRng(seed);
  const k = kind ?? pick(rng, LICENCE_SAMPLE_KINDS);
  const person = randomPerson(rng);
  const { png, truth } = await renderLicence(k, person, rng, variation);
  const photo = await photograph(png, rng, options);
  return { kind: k, truth, photo, flat: png };
}
