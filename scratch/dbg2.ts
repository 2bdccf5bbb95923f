import { gazetteer } from '../src/reader/pipeline/address.js';
const kg = gazetteer().find((p) => p.name === 'Kiên Giang')!;
console.log(kg.districts.map((d) => `${d.typeWord}|${d.name}|${d.key}`).join('\n'));
console.log(kg.wards.filter((w) => /Thuận|Thạnh Đông/.test(w.name)).map((w) => `${w.typeWord} ${w.name} (${w.district.name})`).join('\n'));
