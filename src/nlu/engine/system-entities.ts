import { mayStartNumber, readNumber } from './numbers.js';
import type { PreparedText, Token } from './text.js';

/**
 * Entities every application has without training: `sys_number`,
 * `sys_percent`, `sys_date`, `sys_time` and `sys_datetime` (a time with its
 * day: "9 giờ sáng mai"), in words or digits, with or without diacritics.
 * Dates and times resolve against a reference time in the application's zone
 * (Vietnam, UTC+7, unless told otherwise).
 */
export type SystemEntityName = 'sys_number' | 'sys_percent' | 'sys_date' | 'sys_time' | 'sys_datetime';

export interface SystemEntityMatch {
  entity: SystemEntityName;
  /** Code points of the normalised text. */
  start: number;
  end: number;
  /** Its tokens, [first, last) (the intent masks and the tagger's hints read these). */
  first: number;
  last: number;
  /** number for numbers and percents; ISO text for dates (YYYY-MM-DD), times (HH:MM:SS) and both (YYYY-MM-DDTHH:MM:SS). */
  realValue: number | string;
}

export interface ReferenceTime {
  /** The instant "now" stands for. */
  now: Date;
  /** Minutes east of UTC of the application's clock; Vietnam is +420. */
  offsetMinutes: number;
}

export const VIETNAM_OFFSET_MINUTES = 7 * 60;

interface LocalDate {
  year: number;
  month: number;
  day: number;
}

/**
 * The local date of the last reference asked for, with the span of shifted
 * times (UTC milliseconds plus the offset) it holds for: every prediction
 * asks with its own "now", and a day is exactly 86,400,000 of them.
 */
let lastToday: { offset: number; from: number; to: number; date: LocalDate } | undefined;

const DAY_MS = 86_400_000;

function localToday(ref: ReferenceTime): LocalDate {
  const shifted = ref.now.getTime() + ref.offsetMinutes * 60_000;
  if (lastToday && lastToday.offset === ref.offsetMinutes && shifted >= lastToday.from && shifted < lastToday.to) return { ...lastToday.date };
  const date = computeToday(ref);
  const from = Math.floor(shifted / DAY_MS) * DAY_MS;
  lastToday = { offset: ref.offsetMinutes, from, to: from + DAY_MS, date };
  return { ...date };
}

function computeToday(ref: ReferenceTime): LocalDate {
  const shifted = new Date(ref.now.getTime() + ref.offsetMinutes * 60_000);
  return { year: shifted.getUTCFullYear(), month: shifted.getUTCMonth() + 1, day: shifted.getUTCDate() };
}

function addDays(d: LocalDate, days: number): LocalDate {
  const t = new Date(Date.UTC(d.year, d.month - 1, d.day + days));
  return { year: t.getUTCFullYear(), month: t.getUTCMonth() + 1, day: t.getUTCDate() };
}

function weekday(d: LocalDate): number {
  return new Date(Date.UTC(d.year, d.month - 1, d.day)).getUTCDay();
}

