/**
 * The full flow's code tables (the original's integration guide, docs/ekyc.md):
 * each entry's HTTP status and code as the guide's tables give them, with the
 * English message as the guide words it and a Vietnamese one. The three
 * endpoints answer in three body shapes; `lang` picks the message.
 */
import { defineCatalogue, ServiceError, type CatalogueEntry, type PlatformCondition, type ServiceErrorShape } from '../platform/http/errors.js';

export type Lang = 'en' | 'vi';

export interface EkycEntry extends CatalogueEntry {
  code: string;
  vi: string;
}

const entry = (status: number, code: string, message: string, vi: string): EkycEntry => ({ status, code, message, vi });

/** POST /session/init. */
export const InitErrors = defineCatalogue({
  deviceType: entry(400, '400', 'device type must be provided', 'Thiếu hoặc sai loại thiết bị (device-type)'),
  apiKey: entry(401, '401', 'get api key info failed', 'Thiếu hoặc sai API key'),
  badRequest: entry(400, '400', 'Invalid request', 'Yêu cầu không hợp lệ'),
});

/** GET and PUT /session/settings (Saola's own: the guide has no settings endpoint). */
export const SettingsErrors = defineCatalogue({
  invalid: entry(400, '400', 'Invalid settings', 'Cài đặt không hợp lệ'),
});

/** POST /ocr and the refusals /face/liveness shares with it (session, order). */
export const OcrErrors = defineCatalogue({
  apiKey: entry(200, '400', 'api-key must be provided', 'Thiếu hoặc sai API key'),
  documentTypeMissing: entry(200, '400', 'document-type header must be provided', 'Thiếu loại giấy tờ (document-type)'),
  documentTypeInvalid: entry(200, '400', 'document-type value is invalid', 'Loại giấy tờ (document-type) không hợp lệ'),
  sessionExpired: entry(403, '403', 'Session expired', 'Phiên eKYC đã hết hạn'),
  sessionMissing: entry(200, '400', 'uuid must be provided', 'Thiếu hoặc sai mã phiên (session-id)'),
  countryCode: entry(200, '400', 'country code value is invalid', 'Mã ngôn ngữ không hợp lệ'),
  deviceType: entry(200, '400', 'device type must be provided', 'Thiếu hoặc sai loại thiết bị (device-type)'),
  frontFirst: entry(200, 'E101', 'Front picture must be taken first', 'Vui lòng chụp mặt trước giấy tờ trước'),
  documentTypeUnsupported: entry(200, 'E102', 'Document type is not supported', 'Loại giấy tờ không được hỗ trợ'),
  rearNeeded: entry(200, 'E103', 'Please capture your rear document', 'Vui lòng chụp mặt sau giấy tờ'),
  wrongSide: entry(200, 'E110', 'Wrong side-type of document', 'Sai mặt giấy tờ'),

  invalidParameters: entry(400, '1', 'Invalid Parameters or Values', 'Tham số hoặc giá trị không hợp lệ'),
  documentNotFound: entry(400, '3', 'Unable to find the selected document in the image', 'Không tìm thấy giấy tờ trong ảnh'),
  invalidImage: entry(400, '7', 'Invalid image file', 'Tệp ảnh không hợp lệ'),

  lowResolution: entry(200, 'QC01', 'Image resolution is too low', 'Độ phân giải ảnh quá thấp'),
  brightSpots: entry(200, 'QC02', 'Image has bright spot(s)', 'Ảnh có điểm chói sáng'),
  blurry: entry(200, 'QC03', 'Image is blurry', 'Ảnh bị mờ'),
  badLuminance: entry(200, 'QC04', 'Image has bad luminance', 'Ảnh có độ sáng không phù hợp'),

  photocopy: entry(200, 'FC01', 'Document is black-and-white photocopy', 'Giấy tờ là bản photo đen trắng'),
  recaptured: entry(200, 'FC02', 'Document has been re-captured from LCD screen', 'Giấy tờ được chụp lại từ màn hình'),
  edited: entry(200, 'FC03', 'Document has been edited or is colored photocopy', 'Giấy tờ đã bị chỉnh sửa hoặc là bản photo màu'),
  cornerCut: entry(200, 'FC04', 'Document has been cornered', 'Giấy tờ bị cắt góc'),
  missingFace: entry(200, 'FC05', 'Missing face on front side of document', 'Không có ảnh chân dung ở mặt trước giấy tờ'),
  missingQr: entry(200, 'FC06', 'Missing QRcode on front side of document', 'Không có mã QR ở mặt trước giấy tờ'),
  missingMrz: entry(200, 'FC07', 'Missing MRZ on back side of document', 'Không có vùng MRZ ở mặt sau giấy tờ'),

  /** The fraud memory (DB check): not in the guide's tables; Saola's own codes, docs/ekyc.md. */
  knownFraudId: entry(200, 'DB01', 'ID number was used in a recent fraudulent session', 'Số giấy tờ đã được dùng trong một phiên gian lận gần đây'),
  knownFraudFace: entry(200, 'DB02', 'Face matches a recent fraudulent session', 'Khuôn mặt trùng với một phiên gian lận gần đây'),

  busy: entry(429, '429', 'Too many requests; try again shortly', 'Quá nhiều yêu cầu; vui lòng thử lại sau'),
  bodyTooLarge: entry(413, '1', 'Invalid Parameters or Values', 'Tham số hoặc giá trị không hợp lệ'),
  routeNotFound: entry(404, '404', 'Route not found', 'Không tìm thấy đường dẫn'),
  methodNotAllowed: entry(405, '405', 'Method not allowed', 'Phương thức không được hỗ trợ'),
  internal: entry(500, '500', 'Internal error; it has been logged', 'Lỗi hệ thống; đã được ghi nhận'),
});

