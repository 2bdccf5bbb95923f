import type { SystemEntityMatch } from './system-entities.js';
import type { PreparedText, Token } from './text.js';

/**
 * Quantities with their unit, read around the numbers `systemEntities` found: `sys_money` ("500 nghìn đồng", "2tr",
 * "1.200.000đ", "5 usd", "$5"), `sys_duration` ("2 tiếng", "1 tiếng rưỡi", "30 phút", "nửa tiếng", "3 ngày", "2 tuần")
 * and `sys_temperature` ("25 độ", "25°C", "âm 5 độ", "hai mươi lăm độ C").
 *
 * They are answers only: the intent features and the tagger's hints keep reading the numbers (so a model trained
 * before them reads the same features), and the number stays an entity of its own, also the measure's subentity
 * (docs/api-contract.md#system-entities).
 */
export type MeasureName = 'sys_money' | 'sys_duration' | 'sys_temperature';

export interface MeasureMatch {
  entity: MeasureName;
  start: number;
  end: number;
  first: number;
  last: number;
  /** Money "<amount> <ISO 4217 code>", a duration in ISO 8601 ("PT1H30M", "P3D"), a temperature in degrees Celsius. */
  realValue: string | number;
  /** The number inside it ("nửa tiếng" has none). */
  number?: SystemEntityMatch;
}

/** Currency words after a number, as written (lower case) or folded, to their ISO 4217 code. */
const CURRENCY_AFTER: Record<string, string> = {
  đồng: 'VND',
  dong: 'VND',
  đ: 'VND',
  vnd: 'VND',
  vnđ: 'VND',
  usd: 'USD',
  đô: 'USD',
  $: 'USD',
  eur: 'EUR',
  euro: 'EUR',
  '€': 'EUR',
};
/** Signs before a number. */
const CURRENCY_BEFORE: Record<string, string> = { $: 'USD', '€': 'EUR' };

/** Chat spellings of thousands and millions that name money by themselves ("500k", "2tr", "2tr5", "2 củ"). */
const MONEY_SUFFIX = /^\d[\d.,]*(k|tr)\d*$/;

/** Duration units (folded) to their ISO 8601 designator and whether it is a time (after "T"). */
const DURATION_UNITS: Record<string, { unit: 'S' | 'M' | 'H' | 'D' | 'W' | 'Y'; time: boolean; months?: true }> = {
  giay: { unit: 'S', time: true },
  phut: { unit: 'M', time: true },
  tieng: { unit: 'H', time: true },
  ngay: { unit: 'D', time: false },
  tuan: { unit: 'W', time: false },
  thang: { unit: 'M', time: false, months: true },
  nam: { unit: 'Y', time: false },
};

const written = (tokens: Token[], k: number) => tokens[k]?.text;
const folded = (tokens: Token[], k: number) => tokens[k]?.folded;

function duration(amount: number, unit: (typeof DURATION_UNITS)[string]): string {
  // A fraction of a unit in the next smaller one ("1 tiếng rưỡi" is PT1H30M), else the decimal ISO 8601 allows.
  const whole = Math.floor(amount);
  const rest = amount - whole;
  if (rest > 0 && unit.time && unit.unit !== 'S') {
    const smaller = unit.unit === 'H' ? 'M' : 'S';
    const restValue = Math.round(rest * 60 * 1000) / 1000;
    return `PT${whole > 0 ? `${whole}${unit.unit}` : ''}${restValue}${smaller}`;
  }
  return `P${unit.time ? 'T' : ''}${amount}${unit.unit}`;
}

/** Rounded to 2 decimals, so a conversion reads as a person writes it. */
const round2 = (n: number) => Math.round(n * 100) / 100;

