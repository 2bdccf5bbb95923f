import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { migrations } from '../../../src/services.js';
import { Credentials } from '../../../src/platform/auth/credentials.js';
import { requireApiKey } from '../../../src/platform/auth/hooks.js';
import { migrateToLatest, openStore, type Store } from '../../../src/platform/db/database.js';
import { installLenientParsers } from '../../../src/platform/http/body.js';
import { defineCatalogue, PlatformError, ServiceError, type ServiceErrorShape } from '../../../src/platform/http/errors.js';
import { indexRoutes } from '../../../src/platform/http/route-index.js';
import { platformErrorShape, sendRouteNotFound, useServiceErrors } from '../../../src/platform/http/service.js';
import { WorkerPool } from '../../../src/platform/pool/index.js';
import { sleep } from '../../support/wait.js';

/** A service shaped like the recognition API: domain codes in the body, HTTP 200 for domain outcomes. */
const Recognition = defineCatalogue({
  unauthorized: { code: 1, message: 'Invalid api key', status: 401 },
  bodyTooLarge: { code: 1, message: 'File too large', status: 413 },
  busy: { code: 9, message: 'Server busy', status: 429 },
  invalidRequest: { code: 1, message: 'Invalid parameters', status: 400 },
  routeNotFound: { code: 1, message: 'Not found', status: 404 },
  methodNotAllowed: { code: 1, message: 'Method not allowed', status: 405 },
  internal: { code: 10, message: 'Internal error', status: 500 },
  notAnImage: { code: 7, message: 'Invalid image file', status: 200 },
});
const shape: ServiceErrorShape = {
  service: 'recognition',
  platform: Recognition,
  render: (entry, message) => ({ errorCode: entry.code, errorMessage: message, data: [] }),
};