/** The post-check codes as the full-flow guide words them (its wording differs from the fraud check's table). */
export const POST_CHECK: Record<string, { message: string; vi: string }> = {
  'E-1': { message: 'Cannot do postcheck', vi: 'Không thể hậu kiểm' },
  E01: { message: 'There is a blank field', vi: 'Có trường thông tin trống' },
  E02: { message: 'ID format is not correct', vi: 'Định dạng số giấy tờ không đúng' },
  E03: { message: 'DoB format is not correct', vi: 'Định dạng ngày sinh không đúng' },
  E04: { message: 'DoB is later than today', vi: 'Ngày sinh sau ngày hôm nay' },
  E05: { message: 'Current age cannot be smaller than 14', vi: 'Tuổi hiện tại không được nhỏ hơn 14' },
  E06: { message: 'Nationality is not correct', vi: 'Quốc tịch không đúng' },
  E07: { message: 'Year in DoB does not match with ID number', vi: 'Năm sinh không khớp với số giấy tờ' },
  E08: { message: 'Gender code does not match', vi: 'Mã giới tính không khớp' },
  E09: { message: 'DoE format is not correct', vi: 'Định dạng ngày hết hạn không đúng' },
  E10: { message: 'ID card has been expired', vi: 'Giấy tờ đã hết hạn' },
  E11: { message: 'DoE cannot be KHÔNG THỜI HẠN', vi: 'Ngày hết hạn không thể là KHÔNG THỜI HẠN' },
  E12: { message: 'DoI format is not correct', vi: 'Định dạng ngày cấp không đúng' },
  E13: { message: 'DoI is later than today', vi: 'Ngày cấp sau ngày hôm nay' },
  E15: {
    message: 'Please send images of the front and the back side of same type ID (old or new ID)',
    vi: 'Vui lòng gửi ảnh mặt trước và mặt sau của cùng một loại giấy tờ (cũ hoặc mới)',
  },
  E16: { message: 'There is a blank field in the front side', vi: 'Có trường thông tin trống ở mặt trước' },
  E17: { message: 'Age at issue date cannot be smaller than 14', vi: 'Tuổi tại ngày cấp không được nhỏ hơn 14' },
  E18: { message: 'DoE should be DoI + 15 years', vi: 'Ngày hết hạn phải là ngày cấp cộng 15 năm' },
  E19: { message: 'DoE should be birthday at 25 years old', vi: 'Ngày hết hạn phải là sinh nhật tuổi 25' },
  E20: { message: 'DoE should be birthday at 40 years old', vi: 'Ngày hết hạn phải là sinh nhật tuổi 40' },
  E21: { message: 'DoE should be birthday at 60 years old', vi: 'Ngày hết hạn phải là sinh nhật tuổi 60' },
  E22: { message: 'DoE should be KHÔNG THỜI HẠN', vi: 'Ngày hết hạn phải là KHÔNG THỜI HẠN' },
  E23: { message: 'Passport has been expired', vi: 'Hộ chiếu đã hết hạn' },
  E24: { message: 'Passport number format is not correct', vi: 'Định dạng số hộ chiếu không đúng' },
  E25: { message: 'Name format is not correct', vi: 'Định dạng họ tên không đúng' },
  E30: { message: 'Front side and back side are not from the same card', vi: 'Mặt trước và mặt sau không cùng một thẻ' },
  E32: { message: 'Type of document does not match issue date', vi: 'Loại giấy tờ không khớp với ngày cấp' },
};

