/**
 * CI installs the Debian programs the native engines use (.ci/run), so there
 * (CI=true) each must be present and working, and no native-engine test may
 * have been skipped (scripts/run-tests.mjs checks the skips too). Elsewhere a
 * missing program is reported as a skip with its install line.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hasProgram, needsPrograms } from '../../support/programs.js';

const ci = process.env.CI === 'true' || process.env.CI === '1';
const PROGRAMS = ['tesseract', 'ffmpeg', 'espeak-ng'];

describe('native engine programs', { skip: !ci && needsPrograms(...PROGRAMS) }, () => {
  for (const name of PROGRAMS) {
    it(`${name} is installed and runs${name === 'tesseract' ? ' with its Vietnamese data' : ''}`, () => {
      assert.ok(hasProgram(name), needsPrograms(name) || name);
    });
  }
});
