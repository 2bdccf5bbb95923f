import sharp from 'sharp';
import { findCardOutline } from '../../src/platform/vision/card-outline.js';
const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="750"><rect width="1000" height="750" fill="#553322"/>
<g transform="rotate(12 500 375)"><rect x="200" y="200" width="600" height="378" rx="20" fill="#dde8f0"/><text x="250" y="300" font-size="30">CĂN CƯỚC CÔNG DÂN</text></g></svg>`;
const buf = await sharp(Buffer.from(svg)).jpeg().toBuffer();
let t = Date.now();
console.log(JSON.stringify(await findCardOutline(buf)), Date.now()-t);
t = Date.now();
console.log(JSON.stringify(await findCardOutline(buf)), Date.now()-t);
const blank = await sharp({create:{width:800,height:600,channels:3,background:'#888'}}).jpeg().toBuffer();
console.log(await findCardOutline(blank));
