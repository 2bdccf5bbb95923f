/**
 * Street names found in most Vietnamese towns (streets are named after the same
 * national figures and events everywhere). A street part whose words spell one
 * of them without accents gets the accents back: OCR often loses or changes a
 * tone mark ("Trân Hưng Đạo"), and no gazetteer covers streets. Only exact
 * accent-insensitive matches count, so an unknown street is left as read.
 */
import { fold } from './text.js';

export const STREET_NAMES = [
  'Trần Hưng Đạo',
  'Lê Lợi',
  'Nguyễn Huệ',
  'Hai Bà Trưng',
  'Lý Thường Kiệt',
  'Quang Trung',
  'Lê Duẩn',
  'Nguyễn Trãi',
  'Hùng Vương',
  'Trần Phú',
  'Phan Đình Phùng',
  'Nguyễn Du',
  'Lê Lai',
  'Lê Thánh Tông',
  'Trần Quốc Toản',
  'Nguyễn Thái Học',
  'Phan Chu Trinh',
  'Phan Bội Châu',
  'Nguyễn Văn Cừ',
  'Võ Thị Sáu',
  'Bà Triệu',
  'Điện Biên Phủ',
  'Cách Mạng Tháng Tám',
  'Lê Hồng Phong',
  'Nguyễn Văn Linh',
  'Tôn Đức Thắng',
  'Hoàng Văn Thụ',
  'Trường Chinh',
  'Võ Nguyên Giáp',
  'Phạm Văn Đồng',
  'Nguyễn Thị Minh Khai',
  'Lý Thái Tổ',
  'Lý Tự Trọng',
  'Nguyễn Đình Chiểu',
  'Ngô Quyền',
  'Đinh Tiên Hoàng',
  'Lê Quý Đôn',
  'Nguyễn Chí Thanh',
  'Trần Nhân Tông',
  'Hoàng Diệu',
  'Nguyễn Trung Trực',
  'Nam Kỳ Khởi Nghĩa',
  'Hàm Nghi',
  'Hàng Bài',
  'Tràng Tiền',
  'Nguyễn Công Trứ',
  'Trần Bình Trọng',
  'Chu Văn An',
  'Nguyễn Khuyến',
  'Tô Hiến Thành',
  'Lê Văn Sỹ',
  'Nguyễn Văn Trỗi',
  'Phạm Ngũ Lão',
  'Trần Khánh Dư',
  'Lạc Long Quân',
  'Âu Cơ',
  'Kim Mã',
  'Giải Phóng',
  'Thống Nhất',
  'Độc Lập',
  'Hòa Bình',
  'Ba Tháng Hai',
  'Ba Mươi Tháng Tư',
  'Mạc Đĩnh Chi',
  'Nguyễn Bỉnh Khiêm',
  'Trần Quang Khải',
  'Trần Khát Chân',
  'Lê Thị Riêng',
  'Nguyễn Thị Định',
  'Xô Viết Nghệ Tĩnh',
  'Hồ Tùng Mậu',
  'Cầu Giấy',
  'Lê Đại Hành',
  'Lý Nam Đế',
  'Nguyễn Lương Bằng',
  'Tây Sơn',
  'Đống Đa',
  'Bạch Đằng',
  'Chi Lăng',
  'Lam Sơn',
  'Hoàng Hoa Thám',
  'Nguyễn Tất Thành',
  'Võ Văn Kiệt',
  'Nguyễn Hữu Thọ',
  'Huỳnh Thúc Kháng',
  'Lương Thế Vinh',
];

const BY_FOLD = new Map(STREET_NAMES.map((n) => [fold(n), n]));
const MAX_WORDS = Math.max(...STREET_NAMES.map((n) => n.split(' ').length));

/** Gives known street names in `street` (words as printed, maybe with commas) their accents back. */
export function fixStreetNames(street: string): string {
  const words = street.split(' ');
  for (let i = 0; i < words.length; i++) {
    for (let n = Math.min(MAX_WORDS, words.length - i); n >= 2; n--) {
      const span = words.slice(i, i + n);
      // A comma inside the span ends it (the last word may carry one).
      if (span.slice(0, -1).some((w) => /[,;]$/.test(w))) continue;
      const tail = /[,;.]$/.exec(span[n - 1])?.[0] ?? '';
      const hit = BY_FOLD.get(fold(span.join(' ').slice(0, span.join(' ').length - tail.length)));
      if (hit) {
        words.splice(i, n, ...`${hit}${tail}`.split(' '));
        i += n - 1;
        break;
      }
    }
  }
  return words.join(' ');
}
