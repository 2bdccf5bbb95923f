/**
 * Vietnamese text normalisation: turns what people write (15/8/2024, 10:30,
 * 0912 345 678, 1.500.000đ, 5,5%, 12 km, TP.HCM, an e-mail) into the words a
 * reader would say, so the engine only ever sees words and punctuation.
 * Then `splitSentences` cuts long texts at sentence boundaries for synthesis in parts.
 */

const DIGITS = ['không', 'một', 'hai', 'ba', 'bốn', 'năm', 'sáu', 'bảy', 'tám', 'chín'];
const SCALES = ['', 'nghìn', 'triệu', 'tỷ', 'nghìn'];

/** Reads a group of three digits; `full` when a higher group precedes it ("không trăm linh năm"). */
function readTriple(n: number, full: boolean): string[] {
  const h = Math.floor(n / 100);
  const t = Math.floor((n % 100) / 10);
  const u = n % 10;
  const out: string[] = [];
  if (full || h > 0) out.push(DIGITS[h], 'trăm');
  if (t === 0) {
    if (u > 0) {
      if (full || h > 0) out.push('linh');
      out.push(DIGITS[u]);
    }
  } else if (t === 1) {
    out.push('mười');
    if (u === 5) out.push('lăm');
    else if (u > 0) out.push(DIGITS[u]);
  } else {
    out.push(DIGITS[t], 'mươi');
    if (u === 1) out.push('mốt');
    else if (u === 4) out.push('tư');
    else if (u === 5) out.push('lăm');
    else if (u > 0) out.push(DIGITS[u]);
  }
  return out;
}

/** Reads each digit: phone numbers, codes, very long numbers. */
export function readDigits(digits: string): string {
  return [...digits]
    .filter((c) => c >= '0' && c <= '9')
    .map((c) => DIGITS[Number(c)])
    .join(' ');
}

/** Reads a whole number written with digits only ("2024" -> "hai nghìn không trăm hai mươi tư"). */
export function readNumber(digits: string): string {
  const clean = digits.replace(/^0+(?=\d)/, '');
  if (clean.length > 15) return readDigits(digits);
  if (/^0+$/.test(clean)) return DIGITS[0];
  const groups: number[] = [];
  for (let end = clean.length; end > 0; end -= 3) groups.unshift(Number(clean.slice(Math.max(0, end - 3), end)));
  const words: string[] = [];
  groups.forEach((group, i) => {
    const power = groups.length - 1 - i;
    if (group === 0) {
      // 1 000 000 000 000 is "một nghìn tỷ": the "tỷ" of an empty group is still said.
      if (power === 3 && words.length > 0) words.push('tỷ');
      return;
    }
    words.push(...readTriple(group, words.length > 0));
    if (SCALES[power]) words.push(SCALES[power]);
  });
  return words.join(' ');
}

/** A number as written in Vietnamese text: `.` or spaces group thousands, `,` marks decimals. */
export function readWrittenNumber(text: string): string {
  let t = text.trim();
  let sign = '';
  if (/^[-−]/.test(t)) {
    sign = 'âm ';
    t = t.slice(1);
  } else if (t.startsWith('+')) {
    sign = 'cộng ';
    t = t.slice(1);
  }
  let whole = t;
  let fraction = '';
  if (/^\d{1,3}([. ]\d{3})+(,\d+)?$/.test(t)) {
    [whole, fraction = ''] = t.split(',');
    whole = whole.replace(/[. ]/g, '');
  } else if (/^\d+,\d+$/.test(t)) {
    [whole, fraction] = t.split(',');
  } else if (/^\d+\.\d+$/.test(t)) {
    // "3.5": not a thousands group (that needs three digits), so a decimal point as in English.
    [whole, fraction] = t.split('.');
  } else if (/^\d{1,3}(,\d{3}){2,}$/.test(t)) {
    // "1,500,000": English thousands separators (two or more groups, so never "5,500").
    whole = t.replace(/,/g, '');
  }
  let words = sign + readNumber(whole.replace(/\D/g, '') || '0');
  if (fraction) {
    const f = fraction.replace(/\D/g, '');
    // Short fractions are read as a number ("năm phẩy hai lăm"), long ones digit by digit.
    const read = f.length <= 2 && !f.startsWith('0') ? readNumber(f) : readDigits(f);
    words += ` phẩy ${read}`;
  }
  return words;
}

