/**
 * Provinces named on documents: a passport's place of birth, a licence's place
 * of issue. Matched against the gazetteer accent-insensitively, so the answer
 * is the gazetteer's spelling whatever marks OCR put on it.
 */
import { gazetteer } from './pipeline/address.js';
import { fold, foldKey, levenshtein, tidy } from './pipeline/text.js';

/** A province of the gazetteer the text names (accent-insensitive, one slip per six letters). */
export function matchProvince(text: string): string | undefined {
  const key = foldKey(text.replace(/^(tỉnh|thành phố|tp\.?)\s+/i, ''));
  if (!key) return undefined;
  let best: { name: string; d: number } | undefined;
  for (const p of gazetteer()) {
    const d = levenshtein(key, p.key);
    if (d <= Math.floor(p.key.length / 6) && (!best || d < best.d)) best = { name: p.name, d };
  }
  if (best) return best.name;
  // A province name inside a longer reading (a stray mark or the English half glued on).
  const inside = gazetteer()
    .filter((p) => p.key.length >= 4 && key.includes(p.key))
    .sort((x, y) => y.key.length - x.key.length);
  return inside.length === 1 || (inside.length > 1 && inside[0].key.length > inside[1].key.length) ? inside[0].name : undefined;
}

/**
 * A place of issue as printed ("TP. Hồ Chí Minh", "Cần Thơ"): its type word kept in its usual spelling,
 * the province spelt as the gazetteer does; undefined when it names no province.
 */
export function provincePlace(text: string): string | undefined {
  const m = /^\s*(tp\.?|thành phố|thanh pho|tỉnh|tinh)\s*[.,]?\s+/iu.exec(text);
  const province = matchProvince(m ? text.slice(m[0].length) : text);
  if (!province) return undefined;
  if (!m) return province;
  const type = fold(m[1]).startsWith('tp') ? 'TP.' : fold(m[1]).startsWith('thanh') ? 'Thành phố' : 'Tỉnh';
  return tidy(`${type} ${province}`);
}
