/**
 * What each ID card model (CMND, CCCD, chip card, 2024 card; fronts and backs)
 * prints, as the layout-free reader uses it: the printed labels of each field
 * (every wording of every issuing year, Vietnamese and bilingual), how its value
 * looks, how many lines it may take, and the printed words that are neither.
 * The side, answer type and fields of each kind are in layouts.ts; the values'
 * validators in pipeline/fields.ts (normaliseFields).
 */
import type { CardKind, IdCardField } from '../../layouts.js';
import type { DocumentModel, FieldSpec, ValueStyle } from '../model.js';

/**
 * Every wording the Vietnamese identity cards print for each field (1999 CMND to the 2024 CĂN CƯỚC); the
 * English half of a bilingual label alone too, for when OCR loses the Vietnamese half.
 */
const LABELS: Record<IdCardField, string[]> = {
  id: ['Số', 'Số / No.', 'Số định danh cá nhân', 'Số định danh cá nhân / Personal identification number'],
  name: [
    'Họ tên',
    'Họ và tên',
    'Họ và tên / Full name',
    'Họ, chữ đệm và tên khai sinh',
    'Họ, chữ đệm và tên khai sinh / Surname, middle name and given name',
    'Họ, chữ đệm và tên khai sinh / Full name',
    'Full name',
  ],
  dob: ['Sinh ngày', 'Ngày sinh', 'Ngày, tháng, năm sinh', 'Ngày sinh / Date of birth', 'Ngày, tháng, năm sinh / Date of birth', 'Date of birth'],
  sex: ['Giới tính', 'Giới tính / Sex'],
  nationality: ['Quốc tịch', 'Quốc tịch / Nationality', 'Nationality'],
  home: ['Quê quán', 'Nguyên quán', 'Quê quán / Place of origin', 'Place of origin'],
  address: ['Nơi thường trú', 'Nơi ĐKHK thường trú', 'Nơi thường trú / Place of residence', 'Nơi cư trú', 'Nơi cư trú / Place of residence', 'Place of residence'],
  doe: ['Có giá trị đến', 'Có giá trị đến / Date of expiry', 'Ngày, tháng, năm hết hạn', 'Ngày, tháng, năm hết hạn / Date of expiry'],
  features: ['Đặc điểm nhận dạng', 'Đặc điểm nhân dạng / Personal identification', 'Đặc điểm nhận dạng / Personal identification', 'Dấu vết riêng và dị hình'],
  issue_date: ['Ngày, tháng, năm', 'Ngày, tháng, năm / Date, month, year', 'Ngày, tháng, năm cấp', 'Ngày, tháng, năm cấp / Date of issue'],
  issue_loc: ['Giám đốc CA', 'Giám đốc Công an'],
  ethnicity: ['Dân tộc'],
  religion: ['Tôn giáo'],
  pob: ['Nơi đăng ký khai sinh', 'Nơi đăng ký khai sinh / Place of birth'],
};

const STYLE: Record<IdCardField, [ValueStyle, number]> = {
  id: ['digits', 1],
  name: ['name', 2],
  dob: ['date', 1],
  sex: ['text', 1],
  nationality: ['text', 1],
  home: ['address', 2],
  address: ['address', 3],
  doe: ['date', 1],
  features: ['text', 2],
  issue_date: ['date', 1],
  issue_loc: ['text', 1],
  ethnicity: ['text', 1],
  religion: ['text', 1],
  pob: ['address', 2],
};

const spec = (field: IdCardField, labels = LABELS[field]): FieldSpec<IdCardField> => ({ field, labels, style: STYLE[field][0], maxLines: STYLE[field][1] });

const FRONT_STOPS = ['Cộng hòa xã hội chủ nghĩa Việt Nam', 'Độc lập - Tự do - Hạnh phúc', 'Căn cước công dân', 'Citizen Identity Card', 'Chứng minh nhân dân'];
const BACK_STOPS = [
  'Ngón trỏ trái',
  'Ngón trỏ phải',
  'Cục trưởng cục cảnh sát',
  'Cục cảnh sát quản lý hành chính',
  'Về trật tự xã hội',
  'ĐKQL cư trú và DLQG về dân cư',
  'Bộ Công an',
  'Ministry of Public Security',
];

const model = (fields: FieldSpec<IdCardField>[], stops: string[]): DocumentModel<IdCardField> => ({ fields, stops });
const FRONT_12 = (['id', 'name', 'dob', 'sex', 'nationality', 'home', 'address', 'doe'] as IdCardField[]).map((f) => spec(f));

export const DOCUMENTS: Record<CardKind, DocumentModel<IdCardField>> = {
  cmnd_09_front: model((['id', 'name', 'dob', 'home', 'address'] as IdCardField[]).map((f) => spec(f)),
    [...FRONT_STOPS, 'Giấy chứng minh nhân dân'],
  ),
  // The 9-digit back prints its issue date as "Ngày 05 tháng 06 năm 2012": "Ngày" is the label, the rest the value.
  cmnd_09_back: model([spec('ethnicity'), spec('religion'), spec('features'), spec('issue_date', ['Ngày']), spec('issue_loc')], BACK_STOPS),
  cmnd_12_front: model(FRONT_12, FRONT_STOPS),
  cmnd_12_back: model([spec('features'), spec('issue_date')], BACK_STOPS),
  cccd_12_front: model(FRONT_12, FRONT_STOPS),
  cccd_12_back: model([spec('features'), spec('issue_date')], BACK_STOPS),
  cccd_chip_front: model(FRONT_12, FRONT_STOPS),
  cccd_chip_back: model([spec('features'), spec('issue_date')], BACK_STOPS),
  cccd_2024_front: model((['id', 'name', 'dob', 'sex', 'nationality'] as IdCardField[]).map((f) => spec(f)),
    [...FRONT_STOPS, 'Căn cước', 'Identity Card'],
  ),
  cccd_2024_back: model([spec('address'), spec('pob'), spec('issue_date'), spec('doe')], BACK_STOPS),
};
