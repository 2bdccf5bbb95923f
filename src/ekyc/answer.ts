/**
 * The /ocr answer's `data`: one `{key, locale, name, score, value}` per field
 * of the guide's list, taken from the reader's own answer item of the side
 * (its `<field>` and `<field>_prob`), "N/A" where the side has no such field.
 */
import type { DocumentType } from './config.js';

export interface DataItem {
  key: string;
  locale: string;
  /** The field's name in Vietnamese, as the guide's items carry it whatever `lang` says. */
  name: string;
  score: string;
  value: string;
}

const NA = 'N/A';

/** A guide key, its Vietnamese name, and where its value comes from in the reader's item. */
type Source = [key: string, name: string, from: string | ((item: Record<string, unknown>) => string)];

const entity = (part: 'province' | 'district' | 'ward' | 'street') => (item: Record<string, unknown>) => {
  const entities = item.address_entities as Record<string, string> | undefined;
  return entities?.[part] || NA;
};
const type = (item: Record<string, unknown>) => String(item.type ?? NA);

const ID_FRONT: Source[] = [
  ['ID', 'Số', 'id'],
  ['Name', 'Tên', 'name'],
  ['Date of birth', 'Ngày sinh', 'dob'],
  ['Sex', 'Giới tính', 'sex'],
  ['Nationality', 'Quốc tịch', 'nationality'],
  ['Home', 'Quê quán', 'home'],
  ['Address', 'Nơi thường trú', 'address'],
  ['Expired Date', 'Có giá trị đến', 'doe'],
  // The chip front's QR text (the reader's), unchanged; N/A where none was read.
  ['QRcode', 'Mã QR', (item) => (typeof item.QRcode === 'string' ? item.QRcode : NA)],
  ['Type', 'Loại giấy tờ', type],
  ['Province', 'Tỉnh/Thành phố', entity('province')],
  ['District', 'Quận/Huyện', entity('district')],
  ['Ward', 'Phường/Xã', entity('ward')],
  ['Street', 'Đường', entity('street')],
];

const ID_BACK: Source[] = [
  ['Features', 'Đặc điểm nhận dạng', 'features'],
  ['Issue Date', 'Ngày cấp', 'issue_date'],
  ['Issue Location', 'Nơi cấp', 'issue_loc'],
  ['MRZ', 'MRZ', 'mrz'],
];

const PASSPORT: Source[] = [
  ['ID', 'Số hộ chiếu', 'passport_number'],
  ['Name', 'Tên', 'name'],
  ['Date of birth', 'Ngày sinh', 'dob'],
  ['Sex', 'Giới tính', 'sex'],
  ['Nationality', 'Quốc tịch', 'nationality'],
  ['Issue Date', 'Ngày cấp', 'doi'],
  ['Expired Date', 'Có giá trị đến', 'doe'],
  ['Type', 'Loại giấy tờ', type],
];

const LICENCE_FRONT: Source[] = [
  ['ID', 'Số', 'id'],
  ['Name', 'Tên', 'name'],
  ['Date of birth', 'Ngày sinh', 'dob'],
  ['Nationality', 'Quốc tịch', 'nation'],
  ['Address', 'Nơi cư trú', 'address'],
  ['Issue Location', 'Nơi cấp', 'place_issue'],
  ['Issue Date', 'Ngày cấp', 'date'],
  ['Expired Date', 'Có giá trị đến', 'doe'],
  ['Type', 'Loại giấy tờ', type],
];

const LICENCE_BACK: Source[] = [['Type', 'Loại giấy tờ', type]];

function sourcesOf(documentType: DocumentType, side: 'front' | 'back', item: Record<string, unknown>): Source[] {
  if (documentType === 'passport') return PASSPORT;
  if (documentType === 'dlr') return side === 'front' ? LICENCE_FRONT : LICENCE_BACK;
  if (side === 'front') return ID_FRONT;
  // The 2024 card prints the address and the expiry on its back.
  const printedHere = ID_FRONT.filter(([, , from]) => typeof from === 'string' && item[from] !== undefined && item[from] !== NA);
  return [...ID_BACK, ...printedHere];
}

/** The guide's items of one side from the reader's item of that side. */
export function dataItems(documentType: DocumentType, side: 'front' | 'back', item: Record<string, unknown>): DataItem[] {
  return sourcesOf(documentType, side, item).map(([key, name, from]) => {
    const value = typeof from === 'string' ? item[from] : from(item);
    const score = typeof from === 'string' ? item[`${from}_prob`] : undefined;
    return {
      key,
      locale: 'vn',
      name,
      score: typeof score === 'string' && value !== NA ? score : NA,
      value: value === undefined || value === null || value === '' ? NA : String(value),
    };
  });
}
