import fs from 'node:fs';
import { makeSample, ALL_KINDS } from '../bench/idcard-synth.js';
import { readCard } from '../src/reader/pipeline/run.js';
import type { OcrEngine, OcrOptions } from '../src/reader/pipeline/ocr.js';
import { NativeTesseract } from '../src/reader/pipeline/ocr.js';
const real = new NativeTesseract();
let i = 0;
const spy: OcrEngine = { name: 'tesseract', async recognize(png: Buffer, o: OcrOptions) { const f = `/tmp/tt/p${i++}-${o.lang}-${o.psm}.png`; fs.writeFileSync(f, png); return real.recognize(png, o); }, async close() {} };
for (const k of ALL_KINDS.slice(0, 8)) { const s = await makeSample(9100 + ALL_KINDS.indexOf(k), k); await readCard({ image: s.photo.jpeg, face: false, maxPixels: 4e7, minCardArea: 0.12 }, spy); }
