/**
 * Where things usually are on each kind of Vietnamese ID card, in the
 * coordinates of the flattened card (CARD_WIDTH x CARD_HEIGHT, the ID-1 aspect
 * 85.6 x 54 mm): the fields each side answers, the answer's `type`, the
 * portrait's box and the MRZ band. Fields are found by their printed labels
 * (documents.ts, pipeline/anchors.ts); the line bands here are only a prior,
 * used by the fallback reading when the labels cannot be read at all. The test-card
 * generator has its own templates (bench/idcard-templates.ts).
 */

export const CARD_WIDTH = 1000;
export const CARD_HEIGHT = 630;

export type CardKind =
  | 'cmnd_09_front'
  | 'cmnd_09_back'
  | 'cmnd_12_front'
  | 'cmnd_12_back'
  | 'cccd_12_front'
  | 'cccd_12_back'
  | 'cccd_chip_front'
  | 'cccd_chip_back'
  /** The 2024 citizen card ("CĂN CƯỚC", Law on Identification 2023). */
  | 'cccd_2024_front'
  | 'cccd_2024_back';

/** The `type` value of the answer (DECISIONS.md). */
export type CardType = 'old' | 'old_back' | 'new' | 'new_back' | 'chip_front' | 'chip_back';

export type IdCardField =
  | 'id'
  | 'name'
  | 'dob'
  | 'sex'
  | 'nationality'
  | 'home'
  | 'address'
  | 'doe'
  | 'religion'
  | 'ethnicity'
  | 'features'
  | 'issue_date'
  | 'issue_loc'
  /** Place of birth registration (2024 card back). */
  | 'pob';

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** One printed text line that carries (part of) a field: label then value, inside the band. */
export interface FieldLine extends Box {
  field: IdCardField;
  /** Printed label before the value on this line ('' when the value stands alone). */
  label: string;
  /** Continuation lines of a long value: 0 first, 1 second. */
  part: number;
  /** How the value is printed, which also tells OCR what to expect. */
  style: 'text' | 'name' | 'digits' | 'date';
  /** Font size of the value in card pixels. */
  size: number;
  /** The line holds only the label; the value starts on the next line. */
  labelOnly?: boolean;
}

export interface StaticText {
  text: string;
  x: number;
  y: number;
  size: number;
  bold?: boolean;
  color?: string;
  anchor?: 'start' | 'middle';
}

export interface CardLayout {
  kind: CardKind;
  side: 'front' | 'back';
  type: CardType;
  /** Fields of the answer for this side, in order (others of the category answer N/A). */
  fields: IdCardField[];
  lines: FieldLine[];
  /** Printed words that are always there: titles, headers (the classifier reads them). */
  statics: StaticText[];
  photo?: Box;
  emblem?: Box;
  qr?: Box;
  chip?: Box;
  fingerprints?: Box[];
  mrz?: Box;
  /** Card background tint. */
  tint: [string, string];
}

const FRONT_FIELDS_NEW: IdCardField[] = ['id', 'name', 'dob', 'sex', 'nationality', 'home', 'address', 'doe'];
const HEADER_1 = 'CỘNG HÒA XÃ HỘI CHỦ NGHĨA VIỆT NAM';
const HEADER_2 = 'Độc lập - Tự do - Hạnh phúc';

const labelLine = (field: IdCardField, x: number, y: number, w: number, label: string, size: number): FieldLine => ({
  ...line(field, x, y, w, label, 'text', 0, size),
  labelOnly: true,
});

function line(field: IdCardField, x: number, y: number, w: number, label: string, style: FieldLine['style'] = 'text', part = 0, size = 25): FieldLine {
  return {
    field,
    x,
    y,
    w,
    h: Math.round(size * 1.7),
    label,
    part,
    style,
    size,
  };
}