/** A post-check outcome as an /ocr refusal (HTTP 200, the code in errorCode). */
export function postCheckEntry(code: string): EkycEntry {
  const text = POST_CHECK[code] ?? POST_CHECK['E-1'];
  return entry(200, POST_CHECK[code] ? code : 'E-1', text.message, text.vi);
}

/** The liveness step's top-level codes (the guide's table; 406-423 as in liveness v3) and their messages. */
export const LIVENESS_TEXT: Record<string, { message: string; vi: string }> = {
  '200': { message: 'request successful', vi: 'Yêu cầu thành công' },
  '301': { message: 'Face in video is spoof', vi: 'Khuôn mặt không phải người thật' },
  '302': { message: 'Video seems like deepfake', vi: 'Video có dấu hiệu giả mạo (deepfake)' },
  '303': { message: 'Face is not matching with document', vi: 'Khuôn mặt không khớp với giấy tờ' },
  '406': { message: 'Face quality is not good enough (covered, too dark/bright..)', vi: 'Chất lượng ảnh khuôn mặt không đạt (bị che, quá tối hoặc quá sáng)' },
  '407': { message: 'No faces detected in document', vi: 'Không tìm thấy khuôn mặt trên giấy tờ' },
  '408': { message: 'More than 1 face in the video', vi: 'Có nhiều hơn một khuôn mặt' },
  '409': { message: 'Invalid upload image', vi: 'Ảnh tải lên không hợp lệ' },
  '410': { message: 'No face/Lost face in the video', vi: 'Không tìm thấy khuôn mặt' },
  '411': { message: 'The face is too small', vi: 'Khuôn mặt quá nhỏ' },
  '412': { message: 'The face is too blurry', vi: 'Khuôn mặt bị mờ' },
  '413': { message: 'Video may seem like image', vi: 'Video có thể là ảnh tĩnh' },
  '422': { message: 'No frontal face in video', vi: 'Không có khuôn mặt nhìn thẳng' },
  '423': { message: 'Face is out of frame during video', vi: 'Khuôn mặt ra khỏi khung hình' },
};

export const livenessMessage = (code: string, lang: Lang): string | undefined => {
  const text = LIVENESS_TEXT[code];
  return text && (lang === 'vi' ? text.vi : text.message);
};

/** An eKYC refusal; its details carry the request's language to the shape's render. */
export class EkycError extends ServiceError {
  constructor(entry: EkycEntry, lang: Lang = 'en') {
    super(entry, entry.message, { lang });
    this.name = 'EkycError';
  }
}

const messageOf = (e: CatalogueEntry, lang: Lang): string => (lang === 'vi' && 'vi' in e ? String((e as EkycEntry).vi) : e.message);

function platform(unauthorized: EkycEntry, invalidRequest: EkycEntry): Record<PlatformCondition, CatalogueEntry> {
  return {
    unauthorized,
    bodyTooLarge: OcrErrors.bodyTooLarge,
    busy: OcrErrors.busy,
    invalidRequest,
    routeNotFound: OcrErrors.routeNotFound,
    methodNotAllowed: OcrErrors.methodNotAllowed,
    internal: OcrErrors.internal,
  };
}

/** The message an error is answered with: the catalogue's, in the request's language (details carry it). */
const answerMessage = (e: CatalogueEntry, details: unknown): string => messageOf(e, (details as { lang?: Lang } | undefined)?.lang ?? 'en');

/** /session/init and /session/settings: `{code, message}`; a settings refusal says which setting is wrong. */
export const initErrorShape: ServiceErrorShape = {
  service: 'ekyc',
  platform: platform(InitErrors.apiKey, InitErrors.badRequest),
  render: (e, message, details) => ({ code: String(e.code), message: e === SettingsErrors.invalid ? message : answerMessage(e, details) }),
};

/** /ocr: the recognition envelope of the guide, `{data, errorCode, errorMessage, total_data}`. */
export const ocrErrorShape: ServiceErrorShape = {
  service: 'ekyc',
  platform: platform(OcrErrors.apiKey, OcrErrors.invalidParameters),
  render: (e, _message, details) => ({ data: [], errorCode: String(e.code), errorMessage: answerMessage(e, details), total_data: [] }),
};

/** /face/liveness: `{code, message}` (the liveness and face match parts only when the selfie was judged). */
export const livenessErrorShape: ServiceErrorShape = {
  service: 'ekyc',
  platform: platform(OcrErrors.apiKey, OcrErrors.invalidParameters),
  render: (e, _message, details) => ({ code: String(e.code), message: answerMessage(e, details) }),
};