const MONTHS = ['', 'một', 'hai', 'ba', 'tư', 'năm', 'sáu', 'bảy', 'tám', 'chín', 'mười', 'mười một', 'mười hai'];

function readDay(d: string): string {
  return readNumber(d);
}

function readMonth(m: string): string {
  return MONTHS[Number(m)];
}

function validDay(d: string): boolean {
  const n = Number(d);
  return n >= 1 && n <= 31;
}

function validMonth(m: string): boolean {
  const n = Number(m);
  return n >= 1 && n <= 12;
}

/** Ordinals after "thứ": thứ 1 = thứ nhất, thứ 4 = thứ tư. */
function readOrdinal(n: string): string {
  if (n === '1') return 'nhất';
  if (n === '4') return 'tư';
  return readNumber(n);
}

const LETTER_NAMES: Readonly<Record<string, string>> = {
  a: 'a',
  b: 'bê',
  c: 'xê',
  d: 'dê',
  đ: 'đê',
  e: 'e',
  f: 'ép',
  g: 'giê',
  h: 'hát',
  i: 'i',
  j: 'gi',
  k: 'ca',
  l: 'e lờ',
  m: 'em mờ',
  n: 'en nờ',
  o: 'o',
  p: 'pê',
  q: 'quy',
  r: 'e rờ',
  s: 'ét',
  t: 'tê',
  u: 'u',
  v: 'vê',
  w: 'vê kép',
  x: 'ích',
  y: 'i dài',
  z: 'dét',
};

/** Spells letters by their Vietnamese names ("FPT" -> "ép pê tê"). */
export function spell(word: string): string {
  return [...word.toLowerCase()]
    .map((c) => (c >= '0' && c <= '9' ? DIGITS[Number(c)] : (LETTER_NAMES[c] ?? '')))
    .filter(Boolean)
    .join(' ');
}

/** Abbreviations read as words. Matched case-sensitively, whole tokens. */
const ABBREVIATIONS: ReadonlyArray<[string, string]> = [
  ['TP.HCM', 'thành phố Hồ Chí Minh'],
  ['TP HCM', 'thành phố Hồ Chí Minh'],
  ['Tp.HCM', 'thành phố Hồ Chí Minh'],
  ['TPHCM', 'thành phố Hồ Chí Minh'],
  ['HCM', 'Hồ Chí Minh'],
  ['TP.', 'thành phố'],
  ['Tp.', 'thành phố'],
  ['TP', 'thành phố'],
  ['UBND', 'ủy ban nhân dân'],
  ['HĐND', 'hội đồng nhân dân'],
  ['CSGT', 'cảnh sát giao thông'],
  ['CHXHCN', 'cộng hòa xã hội chủ nghĩa'],
  ['THPT', 'trung học phổ thông'],
  ['THCS', 'trung học cơ sở'],
  ['ĐHQG', 'đại học quốc gia'],
  ['ĐH', 'đại học'],
  ['CNTT', 'công nghệ thông tin'],
  ['ĐBSCL', 'đồng bằng sông Cửu Long'],
  ['BHXH', 'bảo hiểm xã hội'],
  ['BHYT', 'bảo hiểm y tế'],
  ['CMND', 'chứng minh nhân dân'],
  ['CCCD', 'căn cước công dân'],
  ['GS.TS', 'giáo sư tiến sĩ'],
  ['PGS.TS', 'phó giáo sư tiến sĩ'],
  ['PGS', 'phó giáo sư'],
  ['GS', 'giáo sư'],
  ['TS', 'tiến sĩ'],
  ['ThS', 'thạc sĩ'],
  ['BS', 'bác sĩ'],
  ['KS', 'kỹ sư'],
  ['VN', 'Việt Nam'],
  ['HN', 'Hà Nội'],
  ['Q.', 'quận'],
  ['P.', 'phường'],
  ['v.v.', 'vân vân'],
  ['v.v', 'vân vân'],
  ['VND', 'đồng'],
  ['VNĐ', 'đồng'],
  ['USD', 'đô la Mỹ'],
  ['Mr.', 'mít tơ'],
  ['Mrs.', 'mít xít'],
  ['ATM', 'a tê em mờ'],
  ['TV', 'ti vi'],
  ['tr.', 'trang'],
  ['STT', 'số thứ tự'],
  ['SĐT', 'số điện thoại'],
  ['ĐT', 'điện thoại'],
];

