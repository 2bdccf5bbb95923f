import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/platform/config.js';
import { openPlatform } from '../../../src/platform/index.js';
import { purgeApplication } from '../../../src/platform/purge.js';
import { joinMigrations, ServicePaths, type ServiceModule } from '../../../src/platform/service-module.js';
import { USAGE } from '../../../src/main.js';
import { migrations, servicePaths, services } from '../../../src/services.js';
import { startTestApp, type TestApp } from '../../../fixtures/servers/app.js';
import { call } from '../../support/http.js';

/** The ten-line service ARCHITECTURE.md shows: a route, a table, metering by prefix, nothing else to edit. */
const echoService: ServiceModule = {
  name: 'echo',
  prefixes: ['/echo/'],
  migrations: {
    '0099_echo_notes': { up: (db: Kysely<any>) => db.schema.createTable('echo_notes').addColumn('app_code', 'text').addColumn('text', 'text').execute() },
  },
  register: async (app) => {
    app.post('/echo/v1', async (request) => ({ echo: request.body }));
  },
};

/** Platform routes that belong to no service: health, readiness, the API reference and the console. */
const PLATFORM_ROUTE = /^\/(healthz|readyz|docs|console)(\/|$)/;

describe('the service list', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => t?.close());

  it('every public route is under a prefix of some service (so it is metered, limited and capped)', () => {
    const uncovered = t.app
      .routeTable()
      .filter((r) => r.method !== 'HEAD' && !PLATFORM_ROUTE.test(r.url) && servicePaths.serviceOf(r.url) === undefined)
      .map((r) => `${r.method} ${r.url}`);
    assert.deepEqual(uncovered, []);
  });

  it('liveness is a metered service of its own; the longest prefix wins', () => {
    assert.equal(servicePaths.serviceOf('/dmp/liveness/v3'), 'liveness');
    assert.equal(servicePaths.serviceOf('/dmp/checklive/v2'), 'liveness');
    assert.equal(servicePaths.serviceOf('/dmp/checkface/v1'), 'face');
    assert.ok(servicePaths.isService('liveness'));
    assert.ok(!servicePaths.isService('console'), 'the console has no public prefixes');
    const paths = new ServicePaths([
      { name: 'a', prefixes: ['/x/'] },
      { name: 'b', prefixes: ['/x/y/'] },
    ]);
    assert.equal(paths.serviceOf('/x/y/z'), 'b');
    assert.equal(paths.serviceOf('/x/z'), 'a');
  });

  it('saola --help lists every service command with its usage', () => {
    for (const c of services.flatMap((s) => s.commands ?? [])) assert.ok(USAGE.includes(`  ${c.words} ${c.usage}`), `${c.words} in the help`);
    assert.match(USAGE, /eval liveness --live DIR --attack DIR/);
    assert.match(USAGE, /reader features APP on\|off\|show/);
  });

  it('names, commands and migrations are unique across services', () => {
    assert.equal(new Set(services.map((s) => s.name)).size, services.length);
    const words = services.flatMap((s) => s.commands ?? []).map((c) => c.words);
    assert.equal(new Set(words).size, words.length);
    assert.throws(() => joinMigrations([{ a: { up: async () => {} } }, { a: { up: async () => {} } }]), /Migration a is defined twice/);
    assert.ok(Object.keys(migrations).includes('0004_face_search_03_liveness_thresholds'), 'liveness keeps its shipped migration name');
  });

  it('a trailing slash reaches the same route as without it (not 405)', async () => {
    for (const p of ['/cmt/', '/hmi/asr/general/', '/dmp/facesearch/v2/collection/', '/dmp/checkface/v1/', '/vision/idr/vnm/', '/dmp/liveness/v3/']) {
      const r = await call(t.url, 'POST', p, {});
      assert.equal(r.status, 401, `${p}: ${r.status} ${r.text}`);
    }
    // Credit scoring is a GET; with the slash it is still the route (its own 400 for a missing phone), not 404 or 405.
    const credit = await call(t.url, 'GET', '/dmp/creditscoring/v1/', { headers: { api_key: t.apiKey } });
    assert.equal(credit.status, 400, credit.text);
  });

  it('a liveness request is counted under liveness and obeys its quota', async () => {
    await t.deps.store.db
      .insertInto('usage_quotas')
      .values({ app_code: t.appCode, service: 'liveness', per_minute: 1, per_day: null, updated_time: new Date().toISOString() })
      .execute();
    // Quotas are re-read every 5 s behind the requests.
    await new Promise((r) => setTimeout(r, 5100));
    const post = () => {
      const form = new FormData();
      form.append('video', new Blob([Buffer.from('not a video')]), 'selfie.mp4');
      return fetch(`${t.url}/dmp/liveness/v3`, { method: 'POST', headers: { api_key: t.apiKey }, body: form });
    };
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await post()).status);
    assert.ok(statuses.includes(429), `a 429 once the quota of 1 per minute is used: ${statuses}`);
    assert.equal(statuses[0], 200, 'the first one is answered');
    // The usage rows (written every 5 s) name the service.
    let rows: { service: string; endpoint: string; count: number }[] = [];
    for (let i = 0; i < 40 && rows.length === 0; i++) {
      rows = await t.deps.store.db
        .selectFrom('usage_daily')
        .select(['service', 'endpoint', 'count'])
        .where('app_code', '=', t.appCode)
        .where('service', '=', 'liveness')
        .execute();
      if (rows.length === 0) await new Promise((r) => setTimeout(r, 250));
    }
    assert.ok(
      rows.some((r) => r.endpoint === 'POST /dmp/liveness/v3' && Number(r.count) >= 1),
      JSON.stringify(rows),
    );
  });

  it('liveness obeys SAOLA_MAX_IN_FLIGHT: while one upload is in hand, the next gets its 429', async () => {
    const capped = await startTestApp({ env: { SAOLA_MAX_IN_FLIGHT: '1' } });
    // An upload whose body never finishes stays in flight.
    const held = http.request(`${capped.url}/dmp/liveness/v3`, {
      method: 'POST',
      headers: { api_key: capped.apiKey, 'content-type': 'multipart/form-data; boundary=x', 'content-length': '100000' },
    });
    held.on('error', () => {});
    held.write('--x\r\n');
    try {
      let last: Response | undefined;
      for (let i = 0; i < 20; i++) {
        const form = new FormData();
        form.append('video', new Blob([Buffer.from('x')]), 'selfie.mp4');
        last = await fetch(`${capped.url}/dmp/liveness/v3`, { method: 'POST', headers: { api_key: capped.apiKey }, body: form });
        if (last.status === 429) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(last?.status, 429);
      const body = (await last!.json()) as { code: string; liveness: { message: string } };
      assert.equal(body.code, '429');
      assert.match(body.liveness.message, /liveness service is overloaded/);
    } finally {
      held.destroy();
      await capped.close();
    }
  });
});

