import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fileSha256, SHIPPED_RECOGNISER, shippedRecogniser, testFaceFile } from './engine/models.js';
import { RecogniserError, type RecogniserManifest, type RecogniserSpec } from './engine/recogniser.js';
import { validKnots, type SimilarityMap } from './engine/similarity.js';
import { writeFolderAtomic, writeJsonAtomic } from '../platform/files.js';

/**
 * Face recognisers an operator installs (`saola models add face`), side by
 * side under `<data dir>/models/face/NAME/` (the .onnx file and saola-face.json,
 * which holds the whole RecogniserSpec), with `active.json` naming the
 * deployment's recogniser; without it the shipped one is active.
 */
export const FACE_MANIFEST = 'saola-face.json';
const ACTIVE = 'active.json';

export function faceModelsDir(dataDir: string): string {
  return path.join(dataDir, 'models', 'face');
}

/** A model name as typed: letters, digits, `.`, `_`, `-`, starting with a letter or digit (it becomes a folder name and a stored tag). */
export function validModelName(name: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$/.test(name);
}

/** What an installed model's folder holds besides its graph. */
interface InstalledManifest {
  spec: Omit<RecogniserSpec, 'file'> & { file: string };
  source: string;
  installedAt: string;
  /** The manifest's own map, used until a calibration is stored. */
  similarity?: SimilarityMap;
}

export interface InstalledRecogniser {
  spec: RecogniserSpec;
  builtIn: boolean;
  similarity?: SimilarityMap;
  installedAt?: string;
}

function readInstalled(dir: string): InstalledRecogniser {
  const m = JSON.parse(fs.readFileSync(path.join(dir, FACE_MANIFEST), 'utf8')) as InstalledManifest;
  // The stored file name is a base name: a manifest cannot point outside its folder.
  return { spec: { ...m.spec, file: path.join(dir, path.basename(m.spec.file)) }, builtIn: false, similarity: m.similarity, installedAt: m.installedAt };
}

/** The shipped recogniser and every installed one, by name, and which is active. */
export function listFaceRecognisers(dataDir: string | undefined, shippedDir?: string): { recognisers: InstalledRecogniser[]; active: string; broken: string[] } {
  const recognisers: InstalledRecogniser[] = [{ spec: shippedRecogniser(shippedDir), builtIn: true }];
  const broken: string[] = [];
  if (dataDir === undefined) return { recognisers, active: SHIPPED_RECOGNISER, broken };
  const dir = faceModelsDir(dataDir);
  if (fs.existsSync(dir)) {
    for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (!e.isDirectory() || e.name.includes('.partial-') || !fs.existsSync(path.join(dir, e.name, FACE_MANIFEST))) continue;
      try {
        recognisers.push(readInstalled(path.join(dir, e.name)));
      } catch (err) {
        broken.push(`${e.name}: ${(err as Error).message}`);
      }
    }
  }
  let active = SHIPPED_RECOGNISER;
  try {
    const named = (JSON.parse(fs.readFileSync(path.join(dir, ACTIVE), 'utf8')) as { name?: string }).name;
    if (named && recognisers.some((r) => r.spec.name === named)) active = named;
    else if (named) broken.push(`active.json names ${named}, which is not installed: the shipped recogniser is used`);
  } catch {
    /* no active.json: the shipped recogniser */
  }
  return { recognisers, active, broken };
}

export function setActiveRecogniser(dataDir: string, name: string): void {
  writeJsonAtomic(path.join(faceModelsDir(dataDir), ACTIVE), { name, activatedAt: new Date().toISOString() });
}

/** The model file and manifest of a source folder (or a lone .onnx file). */
function readSource(source: string): { file: string; manifest: RecogniserManifest } {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(source);
  } catch {
    throw new RecogniserError(`${source} does not exist`);
  }
  if (stat.isFile()) return { file: source, manifest: {} };
  let manifest: RecogniserManifest = {};
  const manifestFile = path.join(source, FACE_MANIFEST);
  if (fs.existsSync(manifestFile)) {
    try {
      manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as RecogniserManifest;
    } catch (err) {
      throw new RecogniserError(`${manifestFile} is not valid JSON: ${(err as Error).message}`);
    }
  }
  if (manifest.file !== undefined) {
    // The manifest names a file of its own folder, never a path out of it.
    if (typeof manifest.file !== 'string' || manifest.file !== path.basename(manifest.file) || manifest.file.startsWith('.')) {
      throw new RecogniserError(`${FACE_MANIFEST} names the file "${String(manifest.file)}": give a file name inside the model's folder`);
    }
    const file = path.join(source, manifest.file);
    if (!fs.existsSync(file)) throw new RecogniserError(`${file} does not exist`);
    return { file, manifest };
  }
  const onnx = fs.readdirSync(source).filter((f) => f.endsWith('.onnx'));
  if (onnx.length !== 1) {
    throw new RecogniserError(
      onnx.length === 0 ? `No .onnx file in ${source}` : `${source} holds ${onnx.length} .onnx files: name the recogniser with "file" in ${FACE_MANIFEST}`,
    );
  }
  return { file: path.join(source, onnx[0]), manifest };
}