/** Units read after a number. Longest first so "km/h" wins over "km". */
const UNITS: ReadonlyArray<[string, string]> = [
  ['km/h', 'ki lô mét trên giờ'],
  ['m/s', 'mét trên giây'],
  ['km²', 'ki lô mét vuông'],
  ['km2', 'ki lô mét vuông'],
  ['m²', 'mét vuông'],
  ['m2', 'mét vuông'],
  ['m³', 'mét khối'],
  ['m3', 'mét khối'],
  ['cm', 'xen ti mét'],
  ['mm', 'mi li mét'],
  ['km', 'ki lô mét'],
  ['kg', 'ki lô gam'],
  ['mg', 'mi li gam'],
  ['ml', 'mi li lít'],
  ['ha', 'héc ta'],
  ['kW', 'ki lô oát'],
  ['kWh', 'ki lô oát giờ'],
  ['MW', 'mê ga oát'],
  ['GB', 'gi ga bai'],
  ['MB', 'mê ga bai'],
  ['KB', 'ki lô bai'],
  ['TB', 'tê ra bai'],
  ['GHz', 'gi ga héc'],
  ['MHz', 'mê ga héc'],
  ['Hz', 'héc'],
  ['°C', 'độ xê'],
  ['℃', 'độ xê'],
  ['°F', 'độ ép'],
  ['°', 'độ'],
  ['m', 'mét'],
  ['g', 'gam'],
  ['l', 'lít'],
  ['t', 'tấn'],
  ['W', 'oát'],
  ['V', 'vôn'],
  ['h', 'giờ'],
  ['s', 'giây'],
  ['tr', 'triệu'],
  ['k', 'nghìn'],
  ['K', 'nghìn'],
];

const CURRENCY_AFTER: ReadonlyArray<[RegExp, string]> = [
  [/^(đ|đồng|VND|VNĐ|vnđ|vnd)$/, 'đồng'],
  [/^(USD|usd)$/, 'đô la Mỹ'],
  [/^(EUR|eur)$/, 'ơ rô'],
];

const CURRENCY_BEFORE: Readonly<Record<string, string>> = { $: 'đô la', '€': 'ơ rô', '£': 'bảng Anh', '¥': 'yên', '₫': 'đồng' };

const SYMBOLS: Readonly<Record<string, string>> = {
  '&': ' và ',
  '@': ' a còng ',
  '+': ' cộng ',
  '=': ' bằng ',
  '%': ' phần trăm ',
  '#': ' thăng ',
  '§': ' mục ',
  '×': ' nhân ',
  '÷': ' chia ',
  '≥': ' lớn hơn hoặc bằng ',
  '≤': ' nhỏ hơn hoặc bằng ',
  '>': ' lớn hơn ',
  '<': ' nhỏ hơn ',
};

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// A token boundary that knows Vietnamese letters (\b only knows ASCII).
const L = 'A-Za-zÀ-ỹĐđ';
const NOT_LETTER_BEFORE = `(?<![${L}0-9])`;
const NOT_LETTER_AFTER = `(?![${L}0-9])`;

const ABBREVIATION_RE = new RegExp(`${NOT_LETTER_BEFORE}(${ABBREVIATIONS.map(([a]) => escapeRegExp(a)).join('|')})(?![${L}0-9])`, 'g');
const ABBREVIATION_MAP = new Map(ABBREVIATIONS);

