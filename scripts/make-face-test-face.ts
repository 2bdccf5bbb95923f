/**
 * Writes models/face/test-face.png: the face every candidate recogniser embeds
 * before `saola models add face` installs it. Grace Hopper's public-domain
 * portrait (test/fixtures/face/SOURCES.md), aligned by the engine exactly as
 * enrolled faces' crops are kept. `npx tsx scripts/make-face-test-face.ts`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { analyze } from '../src/face/engine/worker.js';

const photo = fs.readFileSync(path.join('test', 'fixtures', 'face', 'grace_hopper.jpg'));
const result = await analyze({ image: new Uint8Array(photo), detectThreshold: 0.7, checkCard: false, keepCrop: true });
if (!result.ok || !result.primary?.crop) throw new Error('no face found in grace_hopper.jpg');
fs.writeFileSync(path.join('models', 'face', 'test-face.png'), result.primary.crop);
console.log(`models/face/test-face.png: ${result.primary.crop.length} bytes`);