export const LAYOUTS: Record<CardKind, CardLayout> = {
  cmnd_09_front: {
    kind: 'cmnd_09_front',
    side: 'front',
    type: 'old',
    fields: ['id', 'name', 'dob', 'home', 'address'],
    tint: ['#d9ecec', '#b9d8e0'],
    emblem: { x: 60, y: 60, w: 180, h: 180 },
    photo: { x: 70, y: 300, w: 170, h: 230 },
    statics: [
      { text: HEADER_1, x: 625, y: 58, size: 24, bold: true, anchor: 'middle' },
      { text: HEADER_2, x: 625, y: 92, size: 22, anchor: 'middle' },
      { text: 'GIẤY CHỨNG MINH NHÂN DÂN', x: 625, y: 150, size: 34, bold: true, anchor: 'middle' },
      { text: 'SỐ', x: 430, y: 205, size: 30, bold: true, color: '#c01818' },
    ],
    lines: [
      line('id', 480, 172, 320, '', 'digits', 0, 32),
      line('name', 280, 240, 710, 'Họ tên:', 'name', 0, 26),
      line('name', 280, 287, 710, '', 'name', 1, 26),
      line('dob', 280, 334, 710, 'Sinh ngày:', 'date'),
      line('home', 280, 381, 710, 'Nguyên quán:'),
      line('home', 280, 428, 710, '', 'text', 1),
      line('address', 280, 475, 710, 'Nơi ĐKHK thường trú:'),
      line('address', 280, 522, 710, '', 'text', 1),
    ],
  },
  cmnd_09_back: {
    kind: 'cmnd_09_back',
    side: 'back',
    type: 'old_back',
    fields: ['religion', 'ethnicity', 'features', 'issue_date', 'issue_loc'],
    tint: ['#e1eeee', '#c9e0e4'],
    fingerprints: [
      { x: 40, y: 90, w: 170, h: 220 },
      { x: 230, y: 90, w: 170, h: 220 },
    ],
    statics: [
      { text: 'NGÓN TRỎ TRÁI', x: 125, y: 75, size: 18, bold: true, anchor: 'middle' },
      { text: 'NGÓN TRỎ PHẢI', x: 315, y: 75, size: 18, bold: true, anchor: 'middle' },
      { text: 'DẤU VẾT RIÊNG VÀ DỊ HÌNH', x: 700, y: 140, size: 24, bold: true, anchor: 'middle' },
    ],
    lines: [
      line('ethnicity', 430, 30, 280, 'Dân tộc:'),
      line('religion', 710, 30, 280, 'Tôn giáo:'),
      line('features', 430, 160, 560, ''),
      line('features', 430, 207, 560, '', 'text', 1),
      line('issue_date', 430, 300, 560, 'Ngày', 'date'),
      line('issue_loc', 430, 350, 560, 'GIÁM ĐỐC CA'),
    ],
  },
  cmnd_12_front: {
    kind: 'cmnd_12_front',
    side: 'front',
    type: 'new',
    fields: FRONT_FIELDS_NEW,
    tint: ['#f2e8d8', '#d9e6f2'],
    emblem: { x: 50, y: 40, w: 150, h: 150 },
    photo: { x: 50, y: 250, w: 200, h: 260 },
    statics: [
      { text: HEADER_1, x: 615, y: 50, size: 24, bold: true, anchor: 'middle' },
      { text: HEADER_2, x: 615, y: 84, size: 22, anchor: 'middle' },
      { text: 'CHỨNG MINH NHÂN DÂN', x: 615, y: 135, size: 36, bold: true, color: '#b01010', anchor: 'middle' },
    ],
    lines: [
      line('id', 300, 150, 640, 'Số:', 'digits', 0, 32),
      line('name', 300, 212, 690, 'Họ và tên:', 'name', 0, 27),
      line('name', 300, 260, 690, '', 'name', 1, 27),
      line('dob', 300, 308, 330, 'Ngày sinh:', 'date', 0, 24),
      line('sex', 640, 308, 350, 'Giới tính:', 'text', 0, 24),
      line('nationality', 300, 352, 690, 'Quốc tịch:', 'text', 0, 24),
      line('home', 300, 396, 690, 'Quê quán:', 'text', 0, 24),
      line('address', 300, 440, 690, 'Nơi thường trú:', 'text', 0, 24),
      line('address', 300, 484, 690, '', 'text', 1, 24),
      line('doe', 40, 560, 420, 'Có giá trị đến:', 'date', 0, 22),
    ],
  },
  cmnd_12_back: {
    kind: 'cmnd_12_back',
    side: 'back',
    type: 'new_back',
    fields: ['features', 'issue_date'],
    tint: ['#efe6d6', '#dbe5ee'],
    fingerprints: [
      { x: 40, y: 80, w: 170, h: 220 },
      { x: 230, y: 80, w: 170, h: 220 },
    ],
    statics: [
      { text: 'Ngón trỏ trái', x: 125, y: 65, size: 18, bold: true, anchor: 'middle' },
      { text: 'Ngón trỏ phải', x: 315, y: 65, size: 18, bold: true, anchor: 'middle' },
      { text: 'CỤC TRƯỞNG CỤC CẢNH SÁT', x: 700, y: 320, size: 20, bold: true, anchor: 'middle' },
      { text: 'ĐKQL CƯ TRÚ VÀ DLQG VỀ DÂN CƯ', x: 700, y: 348, size: 20, bold: true, anchor: 'middle' },
    ],
    lines: [
      line('features', 430, 60, 560, 'Đặc điểm nhận dạng:'),
      line('features', 430, 107, 560, '', 'text', 1),
      line('issue_date', 430, 230, 560, 'Ngày, tháng, năm:', 'date'),
    ],
  },
  cccd_12_front: {
    kind: 'cccd_12_front',
    side: 'front',
    type: 'new',
    fields: FRONT_FIELDS_NEW,
    tint: ['#eef0e6', '#dde8f4'],
    emblem: { x: 50, y: 40, w: 150, h: 150 },
    photo: { x: 50, y: 250, w: 200, h: 260 },
    statics: [
      { text: HEADER_1, x: 615, y: 50, size: 24, bold: true, anchor: 'middle' },
      { text: HEADER_2, x: 615, y: 84, size: 22, anchor: 'middle' },
      { text: 'CĂN CƯỚC CÔNG DÂN', x: 615, y: 135, size: 36, bold: true, color: '#b01010', anchor: 'middle' },
    ],
    lines: [
      line('id', 300, 150, 640, 'Số:', 'digits', 0, 32),
      line('name', 300, 212, 690, 'Họ và tên:', 'name', 0, 27),
      line('name', 300, 260, 690, '', 'name', 1, 27),
      line('dob', 300, 308, 330, 'Ngày sinh:', 'date', 0, 24),
      line('sex', 640, 308, 350, 'Giới tính:', 'text', 0, 24),
      line('nationality', 300, 352, 690, 'Quốc tịch:', 'text', 0, 24),
      line('home', 300, 396, 690, 'Quê quán:', 'text', 0, 24),
      line('address', 300, 440, 690, 'Nơi thường trú:', 'text', 0, 24),
      line('address', 300, 484, 690, '', 'text', 1, 24),
      line('doe', 40, 560, 420, 'Có giá trị đến:', 'date', 0, 22),
    ],
  },
  cccd_12_back: {
    kind: 'cccd_12_back',
    side: 'back',
    type: 'new_back',
    fields: ['features', 'issue_date'],
    tint: ['#eef0e6', '#dde8f4'],
    fingerprints: [
      { x: 40, y: 80, w: 170, h: 220 },
      { x: 230, y: 80, w: 170, h: 220 },
    ],
    statics: [
      { text: 'Ngón trỏ trái', x: 125, y: 65, size: 18, bold: true, anchor: 'middle' },
      { text: 'Ngón trỏ phải', x: 315, y: 65, size: 18, bold: true, anchor: 'middle' },
      { text: 'CỤC TRƯỞNG CỤC CẢNH SÁT', x: 700, y: 320, size: 20, bold: true, anchor: 'middle' },
      { text: 'ĐKQL CƯ TRÚ VÀ DLQG VỀ DÂN CƯ', x: 700, y: 348, size: 20, bold: true, anchor: 'middle' },
    ],
    lines: [
      line('features', 430, 60, 560, 'Đặc điểm nhận dạng:'),
      line('features', 430, 107, 560, '', 'text', 1),
      line('issue_date', 430, 230, 560, 'Ngày, tháng, năm:', 'date'),
    ],
  },
  cccd_chip_front: {
    kind: 'cccd_chip_front',
    side: 'front',
    type: 'chip_front',
    fields: FRONT_FIELDS_NEW,
    tint: ['#f4efe4', '#cfe0f0'],
    emblem: { x: 40, y: 30, w: 140, h: 140 },
    photo: { x: 40, y: 240, w: 200, h: 260 },
    qr: { x: 830, y: 25, w: 140, h: 140 },
    statics: [
      { text: HEADER_1, x: 505, y: 50, size: 23, bold: true, anchor: 'middle' },
      { text: HEADER_2, x: 505, y: 80, size: 21, anchor: 'middle' },
      { text: 'CĂN CƯỚC CÔNG DÂN', x: 505, y: 128, size: 34, bold: true, color: '#b01010', anchor: 'middle' },
      { text: 'Citizen Identity Card', x: 505, y: 156, size: 20, anchor: 'middle' },
    ],
    lines: [
      line('id', 270, 170, 560, 'Số / No.:', 'digits', 0, 30),
      labelLine('name', 270, 220, 720, 'Họ và tên / Full name:', 20),
      line('name', 270, 254, 720, '', 'name', 1, 27),
      line('dob', 270, 303, 720, 'Ngày sinh / Date of birth:', 'date', 0, 23),
      line('sex', 270, 345, 300, 'Giới tính / Sex:', 'text', 0, 23),
      line('nationality', 575, 345, 415, 'Quốc tịch / Nationality:', 'text', 0, 23),
      labelLine('home', 270, 387, 720, 'Quê quán / Place of origin:', 20),
      line('home', 270, 421, 720, '', 'text', 1, 24),
      labelLine('address', 270, 463, 720, 'Nơi thường trú / Place of residence:', 20),
      line('address', 270, 497, 720, '', 'text', 1, 24),
      line('address', 270, 539, 720, '', 'text', 2, 24),
      labelLine('doe', 30, 520, 235, 'Có giá trị đến:', 17),
      line('doe', 30, 552, 235, '', 'date', 1, 19),
    ],
  },
  cccd_chip_back: {
    kind: 'cccd_chip_back',
    side: 'back',
    type: 'chip_back',
    fields: ['features', 'issue_date'],
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
      { text: 'CỤC TRƯỞNG CỤC CẢNH SÁT QUẢN LÝ HÀNH CHÍNH', x: 330, y: 360, size: 17, bold: true, anchor: 'middle' },
      { text: 'VỀ TRẬT TỰ XÃ HỘI', x: 330, y: 385, size: 17, bold: true, anchor: 'middle' },
    ],
    lines: [
      labelLine('features', 30, 215, 640, 'Đặc điểm nhân dạng / Personal identification:', 18),
      line('features', 30, 245, 640, '', 'text', 1, 22),
      line('issue_date', 30, 290, 640, 'Ngày, tháng, năm / Date, month, year:', 'date', 0, 20),
    ],
  },
  // The 2024 card is read by its labels only (no band prior). Its `type` is the chip card's (it is one);
  // `type_new` tells it apart.
  cccd_2024_front: {
    kind: 'cccd_2024_front',
    side: 'front',
    type: 'chip_front',
    fields: ['id', 'name', 'dob', 'sex', 'nationality'],
    tint: ['#f6eee6', '#d6e4f2'],
    photo: { x: 40, y: 250, w: 200, h: 260 },
    statics: [],
    lines: [],
  },
  cccd_2024_back: {
    kind: 'cccd_2024_back',
    side: 'back',
    type: 'chip_back',
    fields: ['address', 'pob', 'issue_date', 'doe'],
    tint: ['#f6eee6', '#d6e4f2'],
    mrz: { x: 30, y: 420, w: 940, h: 190 },
    statics: [],
    lines: [],
  },
};

/** The header band the classifier reads: the title of a front, the top text of a back. */
export const CLASSIFY_BAND: Box = { x: 0, y: 0, w: CARD_WIDTH, h: 170 };
