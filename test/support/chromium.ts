import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { MISSING_PROGRAM } from './programs.js';

/** The Debian program (CI installs it), or another build named by SAOLA_CHROMIUM. */
export const CHROMIUM = process.env.SAOLA_CHROMIUM ?? '/usr/bin/chromium';

/** Why the browser tests are skipped here, in the runner's native-engine form; undefined when Chromium is present. */
export const chromiumMissing = fs.existsSync(CHROMIUM)
  ? undefined
  : `${MISSING_PROGRAM} chromium not found at ${CHROMIUM}; install with: sudo apt-get install -y chromium (or set SAOLA_CHROMIUM)`;

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** The fresh profile folder (also a scratch folder for downloads). */
  profile: string;
  close(): Promise<void>;
}

/** Headless Chromium with a fresh profile and no background networking (the machines are offline). */
export async function launchChromium(): Promise<Browser> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-chromium-'));
  // playwright passes the profile as --user-data-dir.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 860 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    profile,
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}
