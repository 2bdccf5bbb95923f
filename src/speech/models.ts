import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { CommandContext } from '../platform/cli.js';
import { writeFolderAtomic } from '../platform/files.js';

export { writeJsonAtomic } from '../platform/files.js';

/**
 * What installing a sherpa-onnx model takes, for recognition and synthesis
 * alike: a safe folder name, an all-or-nothing copy into the models folder,
 * small JSON files written atomically, and loading the model once in a child
 * process (sherpa-onnx ends its whole process on a broken model file).
 */

export class ModelError extends Error {
  override name = 'ModelError';
}

export function sherpaModulePath(): string {
  return createRequire(import.meta.url).resolve('sherpa-onnx-node');
}

/** A model's folder name from `--name` or its source folder: letters, digits, `.`, `_`, `-`; '' when nothing is left. */
/** A model's folder as an absolute path; ModelError when it is missing or not a folder (`holds` says what it should hold). */
export function modelFolder(dirArg: string, holds: string): string {
  const dir = path.resolve(dirArg);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dir);
  } catch {
    throw new ModelError(`Model folder ${dir} does not exist`);
  }
  if (!stat.isDirectory()) throw new ModelError(`${dir} is not a folder: give the folder that holds ${holds}`);
  return dir;
}

/** The name a model is installed under (--name, else its folder's name), or undefined after saying why on stderr. */
export function modelName(ctx: CommandContext, given: string | undefined, source: string): string | undefined {
  const name = safeModelName(given ?? path.basename(source));
  if (!name) ctx.stderr('Give the model a name with --name (letters, digits, . _ -)\n');
  return name || undefined;
}

export function safeModelName(raw: string): string {
  return raw.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+/, '');
}

/**
 * Copies files (and folders, such as espeak-ng-data) into `target` through a
 * staging folder renamed at the end: a half-copied model is never visible
 * under its name. Answers the copied entries' base names by role.
 */
export function installFolder(
  target: string,
  entries: Record<string, string | undefined>,
  manifest: { file: string; content: Record<string, unknown> },
): Record<string, string> {
  return writeFolderAtomic(target, (staging) => {
    const copied: Record<string, string> = {};
    for (const [role, source] of Object.entries(entries)) {
      if (!source) continue;
      const base = path.basename(source);
      fs.cpSync(source, path.join(staging, base), { recursive: true });
      copied[role] = base;
    }
    fs.writeFileSync(path.join(staging, manifest.file), JSON.stringify({ ...manifest.content, files: copied }, null, 2) + '\n');
    return copied;
  });
}

/**
 * Runs `script` in a child Node process with `require` of sherpa-onnx-node's
 * path as `process.argv[1]` and `args` after it; the script prints one JSON
 * object with `ok: true`. Rejects with the child's last stderr lines (what
 * sherpa-onnx says about a broken model) otherwise.
 */
export function runSherpaProbe<T extends { ok: boolean }>(script: string, args: string[], what: string, timeoutMs = 300_000): Promise<T> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['-e', script, sherpaModulePath(), ...args],
      { timeout: timeoutMs, maxBuffer: 16 << 20, env: { ...process.env, NODE_OPTIONS: '' } },
      (err, stdout, stderr) => {
        const out = stdout.toString().trim();
        if (!err && out.startsWith('{')) {
          try {
            const parsed = JSON.parse(out) as T;
            if (parsed.ok) return resolve(parsed);
          } catch {
            /* fall through to the error */
          }
        }
        const why = stderr.toString().trim().split('\n').filter(Boolean).slice(-3).join(' | ') || (err?.message ?? 'no output');
        reject(new ModelError(`${what} does not load in sherpa-onnx: ${why}`));
      },
    );
  });
}

/** Every named file of a model exists and its tokens.txt lists tokens (a model folder's first check, ASR and TTS alike). */
export function checkModelFiles(files: { tokens: string } & Record<string, string | undefined>): void {
  for (const [role, file] of Object.entries(files)) {
    if (file && !fs.existsSync(file)) throw new ModelError(`The ${role} file ${file} does not exist`);
  }
  const tokenLines = fs
    .readFileSync(files.tokens, 'utf8')
    .split('\n')
    .filter((l) => l.trim());
  if (tokenLines.length < 2) throw new ModelError(`${files.tokens} holds no tokens`);
}
