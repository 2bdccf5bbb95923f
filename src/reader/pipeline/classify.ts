/**
 * Stage 4: which kind of card and which side, from the printed header words
 * (and where they are), read by OCR of the top band. A card upside down reads
 * as nothing: the caller turns it by 180 degrees and asks again.
 */
import type { CardKind } from '../layouts.js';
import type { OcrWord } from './ocr.js';
import { fold } from './text.js';

/** The top band read for classification, in flat-card pixels. */
export const HEADER_BAND = { x: 0, y: 0, w: 1000, h: 250 };

export function classifyHeader(words: OcrWord[], scale = 1): CardKind | undefined {
  const text = fold(words.map((w) => w.text).join(' '))
    .replace(/[^a-z0-9 ]/g, ' ')
    .replace(/\s+/g, ' ');
  const has = (...keys: string[]) => keys.some((k) => text.includes(k));
  if (has('can cuoc', 'cuoc cong', 'can cuo')) return has('citizen', 'identity', 'so no ') ? 'cccd_chip_front' : 'cccd_12_front';
  if (has('giay chung', 'giay chu')) return 'cmnd_09_front';
  if (has('chung minh', 'minh nhan')) return 'cmnd_12_front';
  if (has('dau vet', 'di hinh', 'ton giao', 'ngon tro trai phai') && !has('dac diem')) return 'cmnd_09_back';
  // Backs of the 12-digit card and of the chip card: fingerprint boxes left (12-digit) or right (chip).
  const fingerWords = words.filter((w) => /^ng[oó]n$/i.test(fold(w.text)) || fold(w.text) === 'ngon' || fold(w.text) === 'tro');
  if (has('personal', 'identification', 'nhan dang', 'dac diem', 'ngon tro')) {
    if (has('personal', 'identification')) return 'cccd_chip_back';
    if (fingerWords.length > 0) return fingerWords.every((w) => w.left / scale > 550) ? 'cccd_chip_back' : 'cccd_12_back';
    return 'cccd_12_back';
  }
  if (has('cong hoa', 'doc lap', 'hanh phuc')) return has('citizen') ? 'cccd_chip_front' : 'cccd_12_front';
  return undefined;
}