/** The measures of a text, from the system entities `systemEntities` found in it (left to right). */
export function measureEntities(text: PreparedText, system: SystemEntityMatch[]): MeasureMatch[] {
  const tokens = text.tokens;
  const out: MeasureMatch[] = [];
  const at = (entity: MeasureName, first: number, last: number, realValue: string | number, number?: SystemEntityMatch): MeasureMatch => ({
    entity,
    start: tokens[first]!.start,
    end: tokens[last - 1]!.end,
    first,
    last,
    realValue,
    number,
  });
  for (const n of system) {
    if (n.entity !== 'sys_number' || typeof n.realValue !== 'number') continue;
    const value = n.realValue;
    const next = n.last;
    const own = written(tokens, n.last - 1) ?? '';
    // Money: a currency word or sign, a number spelled with its currency ("1.200.000đ") or in chat money ("500k").
    const after = CURRENCY_AFTER[written(tokens, next) ?? ''];
    const before = CURRENCY_BEFORE[written(tokens, n.first - 1) ?? ''];
    if (after) {
      // "đô la"
      const last = written(tokens, next) === 'đô' && folded(tokens, next + 1) === 'la' ? next + 2 : next + 1;
      out.push(at('sys_money', n.first, last, `${value} ${after}`, n));
      continue;
    }
    if (before) {
      out.push(at('sys_money', n.first - 1, n.last, `${value} ${before}`, n));
      continue;
    }
    if (own === 'k' || own === 'tr' || (n.last - n.first === 1 && (/^\d[\d.,]*(đ|vnđ|vnd)$/.test(own) || MONEY_SUFFIX.test(own)))) {
      out.push(at('sys_money', n.first, n.last, `${value} VND`, n));
      continue;
    }
    if (written(tokens, next) === 'củ') {
      out.push(at('sys_money', n.first, next + 1, `${value * 1_000_000} VND`, n));
      continue;
    }
    // Temperature: "độ" (or "do" typed without marks), "°", optionally C or F; "âm" or "-" before makes it negative.
    const degree = written(tokens, next) === 'độ' || written(tokens, next) === '°' || (written(tokens, next) === 'do' && !/[^\p{ASCII}]/u.test(text.chars.join('')));
    if (degree) {
      let last = next + 1;
      const scale = folded(tokens, last);
      let celsius = value;
      if (scale === 'c') last += 1;
      else if (scale === 'f') {
        celsius = round2(((value - 32) * 5) / 9);
        last += 1;
      }
      let first = n.first;
      const sign = folded(tokens, first - 1);
      if (sign === 'am' || (sign === '-' && tokens[first - 1]!.end === tokens[first]!.start)) {
        first -= 1;
        celsius = -celsius;
      }
      out.push(at('sys_temperature', first, last, celsius, n));
      continue;
    }
    // Duration: a unit after the number ("2 tiếng", "3 ngày"), "rưỡi" after it adding a half ("1 tiếng rưỡi").
    const unit = DURATION_UNITS[folded(tokens, next) ?? ''];
    if (unit) {
      // "năm" and "tháng" before a year or a month number are dates ("năm 2025" reads the other way): only after a count.
      if ((unit.unit === 'Y' || unit.months) && (value >= 100 || /^\d/.test(folded(tokens, next + 1) ?? ''))) continue;
      let last = next + 1;
      let amount = value;
      if (folded(tokens, last) === 'ruoi') {
        amount += 0.5;
        last += 1;
      }
      out.push(at('sys_duration', n.first, last, duration(amount, unit), n));
    }
  }
  // "nửa tiếng", "nửa ngày": no number inside, so no sys_number.
  for (let i = 0; i + 1 < tokens.length; i++) {
    if (folded(tokens, i) !== 'nua' || written(tokens, i) === 'nữa') continue;
    const unit = DURATION_UNITS[folded(tokens, i + 1) ?? ''];
    if (!unit || unit.unit === 'S') continue;
    if (out.some((m) => m.first <= i + 1 && m.last > i)) continue;
    out.push(at('sys_duration', i, i + 2, duration(0.5, unit)));
  }
  return out.sort((a, b) => a.first - b.first);
}
