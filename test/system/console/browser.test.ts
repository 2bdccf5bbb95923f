import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { CONSOLE_UI_DIR } from '../../../src/console/static.js';
import { startTestApp, type TestApp } from '../../../fixtures/servers/app.js';
import { chromiumMissing, launchChromium, type Browser } from '../../support/chromium.js';
import { eventually } from '../../support/wait.js';

/**
 * The console in a real browser: Debian's chromium driven by playwright-core.
 * Screenshots go to test-screenshots/console/ (git-ignored) for a person to look at.
 */
const SHOTS = path.resolve('test-screenshots/console');
const PASSWORD = 'a long operator passphrase';
const CARD = path.resolve('test/fixtures/reader/chip-front.jpg');
const FACE = path.resolve('test/fixtures/face/grace_hopper.jpg');
const GROUP = path.resolve('test/fixtures/face/group.jpg');
const OTHER_FACE = path.resolve('test/fixtures/face/person-a.jpg');

describe('web console in chromium', { skip: chromiumMissing }, () => {
  let app: TestApp;
  let browser: Browser | undefined;
  let page: Page;
  let profile: string;
  /** An input's value once it matches (the page fills some fields a moment after a change). */
  async function valueOf(label: string, pattern: RegExp): Promise<string> {
    const input = page.getByLabel(label);
    let value = '';
    return eventually(
      async () => {
        value = await input.inputValue();
        return pattern.test(value) ? value : undefined;
      },
      { timeoutMs: 5_000, what: () => `${label} never matched ${pattern}: "${value}"` },
    );
  }
  const shot = (name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });

  before(async () => {
    // A fresh clone builds the front end in `npm install` (prepare); build it here if that has not happened.
    if (!fs.existsSync(path.join(CONSOLE_UI_DIR, 'index.html'))) {
      execFileSync(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--config', 'console-ui/vite.config.ts'], { stdio: 'inherit' });
    }
    fs.mkdirSync(SHOTS, { recursive: true });
    app = await startTestApp({ env: { SAOLA_ADMIN_PASSWORD: PASSWORD } });
    browser = await launchChromium();
    ({ page, profile } = browser);
    // The console must work offline: anything not from the test server fails the test.
    const foreign: string[] = [];
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(app.url) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
      foreign.push(url);
      return route.abort();
    });
    (page as unknown as { foreign: string[] }).foreign = foreign;
  });

  after(async () => {
    await browser?.close();
    await app?.close();
  });

  test('sign in, create an app and a key, call the API, run the ID card and TTS playgrounds, see the usage count them', async () => {
    await page.goto(`${app.url}/console`);
    await page.getByLabel('Password').waitFor();
    await shot('01-sign-in');

    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Wrong password' }).waitFor();
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Applications' }).waitFor();
    const cookies = await page.context().cookies();
    const session = cookies.find((c) => c.name === 'saola_console');
    assert.ok(session, 'session cookie set');
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, 'Strict');

    await page.getByLabel('New application name').fill('Shop demo');
    await page.getByRole('button', { name: 'Create application' }).click();
    const keyCell = page.getByTestId('secret-api_key').first();
    await keyCell.waitFor();
    const apiKey = (await keyCell.textContent())!.trim();
    assert.match(apiKey, /^sk_/);
    await shot('02-app-created');

    // The key works from outside the browser, like a developer's curl.
    const score = await fetch(`${app.url}/dmp/creditscoring/v1?phone=0912345678&dltype=1`, { headers: { api_key: apiKey } });
    assert.equal(score.status, 200, await score.text());

    // ID card playground: the app's key made in this tab is filled in.
    await page.getByRole('link', { name: 'ID card' }).click();
    await page.getByRole('heading', { name: 'ID card playground' }).waitFor(); // the new page, not the last one's picker
    await page.getByLabel('Application').selectOption({ label: 'Shop demo' });
    assert.equal(await valueOf('api_key', /^sk_/), apiKey);
    await page.getByLabel('ID card photo').setInputFiles(CARD);
    await page.getByRole('button', { name: 'Read card' }).click();
    await page.getByTestId('idcard-fields').waitFor({ timeout: 120_000 });
    assert.match((await page.getByTestId('idcard-status').textContent()) ?? '', /HTTP 200/);
    assert.match((await page.getByTestId('idcard-fields').textContent()) ?? '', /075180127481/);
    await page.getByTestId('card-outline').waitFor();
    await shot('03-idcard-playground');

    // TTS playground: synthesise, follow the job, get a playable file.
    await page.getByRole('link', { name: 'Text to speech' }).click();
    await page.getByRole('heading', { name: 'Text to speech playground' }).waitFor(); // the new page, not the last one's picker
    await page.getByLabel('Application').selectOption({ label: 'Shop demo' });
    await page.getByLabel('Voice').selectOption('leminh');
    await page.getByLabel('Text').fill('Xin chào, tôi là Saola.');
    await page.getByRole('button', { name: 'Synthesize' }).click();
    const audio = page.getByTestId('tts-audio');
    await audio.waitFor({ timeout: 120_000 });
    const src = await audio.getAttribute('src');
    const file = await fetch(src!);
    assert.equal(file.status, 200);
    const speech = Buffer.from(await file.arrayBuffer());
    assert.ok(speech.byteLength > 1000, 'an audio file');
    await shot('04-tts-playground');

    // Speech to text with that audio: a transcript, or (no recognition model installed here) the reason there is none.
    const clip = path.join(profile, 'speech.mp3');
    fs.writeFileSync(clip, speech);
    await page.getByRole('link', { name: 'Speech to text' }).click();
    await page.getByRole('heading', { name: 'Speech to text playground' }).waitFor(); // the new page, not the last one's picker
    await page.getByLabel('Application').selectOption({ label: 'Shop demo' });
    await page.getByLabel('Audio file').setInputFiles(clip);
    await page.getByRole('button', { name: 'Transcribe' }).click();
    const verdict = (await page.getByTestId('asr-verdict').textContent({ timeout: 120_000 })) ?? '';
    assert.match(verdict, /recognised|no voice|could not recognise/);

    // NLU training data: an entity and an intent, a sample, and a span tagged by selecting it.
    await page.getByRole('link', { name: 'NLU training data' }).click();
    await page.getByRole('heading', { name: 'NLU training data' }).waitFor(); // the new page, not the last one's picker
    await page.getByLabel('Application').selectOption({ label: 'Shop demo' });
    await valueOf('token', /^st_/);
    await page.getByLabel('New label').fill('city');
    await page.getByRole('button', { name: 'New entity' }).click();
    await page.getByText('Entities: city').waitFor();
    await page.getByLabel('New label').fill('book_flight');
    await page.getByRole('button', { name: 'New intent' }).click();
    await page.getByText('Intents: book_flight').waitFor();
    await page.getByLabel('New sample').fill('tôi muốn bay ra Hà Nội');
    await page.getByLabel('Intent').selectOption({ label: 'book_flight' });
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByRole('heading', { name: 'Intent: book_flight' }).waitFor();
    await page.getByTestId('nlu-text').evaluate((el) => {
      const text = el.querySelector('span')!.firstChild!;
      const at = text.textContent!.indexOf('Hà Nội');
      const range = document.createRange();
      range.setStart(text, at);
      range.setEnd(text, at + 'Hà Nội'.length);
      getSelection()!.removeAllRanges();
      getSelection()!.addRange(range);
      el.dispatchEvent(new MouseEvent('mouseup', { bubbles: true }));
    });
    await page.getByRole('button', { name: 'city', exact: true }).click();
    const mark = page.getByTestId('nlu-text').locator('mark');
    await mark.waitFor();
    assert.equal((await mark.textContent())?.trim(), 'Hà Nộicity');
    // A second intent, then Train, the status, and Try it with the new model.
    await page.getByLabel('New label').fill('greeting');
    await page.getByRole('button', { name: 'New intent' }).click();
    await page.getByText('Intents: book_flight, greeting').waitFor();
    await page.getByLabel('New sample').fill('xin chào bạn');
    await page.getByLabel('Intent').selectOption({ label: 'greeting' });
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByRole('heading', { name: 'Intent: greeting' }).waitFor();
    await page.getByRole('button', { name: 'Train', exact: true }).click();
    await page.getByTestId('nlu-status').getByText('trained', { exact: true }).waitFor({ timeout: 120_000 });
    await page.getByLabel('Try it').fill('bay ra Hà Nội');
    await page.getByRole('button', { name: 'Predict', exact: true }).click();
    await page.getByTestId('nlu-intents').getByText('book_flight').waitFor();
    assert.match((await page.getByTestId('nlu-prediction').locator('mark').first().textContent()) ?? '', /^Hà Nộicity$/);
    await shot('05-nlu-playground');

    // Face match: a portrait against a group photo of other people: refused with the guide's 407 (two comparable
    // faces), and each photo shows the face the engine would compare (one box in green) and the group's other faces.
    await page.getByRole('link', { name: 'Face match' }).click();
    await page.getByRole('heading', { name: 'Face match playground' }).waitFor(); // the new page, not the last one's picker
    await page.getByLabel('Application').selectOption({ label: 'Shop demo' });
    await page.getByLabel('First photo (JPEG)').setInputFiles(FACE);
    await page.getByLabel('Second photo (JPEG)').setInputFiles(GROUP);
    await page.getByRole('button', { name: 'Compare faces' }).click();
    assert.equal(await page.getByTestId('face-error').textContent({ timeout: 120_000 }), '407: No faces/more than 1 face detected');
    const overlays = page.getByTestId('face-boxes');
    await overlays.nth(1).waitFor({ timeout: 60_000 });
    assert.equal(await overlays.nth(0).locator('rect.face-subject').count(), 1);
    assert.equal(await overlays.nth(0).locator('rect.face-other').count(), 0, 'one face in the portrait');
    assert.equal(await overlays.nth(1).locator('rect.face-subject').count(), 1);
    assert.ok((await overlays.nth(1).locator('rect.face-other').count()) >= 1, 'the group photo has other faces');
    assert.match((await page.getByTestId('face-caption-1').textContent()) ?? '', /Green: the face compared.*Amber: \d+ other faces?/);
    // The green box sits on the portrait's face as drawn on screen: inside the picture, in its upper half.
    const photoBox = (await page.getByAltText('First photo (JPEG)').boundingBox())!;
    const faceBox = (await overlays.nth(0).locator('rect.face-subject').boundingBox())!;
    assert.ok(faceBox.x >= photoBox.x - 1 && faceBox.x + faceBox.width <= photoBox.x + photoBox.width + 1, 'box within the picture across');
    assert.ok(faceBox.y >= photoBox.y - 1 && faceBox.y + faceBox.height / 2 < photoBox.y + photoBox.height * 0.6, 'box on the upper part of the picture');
    assert.ok(faceBox.width > photoBox.width * 0.25, 'box the size of the face, not a speck');
    await shot('06-face-match-playground');
    // Two portraits of different people are compared.
    await page.getByLabel('Second photo (JPEG)').setInputFiles(OTHER_FACE);
    await page.getByRole('button', { name: 'Compare faces' }).click();
    assert.equal(await page.getByTestId('face-verdict').textContent({ timeout: 120_000 }), 'Different people');
    assert.match((await page.getByTestId('face-similarity').textContent()) ?? '', /^similarity \d+(\.\d+)?$/);
    // Face search: a face added is found again.
    await page.getByRole('link', { name: 'Face search' }).click();
    await page.getByRole('heading', { name: 'Face search playground' }).waitFor(); // the new page, not the last one's picker
    await page.getByLabel('Application').selectOption({ label: 'Shop demo' });
    await page.getByLabel('User id').fill('grace');
    await page.getByLabel('User name').fill('Grace Hopper');
    await page.getByLabel('Face to add').setInputFiles(FACE);
    await page.getByRole('button', { name: 'Add face' }).click();
    await page.getByRole('cell', { name: 'Grace Hopper' }).waitFor({ timeout: 60_000 });
    await page.getByLabel('Face to search').setInputFiles(FACE);
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByText('similarity 1').waitFor({ timeout: 60_000 });
    // The collection is listed with the recogniser that embedded it (the active one).
    assert.match((await page.getByTestId('face-recogniser').textContent()) ?? '', /Active recogniser: faceplugin-fr_feature-512 \(512-d/);
    const demo = page.getByTestId('face-collections').getByRole('row', { name: /^demo/ });
    await demo.waitFor();
    assert.match((await demo.textContent()) ?? '', /faceplugin-fr_feature-512Embedded by the active recogniser\.$/);
    await shot('07-face-search-playground');

    // Usage: 1 credit + 1 ID card + 1 TTS create + at least one status poll, all under "Shop demo".
    await page.getByRole('link', { name: 'Usage' }).click();
    await page.getByRole('heading', { name: 'Usage', exact: true }).waitFor(); // the new page, not the last one's picker
    await page.getByLabel('Application').selectOption({ label: 'Shop demo' });
    const chart = page.getByTestId('usage-chart');
    // The first application's report shows first; wait for this one's.
    await page.getByTestId('usage-endpoints').getByText('POST /dmp/checkface/v1').waitFor();
    const total = Number(await chart.getAttribute('data-total'));
    const endpoints = (await page.getByTestId('usage-endpoints').textContent()) ?? '';
    assert.match(endpoints, /POST \/vision\/idr\/vnm/);
    assert.match(endpoints, /POST \/hmi\/tts\/v5/);
    assert.match(endpoints, /GET \/dmp\/creditscoring\/v1/);
    assert.match(endpoints, /GET \/hmi\/tts\/v5\/status\/:request_id/);
    assert.match(endpoints, /POST \/api\/v3\/entity-sample/);
    assert.match(endpoints, /POST \/dmp\/checkface\/v1/);
    assert.match(endpoints, /POST \/dmp\/facesearch\/v2\/search/);
    assert.ok(total >= 14, `usage total ${total}`);
    assert.equal(Number(await page.getByTestId('usage-total').textContent()), total);
    await shot('08-usage');

    assert.deepEqual((page as unknown as { foreign: string[] }).foreign, [], 'nothing loaded from outside the server');
  });
});
