/**
 * A back's distinguishing features (`features`) only for applications with
 * the arrangement: the settings store on both engines, the answers of
 * /vision/idr/vnm and /cmt end to end (real OCR on the committed back photos),
 * and `saola reader features APP on|off|show`.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { migrations, services } from '../../../src/services.js';
import { Credentials } from '../../../src/platform/auth/credentials.js';
import { CommandUsageError } from '../../../src/platform/cli.js';
import { loadConfig, type Config } from '../../../src/platform/config.js';
import { readerFeaturesCommand } from '../../../src/reader/cli.js';
import { ReaderSettingsStore } from '../../../src/reader/store.js';
import { startTestApp, type Tenant, type TestApp } from '../../../fixtures/servers/app.js';
import { useMigratedStore } from '../../support/store.js';
import { fixture, postForm, truth } from '../../support/reader/helpers.js';

const PROB = /^\d{1,3}\.\d{2}$/;
const ROOT = path.resolve(import.meta.dirname, '../../..');

function settingsSuite(engine: 'sqlite' | 'postgres') {
  describe(`reader application settings on ${engine}`, () => {
    const current = useMigratedStore(engine, 'saola-reader-settings-');

    it('the migration made the table: nothing is arranged by default, on and off apply to one application only', async () => {
      const credentials = new Credentials(current(), 0);
      const a = await credentials.createApp('bank-a');
      const b = await credentials.createApp('bank-b');
      const settings = new ReaderSettingsStore(current().db);
      assert.deepEqual(await settings.get(a.app_code), { app_code: a.app_code, features: false, updated_time: null });
      assert.equal(await settings.featuresArranged(a.app_code), false);

      const on = await settings.setFeatures(a.app_code, true);
      assert.equal(on.features, true);
      assert.equal(await settings.featuresArranged(a.app_code), true);
      assert.deepEqual(await settings.get(a.app_code), on);
      assert.equal(await settings.featuresArranged(b.app_code), false, 'another application is not affected');

      await settings.setFeatures(a.app_code, true);
      assert.equal(await settings.featuresArranged(a.app_code), true, 'setting it twice keeps one row');
      const off = await settings.setFeatures(a.app_code, false);
      assert.equal(await settings.featuresArranged(a.app_code), false);
      assert.equal((await settings.get(a.app_code)).updated_time, off.updated_time);
      const rows = await current().db.withTables<{ reader_app_settings: { app_code: string } }>().selectFrom('reader_app_settings').selectAll().execute();
      assert.equal(rows.length, 1);
    });

    it('settings belong to an existing application', async () => {
      await assert.rejects(new ReaderSettingsStore(current().db).setFeatures('no-such-app', true));
    });
  });
}

settingsSuite('sqlite');
settingsSuite('postgres');

/** Every file under `dir` (database, WAL, blobs) as one string, to look for text that must not be kept. */
function everythingUnder(dir: string): string {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => fs.readFileSync(path.join(e.parentPath, e.name)).toString('utf8'))
    .join('\n');
}