describe('service error shapes, auth hook and lenient bodies', () => {
  let app: FastifyInstance;
  let store: Store;
  let dir: string;
  let apiKey: string;
  const pool = new WorkerPool<{ ms: number }, unknown>({
    filename: new URL('../../support/pool-task.js', import.meta.url),
    name: 'ocr',
    threads: 1,
    maxQueue: 0,
    timeoutMs: 5_000,
  });

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-http-'));
    store = openStore(`sqlite:${path.join(dir, 'db.sqlite')}`);
    await migrateToLatest(store, migrations);
    const credentials = new Credentials(store, 0);
    const created = await credentials.createApp('http-test');
    apiKey = (await credentials.issue(created.app_code, 'api_key')).secret;

    app = Fastify({ logger: false, bodyLimit: 1024 });
    indexRoutes(app);
    installLenientParsers(app);
    app.setNotFoundHandler((request, reply) => sendRouteNotFound(platformErrorShape, request, reply));
    await app.register(
      async (scope) => {
        useServiceErrors(scope, shape);
        scope.addHook('onRequest', requireApiKey(credentials));
        scope.post('/echo', async (req) => ({ app: req.appCode, body: req.body }));
        scope.post('/raw', { config: { body: 'raw' } }, async (req) => ({ bytes: (req.body as Buffer).length, isBuffer: Buffer.isBuffer(req.body) }));
        scope.post('/domain', async () => {
          throw new ServiceError(Recognition.notAnImage);
        });
        scope.post('/crash', async () => {
          throw new Error('secret internal detail');
        });
        scope.post('/busy', async () => pool.run({ ms: 300 }));
      },
      { prefix: '/vision' },
    );
    await app.ready();
  });
  after(async () => {
    await app.close();
    await pool.close();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('the API key is accepted in all four spellings and refused otherwise, in the service shape', async () => {
    for (const headers of [{ api_key: apiKey }, { 'api-key': apiKey }, { apikey: apiKey }]) {
      const res = await app.inject({ method: 'POST', url: '/vision/echo', headers, payload: '{}' });
      assert.equal(res.statusCode, 200, JSON.stringify(headers));
    }
    const query = await app.inject({ method: 'POST', url: `/vision/echo?api_key=${apiKey}`, payload: '{}' });
    assert.equal(query.statusCode, 200);
    const missing = await app.inject({ method: 'POST', url: '/vision/echo', payload: '{}' });
    assert.equal(missing.statusCode, 401);
    assert.deepEqual(missing.json(), { errorCode: 1, errorMessage: 'Missing api_key', data: [] });
    const wrong = await app.inject({ method: 'POST', url: '/vision/echo', headers: { api_key: 'sk_wrong' }, payload: '{}' });
    assert.equal(wrong.statusCode, 401);
  });

  test('domain outcomes are HTTP 200 with the code in the body', async () => {
    const res = await app.inject({ method: 'POST', url: '/vision/domain', headers: { api_key: apiKey } });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { errorCode: 7, errorMessage: 'Invalid image file', data: [] });
  });

  test('our own fault is a 500 in the service shape without internals', async () => {
    const res = await app.inject({ method: 'POST', url: '/vision/crash', headers: { api_key: apiKey } });
    assert.equal(res.statusCode, 500);
    assert.deepEqual(res.json(), { errorCode: 10, errorMessage: 'Internal error', data: [] });
    assert.doesNotMatch(res.body, /secret internal detail|at .*\.ts/);
  });

  test('a body over the limit is 413 in the service shape', async () => {
    const res = await app.inject({ method: 'POST', url: '/vision/echo', headers: { api_key: apiKey }, payload: 'x'.repeat(5000) });
    assert.equal(res.statusCode, 413);
    assert.equal(res.json().errorCode, 1);
  });

  test('a full worker pool answers 429 in the service shape', async () => {
    const first = app.inject({ method: 'POST', url: '/vision/busy', headers: { api_key: apiKey } });
    await sleep(50);
    const second = await app.inject({ method: 'POST', url: '/vision/busy', headers: { api_key: apiKey } });
    assert.equal(second.statusCode, 429);
    assert.equal(second.json().errorCode, 9);
    assert.equal((await first).statusCode, 200);
  });

  test('unknown paths and wrong methods under the service answer in its shape (strangers get 401 first)', async () => {
    const stranger = await app.inject({ method: 'GET', url: '/vision/nothing' });
    assert.equal(stranger.statusCode, 401);
    const missing = await app.inject({ method: 'GET', url: '/vision/nothing', headers: { api_key: apiKey } });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json().errorCode, 1);
    const wrong = await app.inject({ method: 'GET', url: '/vision/echo', headers: { api_key: apiKey } });
    assert.equal(wrong.statusCode, 405);
    assert.equal(wrong.headers.allow, 'POST');
  });

  test('an unknown route answers 404 whatever its body: multipart, broken JSON, over the body limit (the body is not parsed)', async () => {
    const boundary = '----saola-test';
    const multipart = [
      `--${boundary}`,
      'Content-Disposition: form-data; name="image"; filename="card.jpg"',
      'Content-Type: image/jpeg',
      '',
      'x'.repeat(200),
      `--${boundary}--`,
      '',
    ].join('\r\n');
    const bodies: { type: string; payload: string }[] = [
      { type: `multipart/form-data; boundary=${boundary}`, payload: multipart },
      { type: 'application/json', payload: '{oops' },
      { type: 'text/plain', payload: 'x'.repeat(5000) },
    ];
    for (const { type, payload } of bodies) {
      const root = await app.inject({ method: 'POST', url: '/vision-qual/nowhere', headers: { 'content-type': type }, payload });
      assert.equal(root.statusCode, 404, `${type}: ${root.body}`);
      assert.deepEqual(root.json(), { statusCode: 404, error: 'Not Found', code: 'ROUTE_NOT_FOUND', message: 'Route POST /vision-qual/nowhere not found' });
      const inService = await app.inject({ method: 'POST', url: '/vision/nowhere', headers: { api_key: apiKey, 'content-type': type }, payload });
      assert.equal(inService.statusCode, 404, `${type}: ${inService.body}`);
      assert.equal(inService.json().errorCode, 1);
    }
    // A known route still parses: broken JSON is 400 and a body over the limit 413 (the test above).
    const known = await app.inject({ method: 'POST', url: '/vision/echo', headers: { api_key: apiKey, 'content-type': 'application/json' }, payload: '{oops' });
    assert.equal(known.statusCode, 400);
    assert.equal(known.json().errorMessage, 'Body is not valid JSON');
  });

  test('bodies: JSON under any content type, form fields, raw bytes, empty', async () => {
    const headers = { api_key: apiKey };
    const asForm = await app.inject({
      method: 'POST',
      url: '/vision/echo',
      headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
      payload: '{"a":1}',
    });
    assert.deepEqual(asForm.json().body, { a: 1 });
    const fields = await app.inject({
      method: 'POST',
      url: '/vision/echo',
      headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'a=1&b=x&b=y',
    });
    assert.deepEqual(fields.json().body, { a: '1', b: ['x', 'y'] });
    const octet = await app.inject({ method: 'POST', url: '/vision/echo', headers: { ...headers, 'content-type': 'application/octet-stream' }, payload: '[1,2]' });
    assert.deepEqual(octet.json().body, [1, 2]);
    const raw = await app.inject({ method: 'POST', url: '/vision/raw', headers: { ...headers, 'content-type': 'audio/wav' }, payload: Buffer.alloc(300, 7) });
    assert.deepEqual(raw.json(), { bytes: 300, isBuffer: true });
    const empty = await app.inject({ method: 'POST', url: '/vision/echo', headers: { ...headers, 'content-type': 'application/json' }, payload: '' });
    assert.equal(empty.statusCode, 200);
    assert.equal(empty.json().body, undefined);
    const garbage = await app.inject({ method: 'POST', url: '/vision/echo', headers: { ...headers, 'content-type': 'application/json' }, payload: '{oops' });
    assert.equal(garbage.statusCode, 400);
    assert.equal(garbage.json().errorCode, 1);
  });

  test('a NUL character in a body string is the client error, whatever the content type; a raw body keeps its bytes', async () => {
    const headers = { api_key: apiKey };
    const refused = [
      { type: 'application/json', payload: '{"content":"a\\u0000b"}' },
      { type: 'application/json', payload: '{"list":[{"k\\u0000":1}]}' },
      { type: 'application/x-www-form-urlencoded', payload: 'content=a%00b' },
    ];
    for (const { type, payload } of refused) {
      const res = await app.inject({ method: 'POST', url: '/vision/echo', headers: { ...headers, 'content-type': type }, payload });
      assert.equal(res.statusCode, 400, `${payload}: ${res.body}`);
      assert.deepEqual(res.json(), { errorCode: 1, errorMessage: 'Request holds a NUL character (U+0000), which no text field accepts', data: [] });
    }
    // An escaped backslash before "u0000" is six printable characters, not a NUL.
    const text = await app.inject({
      method: 'POST',
      url: '/vision/echo',
      headers: { ...headers, 'content-type': 'application/json' },
      payload: '{"content":"a\\\\u0000"}',
    });
    assert.equal(text.statusCode, 200, text.body);
    assert.equal(text.json().body.content, 'a\\u0000');
    const raw = await app.inject({ method: 'POST', url: '/vision/raw', headers: { ...headers, 'content-type': 'audio/wav' }, payload: Buffer.alloc(300, 0) });
    assert.deepEqual(raw.json(), { bytes: 300, isBuffer: true });
  });

  test('PlatformError conditions are typed', () => {
    const err = new PlatformError('busy', 'x');
    assert.equal(err.condition, 'busy');
  });
});
