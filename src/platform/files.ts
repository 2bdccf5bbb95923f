import fs from 'node:fs';
import path from 'node:path';

/** Writes JSON through a temporary file and a rename, so a reader never sees half of it. */
export function writeJsonAtomic(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(value, null, 2) + '\n');
  fs.renameSync(`${file}.tmp`, file);
}

/**
 * Fills a staging folder next to `target` and renames it to `target` at the end, so a half-copied folder
 * (an installed model) is never visible under its name. With `replace`, an existing `target` is removed
 * only once the staging folder is complete; a failure removes the staging folder and leaves `target` as it was.
 */
export function writeFolderAtomic<T>(target: string, fill: (staging: string) => T, options: { replace?: boolean } = {}): T {
  const staging = `${target}.partial-${process.pid}`;
  fs.rmSync(staging, { recursive: true, force: true });
  fs.mkdirSync(staging, { recursive: true });
  try {
    const result = fill(staging);
    if (options.replace) fs.rmSync(target, { recursive: true, force: true });
    fs.renameSync(staging, target);
    return result;
  } catch (err) {
    fs.rmSync(staging, { recursive: true, force: true });
    throw err;
  }
}