describe('ID card back features, per application (server and CLI on one SQLite database)', () => {
  let dir: string;
  let config: Config;
  let t: TestApp;
  let other: Tenant;
  const chip = truth['chip-back'].fields;

  async function reader(...args: string[]) {
    let out = '';
    let err = '';
    const code = await readerFeaturesCommand({ config, migrations, args, stdout: (s) => (out += s), stderr: (s) => (err += s) });
    return { code, out, err };
  }
  const idr = async (image: Buffer, key = t.apiKey) => {
    const { status, body } = await postForm(`${t.url}/vision/idr/vnm`, key, { image });
    assert.equal(status, 200);
    assert.equal(body.errorCode, 0, body.errorMessage);
    return body.data[0];
  };
  const cmt = async (image: Buffer, key = t.apiKey) => {
    const { status, body } = await postForm(`${t.url}/cmt`, key, { image, face: '1' });
    assert.equal(status, 200);
    assert.equal(body.errorCode, 0, body.errorMessage);
    return body.data[0];
  };

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-reader-features-'));
    const databaseUrl = `sqlite:${path.join(dir, 'saola.db')}`;
    config = loadConfig({ SAOLA_DATA_DIR: dir, SAOLA_DATABASE_URL: databaseUrl });
    t = await startTestApp({ databaseUrl });
    other = await t.newTenant('other-app');
  });
  after(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('by default a back answers features and features_prob "N/A" on both endpoints, and nothing keeps the text', async () => {
    const d = await idr(fixture('chip-back.jpg'));
    assert.equal(d.type, 'chip_back');
    assert.equal(d.features, 'N/A');
    assert.equal(d.features_prob, 'N/A');
    assert.equal(d.issue_date, chip.issue_date, 'the other fields are still read');
    assert.match(String(d.issue_date_prob), PROB);
    // The overall score is over the fields answered: here issue_date alone.
    assert.equal(d.overall_score, d.issue_date_prob);

    const old = await cmt(fixture('cmnd09-back.jpg'));
    assert.equal(old.features, 'N/A');
    assert.equal(old.features_prob, 'N/A');
    for (const f of ['religion', 'ethnicity', 'issue_loc']) assert.equal(old[f], truth['cmnd09-back'].fields[f], f);

    for (const folder of [dir, t.dataDir]) {
      const kept = everythingUnder(folder);
      for (const text of [chip.features, truth['cmnd09-back'].fields.features]) assert.ok(!kept.includes(text), `"${text}" is kept under ${folder}`);
    }
  });

  it('saola reader features APP on returns them to that application only; off withholds them again', async () => {
    const on = await reader('test-app', 'on');
    assert.equal(on.code, 0, on.err);
    assert.match(on.out, /Application "test-app" \(.+\): ID card back features are returned \(arranged\), set \d{4}-/);

    const d = await idr(fixture('chip-back.jpg'));
    assert.equal(d.features, chip.features);
    assert.match(String(d.features_prob), PROB);
    const c = await cmt(fixture('chip-back.jpg'));
    assert.equal(c.features, chip.features);
    assert.match(String(c.features_prob), PROB);

    const o = await idr(fixture('chip-back.jpg'), other.apiKey);
    assert.equal(o.features, 'N/A', 'another application has no arrangement');
    assert.equal(o.features_prob, 'N/A');

    const off = await reader(t.appCode, 'off', '--json');
    assert.equal(off.code, 0, off.err);
    const body = JSON.parse(off.out);
    assert.deepEqual({ ...body, updated_time: typeof body.updated_time }, { app_code: t.appCode, name: 'test-app', features: false, updated_time: 'string' });
    const again = await idr(fixture('chip-back.jpg'));
    assert.equal(again.features, 'N/A');
    assert.equal(again.features_prob, 'N/A');
  });

  it('show prints the setting, by code or name, as text or JSON', async () => {
    const fresh = await reader('other-app', 'show', '--json');
    assert.equal(fresh.code, 0, fresh.err);
    assert.deepEqual(JSON.parse(fresh.out), { app_code: other.appCode, name: 'other-app', features: false, updated_time: null });
    await reader(other.appCode, 'on');
    const shown = await reader(other.appCode, 'show');
    assert.match(shown.out, /^Application "other-app" \(.+\): ID card back features are returned \(arranged\), set /);
    const text = await reader('test-app', 'show');
    assert.match(text.out, /withheld \("N\/A", not arranged\), set /);
  });

  it('bad usage and an unknown application are usage errors (exit code 2 from the saola command)', async () => {
    await assert.rejects(reader('nobody', 'on'), /No application "nobody"/);
    await assert.rejects(reader('test-app', 'maybe'), /Unknown setting "maybe"/);
    await assert.rejects(reader('test-app'), CommandUsageError);
    await assert.rejects(reader(), CommandUsageError);
    await assert.rejects(reader('test-app', 'on', 'now'), /Unexpected "now"/);
    await assert.rejects(reader('test-app', 'on', '--bogus'), CommandUsageError);
    const help = await reader('--help');
    assert.equal(help.code, 0);
    assert.match(help.out, /saola reader features APP on\|off\|show/);

    assert.equal(services.flatMap((s) => s.commands ?? []).find((c) => c.words === 'reader features')?.run, readerFeaturesCommand);
    const run = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/main.ts'), 'reader', 'features', 'nobody', 'show'], {
      cwd: ROOT,
      env: { ...process.env, SAOLA_DATA_DIR: dir, SAOLA_DATABASE_URL: config.databaseUrl },
    });
    let stderr = '';
    run.stderr.on('data', (b) => (stderr += b));
    const code = await new Promise<number | null>((resolve) => run.on('exit', resolve));
    assert.equal(code, 2, stderr);
    assert.match(stderr, /No application "nobody"/);
  });
});
