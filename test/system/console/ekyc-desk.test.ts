import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { CONSOLE_UI_DIR } from '../../../src/console/static.js';
import { startTestApp, type TestApp } from '../../../fixtures/servers/app.js';
import { chromiumMissing, launchChromium, type Browser } from '../../support/chromium.js';
import { face } from '../../support/ekyc/cards.js';
import { addRefusedSide, seedEndedSession, signatureValid, startHookReceiver, type HookReceiver } from '../../support/ekyc/desk.js';
import { eventually } from '../../support/wait.js';

/**
 * The eKYC review desk end to end in Debian's chromium: the webhook set on the desk (its secret shown once), the
 * sessions list and its filters, a session's page with its images, a rejection with a reason, then the audit
 * row on the page and the signed `session.reviewed` delivery at a local receiver and in the delivery log.
 * Screenshots go to test-screenshots/console/.
 */
const built = fs.existsSync(path.join(CONSOLE_UI_DIR, 'index.html')) ? undefined : `the console is not built (${CONSOLE_UI_DIR}): npm run build`;
const SHOTS = path.resolve('test-screenshots/console');
const PASSWORD = 'a long operator passphrase';
const photos = { front: face('person-a.jpg'), back: face('person-b.jpg'), selfie: face('person-c.jpg') };

describe('eKYC review desk in chromium', { skip: chromiumMissing ?? built }, () => {
  let t: TestApp;
  let browser: Browser | undefined;
  let page: Page;
  let receiver: HookReceiver;

  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    t = await startTestApp({ env: { SAOLA_ADMIN_PASSWORD: PASSWORD, SAOLA_EKYC_WEBHOOK_ALLOW_PRIVATE: 'true' } });
    receiver = await startHookReceiver();
    browser = await launchChromium();
    ({ page } = browser);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    await receiver?.close();
  });

  test('list, filters, session page with images, reject with a reason: the audit row and a signed webhook delivery', async () => {
    const passed = await seedEndedSession(t, t.appCode, photos);
    const failed = await seedEndedSession(t, t.appCode, photos, { status: 'failed', code: '303', documentType: 'passport' });
    await addRefusedSide(t, t.appCode, failed.id, photos.back);

    await page.goto(`${t.url}/console`);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Applications' }).waitFor();
    await page.getByRole('link', { name: 'eKYC review' }).click();
    await page.getByRole('heading', { name: 'eKYC review' }).waitFor();
    await page.getByLabel('Application').selectOption(t.appCode);

    await page.getByLabel('Webhook URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Save webhook' }).click();
    const secret = (await page.getByTestId('webhook-secret').textContent())!.trim();
    assert.ok(secret.length >= 32, secret);

    const rows = page.getByTestId('desk-session');
    await eventually(async () => ((await rows.count()) === 2 ? true : undefined), { timeoutMs: 10_000, what: () => 'two sessions listed' });
    await page.getByLabel('Document type').selectOption('passport');
    await eventually(async () => ((await rows.count()) === 1 && (await rows.first().textContent())!.includes('failed') ? true : undefined), {
      timeoutMs: 10_000,
      what: () => 'the passport session alone',
    });
    await page.getByLabel('Document type').selectOption('');
    await page.getByLabel('Status').selectOption('complete');
    await eventually(async () => ((await rows.count()) === 1 && (await rows.first().textContent())!.includes('complete') ? true : undefined), {
      timeoutMs: 10_000,
      what: () => 'the complete session alone',
    });
    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('Needs review').check();
    await eventually(async () => ((await rows.count()) === 2 ? true : undefined), { timeoutMs: 10_000, what: () => 'both need review' });
    await shot(page, '20-ekyc-desk');

    await page.locator(`a[title="${failed.id}"]`).click();
    await page.getByRole('heading', { name: `Session ${failed.id}` }).waitFor();
    await page.getByTestId('session-result').getByText('similarity 32.0').waitFor();
    await page.getByRole('cell', { name: 'TEST PERSON' }).waitFor();
    // The document's sides and the selfie are drawn from the console's image route.
    // The refused side: its code, its checks and its image.
    await page.getByTestId('refused-sides').getByText('refused with QC03').waitFor();
    await page.getByTestId('refused-sides').getByText('quality failed').waitFor();
    for (const alt of ['front of the document', 'back of the document', 'selfie 1', 'refused front']) {
      const img = page.getByAltText(alt);
      await img.waitFor();
      await eventually(async () => ((await img.evaluate((el) => (el as HTMLImageElement).naturalWidth)) > 0 ? true : undefined), { timeoutMs: 10_000, what: () => alt });
    }
    await page.getByLabel('Reviewer').fill('Reviewer One');
    await page.getByLabel('Reason').fill('The selfie is not the document holder');
    await page.getByRole('button', { name: 'Reject' }).click();
    await page.getByTestId('session-review').getByText('rejected by Reviewer One').waitFor();
    const audit = page.getByTestId('session-audit');
    await audit.getByRole('cell', { name: 'reject', exact: true }).waitFor();
    await audit.getByText('reason: The selfie is not the document holder').waitFor();

    const hook = await eventually(() => receiver.received.find((r) => JSON.parse(r.body).session_id === failed.id), { timeoutMs: 30_000, what: () => 'the webhook' });
    assert.ok(signatureValid(hook, secret), 'signed with the secret the desk showed');
    const body = JSON.parse(hook.body);
    assert.deepEqual(
      [body.event, body.data.decision, body.data.reviewer, body.data.reason],
      ['session.reviewed', 'rejected', 'Reviewer One', 'The selfie is not the document holder'],
    );
    await eventually(
      async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        return (await page.getByTestId('session-deliveries').getByRole('cell', { name: 'delivered' }).count()) === 1 ? true : undefined;
      },
      { timeoutMs: 30_000, what: () => 'the delivery shown as delivered' },
    );
    await shot(page, '21-ekyc-session');

    // Back on the list the decided session no longer needs review; the other still does.
    await page.getByRole('link', { name: '← Sessions' }).click();
    await page.getByLabel('Needs review').check();
    await eventually(async () => ((await rows.count()) === 1 && (await page.locator(`a[title="${passed.id}"]`).count()) === 1 ? true : undefined), {
      timeoutMs: 10_000,
      what: () => 'one left to review',
    });
    await page.getByTestId('desk-audit').getByRole('cell', { name: 'webhook.set' }).waitFor();
    await page.getByTestId('desk-deliveries').getByRole('cell', { name: 'session.reviewed' }).waitFor();
  });
});

function shot(page: Page, name: string) {
  return page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}