function validDate(year: number, month: number, day: number): boolean {
  if (!Number.isInteger(year) || !Number.isInteger(month) || !Number.isInteger(day)) return false;
  if (month < 1 || month > 12 || day < 1) return false;
  const t = new Date(Date.UTC(year, month - 1, day));
  return t.getUTCMonth() === month - 1 && t.getUTCDate() === day;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');
const isoDate = (d: LocalDate) => `${pad(d.year, 4)}-${pad(d.month)}-${pad(d.day)}`;
const isoTime = (h: number, m: number) => `${pad(h)}:${pad(m)}:00`;

/** Folded words, as the tokens carry them. */
const PERIODS: Record<string, 'morning' | 'noon' | 'afternoon' | 'evening' | 'night'> = {
  sang: 'morning',
  trua: 'noon',
  chieu: 'afternoon',
  toi: 'evening',
  dem: 'night',
  khuya: 'night',
};
/** Weekday words after "thứ": Sunday is 0. */
const WEEKDAYS: Record<string, number> = { hai: 1, '2': 1, ba: 2, '3': 2, tu: 3, '4': 3, nam: 4, '5': 4, sau: 5, '6': 5, bay: 6, '7': 6 };

function hour24(hour: number, period: string | undefined): number {
  switch (period) {
    case 'morning':
      return hour === 12 ? 0 : hour;
    case 'noon':
      return hour >= 1 && hour <= 4 ? hour + 12 : hour;
    case 'afternoon':
      return hour >= 1 && hour < 12 ? hour + 12 : hour;
    case 'evening':
      return hour >= 1 && hour < 12 ? hour + 12 : hour;
    case 'night':
      return hour === 12 ? 0 : hour >= 6 && hour < 12 ? hour + 12 : hour;
    default:
      return hour;
  }
}

/** The folded token at k, if any. */
function word(tokens: Token[], k: number): string | undefined {
  return tokens[k]?.folded;
}

interface DateMatch {
  date: LocalDate;
  last: number;
}

/** A day expression starting at token i: hôm nay, (ngày) mai, ngày kia, hôm qua, thứ hai (tuần sau), chủ nhật, ngày 15 tháng 8 (năm 2025), 15/8(/2025), 2025-08-15, ngày 15 / mùng 5 (the next such day). */
function readDate(tokens: Token[], i: number, ref: ReferenceTime, inChain: boolean): DateMatch | undefined {
  const today = localToday(ref);
  const first = word(tokens, i);
  if (first === undefined) return undefined;
  // dd/mm(/yyyy) and dd-mm-yyyy
  const slash = /^(\d{1,2})[/\-.](\d{1,2})(?:[/\-.](\d{4}|\d{2}))?$/.exec(first);
  if (slash) {
    const day = Number(slash[1]);
    const month = Number(slash[2]);
    let year = slash[3] ? Number(slash[3]) : today.year;
    if (slash[3]?.length === 2) year += 2000;
    // "1.5" is a number, not the first of May, and "2-3" a range ("2-3 triệu", "5-7 ngày"): dots and dashes need a year.
    if ((first.includes('.') || first.includes('-')) && !slash[3]) return undefined;
    if (!validDate(year, month, day)) return undefined;
    return { date: { year, month, day }, last: i + 1 };
  }
  if ((first === 'hom' || first === 'bua') && word(tokens, i + 1) === 'nay') return { date: today, last: i + 2 };
  if (first === 'nay' && inChain) return { date: today, last: i + 1 };
  if ((first === 'hom' || first === 'bua') && word(tokens, i + 1) === 'qua') return { date: addDays(today, -1), last: i + 2 };
  if (first === 'hom' && word(tokens, i + 1) === 'kia') return { date: addDays(today, -2), last: i + 2 };
  if (first === 'ngay' && word(tokens, i + 1) === 'mai') return { date: addDays(today, 1), last: i + 2 };
  if (first === 'ngay' && (word(tokens, i + 1) === 'kia' || word(tokens, i + 1) === 'mot')) return { date: addDays(today, 2), last: i + 2 };
  if (first === 'mai' && inChain) return { date: addDays(today, 1), last: i + 1 };
  let weekdayAt = -1;
  let target = -1;
  if (first === 'thu' && word(tokens, i + 1) !== undefined && WEEKDAYS[word(tokens, i + 1)!] !== undefined) {
    target = WEEKDAYS[word(tokens, i + 1)!]!;
    weekdayAt = i + 2;
  } else if (first === 'chu' && word(tokens, i + 1) === 'nhat') {
    target = 0;
    weekdayAt = i + 2;
  }
  if (weekdayAt > 0) {
    let last = weekdayAt;
    let weekShift = 0;
    if (word(tokens, last) === 'tuan' && (word(tokens, last + 1) === 'sau' || word(tokens, last + 1) === 'toi')) {
      weekShift = 1;
      last += 2;
    } else if (word(tokens, last) === 'tuan' && word(tokens, last + 1) === 'nay') last += 2;
    else if (word(tokens, last) === 'nay') last += 1;
    const todayDay = weekday(today);
    // Days run Monday to Sunday in Vietnamese weeks.
    const mondayBased = (d: number) => (d + 6) % 7;
    let delta = mondayBased(target) - mondayBased(todayDay);
    if (weekShift) delta += 7;
    else if (delta < 0) delta += 7;
    return { date: addDays(today, delta), last };
  }
  const iso = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(first);
  if (iso) {
    const [year, month, day] = [Number(iso[1]), Number(iso[2]), Number(iso[3])];
    return validDate(year, month, day) ? { date: { year, month, day }, last: i + 1 } : undefined;
  }
  const dayWord = DAY_WORDS.has(first);
  if (dayWord || /^\d/.test(first)) {
    const start = dayWord ? i + 1 : i;
    const day = readNumber(tokens, start, false);
    if (day && dayWord && word(tokens, day.last) !== 'thang') {
      // "ngày 5", "mùng 10": that day of this month, or of the next once it has passed. Not a lunar one ("mùng 5 tết", "âm lịch").
      const after = word(tokens, day.last) ?? '';
      if (!Number.isInteger(day.value) || day.value < 1 || day.value > 31 || LUNAR.has(after) || RATE_UNITS.has(after)) return undefined;
      for (let ahead = 0; ahead < 3; ahead++) {
        const month = ((today.month - 1 + ahead + (day.value < today.day && ahead === 0 ? 1 : 0)) % 12) + 1;
        const year = today.year + (month < today.month ? 1 : 0);
        if (validDate(year, month, day.value)) return { date: { year, month, day: day.value }, last: day.last };
      }
      return undefined;
    }
    if (day && word(tokens, day.last) === 'thang') {
      const month = readNumber(tokens, day.last + 1, false);
      if (month) {
        let year = today.year;
        let last = month.last;
        if (word(tokens, last) === 'nam') {
          const y = readNumber(tokens, last + 1, false);
          if (y && y.value >= 1900 && y.value <= 2200) {
            year = y.value;
            last = y.last;
          }
        }
        if (validDate(year, month.value, day.value)) return { date: { year, month: month.value, day: day.value }, last };
      }
    }
  }
  return undefined;
}

interface TimeMatch {
  hour: number;
  minute: number;
  period: string | undefined;
  last: number;
}

/** A clock time at token i: 9 giờ (30 phút | rưỡi | kém 15) (sáng), 9h30, 9:30, 21h. */
function readTime(tokens: Token[], i: number): TimeMatch | undefined {
  const first = word(tokens, i);
  if (first === undefined) return undefined;
  let hour: number | undefined;
  let minute = 0;
  let last = i;
  const compact = /^(\d{1,2})(?:h|g|:)(\d{2})?$/.exec(first) ?? /^(\d{1,2})h(\d{1,2})p?$/.exec(first);
  if (compact) {
    hour = Number(compact[1]);
    minute = compact[2] ? Number(compact[2]) : 0;
    last = i + 1;
    if (!compact[2]) {
      const m = readNumber(tokens, last, false);
      if (m && (word(tokens, m.last) === 'phut' || word(tokens, m.last) === 'p')) {
        minute = m.value;
        last = m.last + 1;
      }
    }
  } else {
    // "bây giờ" (now), also typed "bay gio", is not seven o'clock.
    if (tokens[i]!.text === 'bây' || (tokens[i]!.text === 'bay' && word(tokens, i + 1) === 'gio')) return undefined;
    const n = readNumber(tokens, i, false);
    if (!n || (word(tokens, n.last) !== 'gio' && word(tokens, n.last) !== 'h')) return undefined;
    hour = n.value;
    last = n.last + 1;
    const m = readNumber(tokens, last, false);
    if (word(tokens, last) === 'ruoi') {
      minute = 30;
      last += 1;
    } else if (word(tokens, last) === 'kem') {
      const k = readNumber(tokens, last + 1, false);
      if (k && k.value < 60) {
        hour -= 1;
        minute = 60 - k.value;
        last = word(tokens, k.last) === 'phut' ? k.last + 1 : k.last;
      }
    } else if (m && m.value < 60 && Number.isInteger(m.value)) {
      minute = m.value;
      last = word(tokens, m.last) === 'phut' || word(tokens, m.last) === 'p' ? m.last + 1 : m.last;
    }
  }
  if (!Number.isInteger(hour) || hour < 0 || hour > 24 || minute < 0 || minute > 59) return undefined;
  let period: string | undefined;
  if (word(tokens, last) !== undefined && PERIODS[word(tokens, last)!]) {
    period = PERIODS[word(tokens, last)!];
    last += 1;
  }
  return { hour: hour === 24 ? 0 : hour, minute, period, last };
}

/** Folded words before a day of the month: ngày, mùng, mồng. */
const DAY_WORDS = new Set(['ngay', 'mung', 'mong']);
/** Folded words after a day that make it a lunar one: tết, âm (lịch). */
const LUNAR = new Set(['tet', 'am']);
/**
 * Folded counters and units after "ngày N" that make it a rate, not a date: "ngày 2 lần" (twice a day), "ngày 8
 * tiếng", "ngày 3 bữa"; a clock time ("ngày 5 giờ") is left to the time reader.
 */
const RATE_UNITS = new Set([
  'lan',
  'tieng',
  'gio',
  'h',
  'phut',
  'bua',
  'buoi',
  'ca',
  'nguoi',
  'cai',
  'vien',
  'ly',
  'coc',
  'chai',
  'goi',
  'km',
  'k',
  'nghin',
  'ngan',
  'trieu',
  'dong',
  'tr',
]);

/** The parts of the day as written with their marks ("tôi", I, folds to the "toi" of "tối"). */
const PERIOD_WORDS = new Set(['sáng', 'trưa', 'chiều', 'tối', 'đêm', 'khuya']);

/**
 * Whether token i names a part of the day before a day: spelled with its marks, or typed without any where
 * the folded word is no other common one ("chieu", "trua", "dem", "khuya"; "toi" and "sang" only before "nay":
 * "toi mai" may be "tôi mai ...").
 */
function isPartOfDay(tokens: Token[], i: number): boolean {
  const t = tokens[i]!;
  if (PERIOD_WORDS.has(t.text)) return true;
  if (t.text !== t.folded || PERIODS[t.folded] === undefined) return false;
  return (t.folded !== 'toi' && t.folded !== 'sang') || word(tokens, i + 1) === 'nay';
}

/** Folded first words of the day expressions `readDate` reads (besides numerals). */
const DATE_STARTS = new Set(['hom', 'bua', 'nay', 'ngay', 'mai', 'thu', 'chu', 'mung', 'mong', ...Object.keys(PERIODS)]);

/**
 * Whether a time, a date or a number may start at this token: every one of
 * them starts with a numeral, a number word or a day word, so the readers
 * are not asked at any other token (most of a sentence).
 */
function mayStart(token: Token): boolean {
  const c = token.folded.charCodeAt(0);
  return (c >= 48 && c <= 57) || DATE_STARTS.has(token.folded) || mayStartNumber(token);
}

/** The entity of tokens [first, last). */
function match(tokens: Token[], entity: SystemEntityName, first: number, last: number, realValue: number | string): SystemEntityMatch {
  return { entity, start: tokens[first]!.start, end: tokens[last - 1]!.end, first, last, realValue };
}

/** All system entities of a text, left to right, not overlapping one another. */
export function systemEntities(text: PreparedText, ref: ReferenceTime): SystemEntityMatch[] {
  const tokens = text.tokens;
  const out: SystemEntityMatch[] = [];
  let i = 0;
  while (i < tokens.length) {
    if (!mayStart(tokens[i]!)) {
      i++;
      continue;
    }
    // A part of the day before a date: "sáng mai", "tối nay" (a date, with the period kept for a following time).
    const time = readTime(tokens, i);
    if (time) {
      let last = time.last;
      let period = time.period;
      // "9 giờ sáng mai", "9h tối thứ hai", "10 giờ ngày 15/8", "9 giờ sáng hôm nay"
      let date: DateMatch | undefined;
      let k = last;
      if (word(tokens, k) === 'luc') k += 1;
      date = readDate(tokens, k, ref, true);
      // "ngày 15/8": the date is the numeral after the word.
      if (date === undefined && word(tokens, k) === 'ngay' && /^\d/.test(word(tokens, k + 1) ?? '')) date = readDate(tokens, k + 1, ref, true);
      if (!period && date === undefined && PERIODS[word(tokens, last) ?? '']) {
        period = PERIODS[word(tokens, last)!];
        last += 1;
        date = readDate(tokens, last, ref, true);
        k = last;
      }
      const hour = hour24(time.hour, period);
      if (date) {
        out.push(match(tokens, 'sys_datetime', i, date.last, `${isoDate(date.date)}T${isoTime(hour, time.minute)}`));
        i = date.last;
      } else {
        out.push(match(tokens, 'sys_time', i, last, isoTime(hour, time.minute)));
        i = last;
      }
      continue;
    }
    // A part of the day with its day, without a clock time: "tối nay", "sáng mai", "chiều thứ hai" (the day).
    const partOfDay = isPartOfDay(tokens, i) ? readDate(tokens, i + 1, ref, true) : undefined;
    const date = partOfDay ?? readDate(tokens, i, ref, false);
    if (date) {
      out.push(match(tokens, 'sys_date', i, date.last, isoDate(date.date)));
      i = date.last;
      continue;
    }
    const number = readNumber(tokens, i, true);
    if (number) {
      if (word(tokens, number.last) === '%') {
        out.push(match(tokens, 'sys_percent', i, number.last + 1, number.value));
        i = number.last + 1;
      } else if (word(tokens, number.last) === 'phan' && word(tokens, number.last + 1) === 'tram') {
        out.push(match(tokens, 'sys_percent', i, number.last + 2, number.value));
        i = number.last + 2;
      } else {
        out.push(match(tokens, 'sys_number', i, number.last, number.value));
        i = number.last;
      }
      continue;
    }
    i++;
  }
  return out;
}
