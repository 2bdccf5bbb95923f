/**
 * The Debian programs the native engines use, and how a test that needs one
 * behaves on a machine without it: it is skipped with a reason that names the
 * program and the apt line that installs it, while the npm fallback engine is
 * tested instead. `scripts/run-tests.mjs` fails a CI run (CI=true) whose output
 * holds such a skip, because CI installs the programs (`.ci/run`).
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';

/** Every skip reason starts with this; the test runner looks for it. */
export const MISSING_PROGRAM = 'native engine missing:';

const APT: Record<string, string> = {
  tesseract: 'tesseract-ocr tesseract-ocr-vie tesseract-ocr-eng',
  ffmpeg: 'ffmpeg',
  'espeak-ng': 'espeak-ng',
};

const found = new Map<string, boolean>();

/**
 * Whether a program runs from the PATH (its version option exits 0); Tesseract must
 * also have its Vietnamese data, as the reader requires.
 */
export function hasProgram(name: string): boolean {
  let ok = found.get(name);
  if (ok === undefined) {
    // ffmpeg takes -version (--version exits 1).
    const args = name === 'tesseract' ? ['--list-langs'] : name === 'ffmpeg' ? ['-version'] : ['--version'];
    const run = spawnSync(name, args, { encoding: 'utf8', timeout: 10_000 });
    ok = !run.error && run.status === 0 && (name !== 'tesseract' || /\bvie\b/.test(run.stdout));
    found.set(name, ok);
  }
  return ok;
}

/**
 * For `describe(name, { skip: needsPrograms('tesseract') }, ...)`: false when
 * every program is present, else the skip reason with the install line.
 */
export function needsPrograms(...names: string[]): string | false {
  const missing = names.filter((n) => !hasProgram(n));
  if (missing.length === 0) return false;
  const packages = [...new Set(missing.flatMap((n) => (APT[n] ?? n).split(' ')))].join(' ');
  return `${MISSING_PROGRAM} ${missing.join(', ')} not on the PATH; install with: sudo apt-get install -y ${packages}`;
}

/** The ffmpeg to make test audio with: the Debian program, else the npm-shipped binary. */
export function ffmpegProgram(): string {
  if (hasProgram('ffmpeg')) return 'ffmpeg';
  const require = createRequire(import.meta.url);
  return path.join(path.dirname(require.resolve('@ffmpeg-installer/linux-x64/package.json')), 'ffmpeg');
}
