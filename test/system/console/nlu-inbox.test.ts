import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { CONSOLE_UI_DIR } from '../../../src/console/static.js';
import { startTestApp, type TestApp } from '../../../fixtures/servers/app.js';
import { call } from '../../support/http.js';
import { chromiumMissing, launchChromium, type Browser } from '../../support/chromium.js';
import { eventually } from '../../support/wait.js';

/**
 * The NLU inbox end to end in Debian's chromium: predictions made through the API appear grouped on the Inbox
 * page, labelling one group adds samples, and a retrain from the NLU page changes the answer for those texts
 * (its cross-validated report lists the new intent). Screenshots go to test-screenshots/console/.
 */
const built = fs.existsSync(path.join(CONSOLE_UI_DIR, 'index.html')) ? undefined : `the console is not built (${CONSOLE_UI_DIR}): npm run build`;
const SHOTS = path.resolve('test-screenshots/console');
const PASSWORD = 'a long operator passphrase';

const DATA: Record<string, string[]> = {
  book_flight: ['đặt vé máy bay đi Huế', 'mua vé bay ra Hà Nội', 'tôi muốn bay vào Sài Gòn', 'đặt chuyến bay đi Đà Nẵng'],
  weather: ['thời tiết Huế hôm nay', 'ngày mai Hà Nội có mưa không', 'trời Sài Gòn nóng không', 'dự báo thời tiết Đà Nẵng'],
  greeting: ['xin chào', 'chào bạn', 'chào buổi sáng', 'hello bạn ơi'],
};
const HOTEL = ['đặt phòng khách sạn ở Huế', 'đặt phòng khách sạn ở Hà Nội', 'mình muốn đặt phòng khách sạn ở Đà Nẵng'];

describe('NLU inbox in chromium', { skip: chromiumMissing ?? built }, () => {
  let t: TestApp;
  let browser: Browser | undefined;
  let page: Page;
  const api = (method: string, p: string, json?: unknown) => call(t.url, method, `/api/v3${p}`, { token: t.token, json });
  async function trainAndWait(): Promise<string> {
    const before = (await api('GET', '/train/status')).body.model_code;
    assert.equal((await api('POST', '/train')).status, 200);
    return eventually(
      async () => {
        const s = (await api('GET', '/train/status')).body;
        return s.status === 2 && s.model_code !== before ? s.model_code : undefined;
      },
      { timeoutMs: 60_000, what: () => 'training' },
    );
  }

  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    t = await startTestApp({ env: { SAOLA_ADMIN_PASSWORD: PASSWORD } });
    browser = await launchChromium();
    ({ page } = browser);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  test('predictions appear grouped, labelling a group adds samples, a retrain changes the answer', async () => {
    const rows = Object.entries(DATA).flatMap(([intent, texts]) => texts.map((sample) => ({ intent, sample })));
    assert.equal((await api('POST', '/intent-sample/import_intent_samples', rows)).status, 200);
    await trainAndWait();
    // Under this threshold every saved prediction is unsure, so all come into the inbox.
    await api('PUT', '/settings', { threshold: 0.99 });
    for (const content of [...HOTEL, 'kể chuyện cười đi']) assert.equal((await api('POST', '/predict', { content, save_history: true })).status, 200);
    await api('PUT', '/settings', { threshold: 0.3 });
    const before = (await api('POST', '/predict/intent', { content: HOTEL[0] })).body.data.intents[0]?.label;
    assert.notEqual(before, 'book_hotel');

    await page.goto(`${t.url}/console`);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Applications' }).waitFor();
    await page.getByRole('link', { name: 'NLU inbox' }).click();
    await page.getByRole('heading', { name: 'NLU inbox' }).waitFor();
    await page.getByLabel('Application').selectOption(t.appCode);
    await page.getByLabel('token', { exact: true }).fill(t.token);
    await page.getByTestId('inbox-summary').getByText('4 open in 2 groups').waitFor();
    const group = page.getByTestId('inbox-group').first();
    assert.deepEqual((await group.getByTestId('inbox-text').allTextContents()).sort(), [...HOTEL].sort());
    await shot(page, '10-nlu-inbox');

    await group.getByLabel('Intent for the group').fill('book_hotel');
    await group.getByRole('button', { name: 'Label group' }).click();
    await page.getByTestId('inbox-message').getByText('3 samples added', { exact: false }).waitFor();
    await page.getByTestId('inbox-summary').getByText('1 open in 1 groups').waitFor();
    const samples = (await api('GET', '/sample')).body.filter((s: { intent_label: string }) => s.intent_label === 'book_hotel');
    assert.equal(samples.length, 3);

    // Retrain from the NLU page: its report lists the new intent, and the answer for those texts is it.
    await page.getByRole('link', { name: 'NLU training data' }).click();
    await page.getByRole('heading', { name: 'NLU training data' }).waitFor();
    // A pasted token is not remembered from page to page (only one issued in this tab is).
    await page.getByLabel('token', { exact: true }).fill(t.token);
    await page.getByRole('button', { name: 'Train', exact: true }).click();
    await page.getByTestId('nlu-report-intents').getByText('book_hotel').waitFor({ timeout: 120_000 });
    await page.getByLabel('Try it').fill(HOTEL[1]!);
    await page.getByRole('button', { name: 'Predict', exact: true }).click();
    await page.getByTestId('nlu-intents').getByText('book_hotel').waitFor();
    assert.equal((await api('POST', '/predict/intent', { content: HOTEL[0] })).body.data.intents[0].label, 'book_hotel');
    await shot(page, '11-nlu-report');
  });
});

function shot(page: Page, name: string) {
  return page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}