const UNIT_ALTERNATION = UNITS.map(([u]) => escapeRegExp(u))
  .sort((a, b) => b.length - a.length)
  .join('|');
const NUMBER = String.raw`\d{1,3}(?:,\d{3}){2,}(?![\d,])|\d{1,3}(?:[.]\d{3})+(?:,\d+)?|\d+(?:[.,]\d+)?`;
const UNIT_RE = new RegExp(`(${NUMBER})\\s?(${UNIT_ALTERNATION})${NOT_LETTER_AFTER}`, 'g');
const UNIT_MAP = new Map(UNITS);

/** A Vietnamese syllable without tone marks, to tell "NAM" (a word) from "FPT" (letters). */
const SYLLABLE = /^(ngh|ng|nh|ch|gh|gi|kh|ph|th|tr|qu|[bcdđghklmnpqrstvx])?[aăâeêioôơuưy]{1,3}(ng|nh|ch|[cmnpt])?$/;

function stripTones(word: string): string {
  return word
    .normalize('NFD')
    .replace(/[\u0300\u0301\u0303\u0309\u0323]/g, '')
    .normalize('NFC');
}

function readUrl(url: string): string {
  const body = url.replace(/^[a-z]+:\/\//i, '').replace(/\/$/, '');
  const parts = body.split(/([./:@\-_?=&#])/).filter((p) => p !== '');
  const said: Record<string, string> = {
    '.': 'chấm',
    '/': 'gạch chéo',
    ':': 'hai chấm',
    '@': 'a còng',
    '-': 'gạch ngang',
    _: 'gạch dưới',
    '?': 'chấm hỏi',
    '=': 'bằng',
    '&': 'và',
    '#': 'thăng',
  };
  return parts
    .map((p) => {
      if (said[p]) return said[p];
      if (/^\d+$/.test(p)) return p.length <= 3 ? readNumber(p) : readDigits(p);
      if (/^www$/i.test(p)) return 'vê kép vê kép vê kép';
      if (/^(ai|vn|io)$/i.test(p)) return spell(p);
      const lower = p.toLowerCase();
      if (SYLLABLE.test(lower) || /^(com|net|org|gov|edu|info|mail|gmail|yahoo|google|facebook)$/.test(lower)) return lower;
      return spell(p);
    })
    .join(' ');
}

function readPhone(raw: string): string {
  const plus = raw.trim().startsWith('+');
  return (plus ? 'cộng ' : '') + readDigits(raw);
}

function readTime(h: string, m: string | undefined, s: string | undefined): string {
  let out = `${readNumber(h)} giờ`;
  if (m !== undefined && Number(m) > 0) out += ` ${readNumber(m)} phút`;
  if (s !== undefined && Number(s) > 0) out += ` ${readNumber(s)} giây`;
  return out;
}

/**
 * Rewrites a text into words. Order matters: things that contain digits and
 * punctuation (URLs, e-mails, dates, times, phone numbers, money) go before
 * plain numbers, and symbols last.
 */
export function normaliseText(input: string): string {
  let text = input.normalize('NFC');

  // Invisible characters, emoji and other pictographs say nothing.
  text = text.replace(/[\u200B-\u200D\uFEFF\u00AD]/g, '').replace(/\p{Extended_Pictographic}/gu, ' ');
  text = text.replace(/\r\n?/g, '\n').replace(/[\t\f\v]/g, ' ');

  // E-mail addresses and URLs: read piece by piece.
  text = text.replace(/[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g, (m) => ` ${readUrl(m)} `);
  text = text.replace(/\b(?:https?:\/\/|www\.)[^\s<>"']+[^\s<>"'.,;:!?)]/gi, (m) => ` ${readUrl(m)} `);
  text = text.replace(/\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|vn|net|org|gov|edu|info|io|ai)(?:\.vn)?\b(?:\/[^\s]*)?/gi, (m) => (/^\d/.test(m) ? m : ` ${readUrl(m)} `));

  // Abbreviations (TP.HCM before TP.).
  text = text.replace(ABBREVIATION_RE, (m) => ` ${ABBREVIATION_MAP.get(m) ?? m} `);

  // Dates: 15/8/2024, 15-08-2024, 15.8.2024; then 15/8 and 8/2024.
  text = text.replace(
    new RegExp(`${NOT_LETTER_BEFORE}(ngày\\s+)?(\\d{1,2})([/.-])(\\d{1,2})\\3(\\d{4})(?!\\d)`, 'gi'),
    (m, _ngay, d: string, _sep, mo: string, y: string) => (validDay(d) && validMonth(mo) ? ` ngày ${readDay(d)} tháng ${readMonth(mo)} năm ${readNumber(y)} ` : m),
  );
  text = text.replace(/(?<!\d)(tháng\s+)?(\d{1,2})\/(\d{4})(?!\d)/gi, (m, _thang, mo: string, y: string) =>
    validMonth(mo) ? ` tháng ${readMonth(mo)} năm ${readNumber(y)} ` : m,
  );
  text = text.replace(/(?<![\d/])(ngày\s+)?(\d{1,2})\/(\d{1,2})(?![\d/])/gi, (m, ngay: string | undefined, d: string, mo: string) =>
    validDay(d) && validMonth(mo) ? ` ${ngay ? 'ngày ' : ''}${readDay(d)} tháng ${readMonth(mo)} ` : m,
  );
  // "tháng 8" reads the month name ("tháng tám", "tháng tư").
  text = text.replace(/(tháng)\s+(\d{1,2})(?!\d)/gi, (m, word: string, mo: string) => (validMonth(mo) ? `${word} ${readMonth(mo)}` : m));

  // Times: 10:30, 10:30:15, 10h30, 10h, 10g30.
  text = text.replace(/(?<![\d:])([01]?\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?(?![\d:])/g, (_m, h: string, mi: string, s?: string) => ` ${readTime(h, mi, s)} `);
  text = text.replace(/(?<![\d])([01]?\d|2[0-3])\s?[hg]\s?([0-5]\d)?(?![\dA-Za-zÀ-ỹ])/g, (_m, h: string, mi?: string) => ` ${readTime(h, mi, undefined)} `);

  // Phone numbers, digit by digit: 0912345678, 0912 345 678, 091.234.5678, +84 912 345 678, 028 3823 4567.
  text = text.replace(/(?<![\d.,])(?:\+84|\(?0\d{1,3}\)?)(?:[\s.-]?\d){7,10}(?![\d.,]*\d)/g, (m) => {
    const digits = m.replace(/\D/g, '');
    return digits.length >= 9 && digits.length <= 12 ? ` ${readPhone(m)} ` : m;
  });

  // Money: $100, 1.500.000đ, 500.000 VNĐ, 20 USD, 50k, 3tr.
  text = text.replace(new RegExp(`([$€£¥₫])\\s?(${NUMBER})`, 'g'), (_m, cur: string, n: string) => ` ${readWrittenNumber(n)} ${CURRENCY_BEFORE[cur]} `);
  text = text.replace(new RegExp(`(${NUMBER})\\s?(đồng|đ|VNĐ|VND|vnđ|vnd|USD|usd|EUR|eur|₫)${NOT_LETTER_AFTER}`, 'g'), (_m, n: string, cur: string) => {
    const name = CURRENCY_AFTER.find(([re]) => re.test(cur))?.[1] ?? 'đồng';
    return ` ${readWrittenNumber(n)} ${name} `;
  });

  // Percentages and ranges: 5,5%, 10-20%.
  text = text.replace(new RegExp(`(${NUMBER})\\s?%`, 'g'), (_m, n: string) => ` ${readWrittenNumber(n)} phần trăm `);

  // Units after a number: 12 km, 5kg, 30°C, 100 m2.
  text = text.replace(UNIT_RE, (_m, n: string, unit: string) => ` ${readWrittenNumber(n)} ${UNIT_MAP.get(unit) ?? unit} `);

  // Ranges of numbers: 5-10 -> năm đến mười.
  text = text.replace(
    new RegExp(`(?<![\\d.,])(${NUMBER})\\s?[-–—]\\s?(${NUMBER})(?![\\d])`, 'g'),
    (_m, a: string, b: string) => ` ${readWrittenNumber(a)} đến ${readWrittenNumber(b)} `,
  );

  // Ordinals: thứ 2 -> thứ hai, thứ 4 -> thứ tư.
  text = text.replace(/(thứ)\s+(\d+)(?!\d)/gi, (_m, word: string, n: string) => `${word} ${readOrdinal(n)}`);

  // Remaining numbers, signed or not.
  text = text.replace(
    new RegExp(`(?<![\\d${L}])([-−+]?)(${NUMBER})(?!\\d)`, 'g'),
    (_m, sign: string, n: string) => ` ${readWrittenNumber(sign === '' ? n : (sign === '+' ? '+' : '-') + n)} `,
  );
  text = text.replace(/\d+/g, (m) => ` ${m.length > 3 ? readDigits(m) : readNumber(m)} `);

  // Capitalised acronyms that are not Vietnamese syllables are spelled.
  text = text.replace(new RegExp(`${NOT_LETTER_BEFORE}([A-ZĐ]{2,6})${NOT_LETTER_AFTER}`, 'g'), (m) => (SYLLABLE.test(stripTones(m.toLowerCase())) ? m : ` ${spell(m)} `));

  // Symbols: read the ones with a name, drop the rest; keep sentence punctuation.
  text = text.replace(/[&@+=%#§×÷≥≤<>]/g, (c) => SYMBOLS[c] ?? ' ');
  text = text.replace(/…|\.{3,}/g, ', ');
  text = text.replace(/[“”„"«»‘’`´]/g, ' ').replace(/(?<![A-Za-zÀ-ỹ])'|'(?![A-Za-zÀ-ỹ])/g, ' ');
  text = text.replace(/[()[\]{}]/g, ', ');
  text = text.replace(/\s[-–—]+\s|^[-–—•*]+\s*|\n\s*[-–—•*]+\s*/g, (m) => (m.includes('\n') ? '\n' : ', '));
  text = text.replace(/[*_~^|\\/<>•·¶©®™$€£¥₫]/g, ' ');
  text = text.replace(/[^\p{L}\p{M}\p{N}\s.,;:!?'-]/gu, ' ');

  // Tidy: one space, no space before punctuation, no doubled commas.
  text = text.replace(/[ \u00A0]+/g, ' ');
  text = text.replace(/ +([.,;:!?])/g, '$1');
  text = text.replace(/([,;:])(?:\s*[,;:])+/g, '$1');
  text = text.replace(/([.!?])\s*,/g, '$1');
  text = text.replace(/^[\s,;:]+/gm, '');
  text = text.replace(/\n{2,}/g, '\n');
  return text.trim();
}

/** Whether a normalised text still has anything to say. */
export function hasSpeech(normalised: string): boolean {
  return /[\p{L}]/u.test(normalised);
}

/**
 * Cuts a text into parts of at most `maxChars` at sentence ends (. ! ? ; and
 * line breaks); a sentence longer than that is cut at commas, then at spaces.
 */
export function splitSentences(text: string, maxChars = 400): string[] {
  const sentences = text
    .split(/(?<=[.!?;])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const pieces: string[] = [];
  for (const sentence of sentences) {
    if (sentence.length <= maxChars) {
      pieces.push(sentence);
      continue;
    }
    let current = '';
    for (const clause of sentence.split(/(?<=,)\s+/)) {
      for (const word of clause.length > maxChars ? clause.split(/\s+/) : [clause]) {
        if (current && current.length + 1 + word.length > maxChars) {
          pieces.push(current);
          current = '';
        }
        current = current ? `${current} ${word}` : word;
      }
    }
    if (current) pieces.push(current);
  }
  // Join short sentences into parts of up to maxChars: fewer engine calls.
  const parts: string[] = [];
  for (const piece of pieces) {
    const last = parts.length - 1;
    if (last >= 0 && parts[last].length + 1 + piece.length <= maxChars) parts[last] = `${parts[last]} ${piece}`;
    else parts.push(piece);
  }
  return parts;
}