describe('adding a service', () => {
  it('is one module: its route is served, metered under its name, its table made and purged with the application', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-echo-'));
    const config = loadConfig({ SAOLA_DATA_DIR: dataDir, SAOLA_LOG_LEVEL: 'silent', SAOLA_AUTH_CACHE_SECONDS: '0', SAOLA_MAX_EVENT_LOOP_DELAY_MS: '0' });
    const deps = await openPlatform(config, joinMigrations([migrations, echoService.migrations]));
    const app = await buildApp(deps, [echoService]);
    try {
      const created = await deps.credentials.createApp('echo-app');
      assert.equal(new ServicePaths([echoService]).serviceOf('/echo/v1'), 'echo');
      const r = await app.inject({ method: 'POST', url: '/echo/v1', payload: { hello: 'world' } });
      assert.equal(r.statusCode, 200);
      assert.deepEqual(r.json(), { echo: { hello: 'world' } });
      await deps.store.db
        .withTables<{ echo_notes: { app_code: string; text: string } }>()
        .insertInto('echo_notes')
        .values({ app_code: created.app_code, text: 'x' })
        .execute();
      const report = await purgeApplication(deps, created.app_code, []);
      assert.equal(report.rows.echo_notes, 1, 'the platform purges a service table it was never told about');
    } finally {
      await app.close();
      await deps.lifecycle.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