/** The check's child process: this folder's recogniser-check script under the same loader flags (tsx in development). */
function runCheck(
  args: { file: string; manifest: RecogniserManifest; testFace: string },
  timeoutMs: number,
): Promise<{ described: Omit<RecogniserSpec, 'name' | 'file' | 'sha256'>; norm: number }> {
  const here = fileURLToPath(import.meta.url);
  const script = path.join(path.dirname(here), 'engine', `recogniser-check${path.extname(here)}`);
  const loaderFlags: string[] = [];
  for (let i = 0; i < process.execArgv.length; i++) {
    const a = process.execArgv[i];
    if ((a === '--import' || a === '--require' || a === '--loader') && i + 1 < process.execArgv.length) loaderFlags.push(a, process.execArgv[++i]);
    else if (/^--(import|require|loader)=/.test(a)) loaderFlags.push(a);
  }
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [...loaderFlags, script, JSON.stringify(args)],
      { timeout: timeoutMs, maxBuffer: 4 << 20, env: { ...process.env, NODE_OPTIONS: '' } },
      (err, stdout, stderr) => {
        const line = stdout.toString().trim().split('\n').pop() ?? '';
        try {
          const answer = JSON.parse(line) as { ok: boolean; reason?: string; described: never; norm: number };
          if (answer.ok) return resolve(answer);
          if (answer.reason) return reject(new RecogniserError(answer.reason));
        } catch {
          /* no answer: the process ended on its own */
        }
        const why = stderr.toString().trim().split('\n').filter(Boolean).slice(-2).join(' | ') || (err?.message ?? 'no output');
        reject(new RecogniserError(`the check process ended without an answer (${why})`));
      },
    );
  });
}

export interface InstallOptions {
  name?: string;
  activate: boolean;
  force?: boolean;
  /** Where the shipped models (and the test face) are: SAOLA_FACE_MODEL_DIR. */
  shippedDir?: string;
  timeoutMs?: number;
}

/**
 * Checks a recogniser in a child process (load, shapes, an embedding of the
 * built-in test face: finite, not zero, depending on its input) and installs
 * it: the file and its manifest through a staging folder renamed at the end.
 */
export async function installFaceRecogniser(dataDir: string, source: string, opts: InstallOptions): Promise<{ spec: RecogniserSpec; norm: number; dir: string }> {
  const resolved = path.resolve(source);
  const name = opts.name ?? path.basename(resolved).replace(/\.onnx$/, '');
  if (!validModelName(name)) throw new RecogniserError(`"${name}" is not a model name: letters, digits, . _ - (give one with --name)`);
  if (name === SHIPPED_RECOGNISER) throw new RecogniserError(`${name} is the shipped recogniser's name: choose another with --name`);
  const { file, manifest } = readSource(resolved);
  if (manifest.similarity !== undefined && !validKnots(manifest.similarity)) {
    throw new RecogniserError(`${FACE_MANIFEST}: similarity must be [cosine, similarity] knots from cosine -1 to 1, both increasing, similarities 0-1`);
  }
  const target = path.join(faceModelsDir(dataDir), name);
  if (fs.existsSync(target) && !opts.force) throw new RecogniserError(`${target} already exists: choose another --name or pass --force to replace it`);
  const { described, norm } = await runCheck({ file, manifest, testFace: testFaceFile(opts.shippedDir) }, opts.timeoutMs ?? 300_000);
  const base = path.basename(file);
  const spec: RecogniserSpec = { name, file: path.join(target, base), sha256: fileSha256(file), ...described };
  const installed: InstalledManifest = {
    spec: { ...spec, file: base },
    source: resolved,
    installedAt: new Date().toISOString(),
    ...(manifest.similarity ? { similarity: { version: `${name}-manifest`, knots: manifest.similarity as [number, number][] } } : {}),
  };
  writeFolderAtomic(
    target,
    (staging) => {
      fs.copyFileSync(file, path.join(staging, base));
      fs.writeFileSync(path.join(staging, FACE_MANIFEST), `${JSON.stringify(installed, null, 2)}\n`);
    },
    { replace: true },
  );
  if (opts.activate) setActiveRecogniser(dataDir, name);
  return { spec, norm, dir: target };
}

/** Removes an installed recogniser; the active one is refused (activate another first). */
export function removeFaceRecogniser(dataDir: string, name: string): void {
  if (name === SHIPPED_RECOGNISER) throw new RecogniserError(`${name} ships with Saola and cannot be removed`);
  const { recognisers, active } = listFaceRecognisers(dataDir);
  if (!validModelName(name) || !recognisers.some((r) => r.spec.name === name)) throw new RecogniserError(`No face recogniser named ${name} (saola models list)`);
  if (active === name) throw new RecogniserError(`${name} is the active recogniser: make another active first (saola models activate face NAME)`);
  fs.rmSync(path.join(faceModelsDir(dataDir), name), { recursive: true, force: true });
}

/** Lines of `saola models list` for face recognisers. */
export function faceModelLines(dataDir: string, shippedDir?: string): { lines: string[]; json: Record<string, unknown> } {
  const { recognisers, active, broken } = listFaceRecognisers(dataDir, shippedDir);
  const lines = ['Face recognition (face):'];
  for (const r of recognisers) {
    const i = r.spec.input;
    lines.push(`  ${r.spec.name}${r.builtIn ? ' (shipped)' : ''}  ${i.width}x${i.height} -> ${r.spec.output.size}-d${r.spec.name === active ? '  (active)' : ''}`);
  }
  for (const b of broken) lines.push(`  problem: ${b}`);
  return {
    lines,
    json: {
      active,
      models: recognisers.map((r) => ({ name: r.spec.name, builtIn: r.builtIn, input: [r.spec.input.width, r.spec.input.height], dimensions: r.spec.output.size })),
      problems: broken,
    },
  };
}
