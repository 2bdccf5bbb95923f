import fs from 'node:fs';
import { makeSample, ALL_KINDS } from '../idcard-synth.js';
fs.mkdirSync('/tmp/rd/s', { recursive: true });
let i = 0;
for (const k of ALL_KINDS) {
  const t = Date.now();
  const s = await makeSample(100 + i++, k);
  fs.writeFileSync(`/tmp/rd/s/${k}.png`, s.flat);
  fs.writeFileSync(`/tmp/rd/s/${k}.jpg`, s.photo.jpeg);
  console.log(k, Date.now() - t, s.photo.jpeg.length, JSON.stringify(s.truth.fields));
}
