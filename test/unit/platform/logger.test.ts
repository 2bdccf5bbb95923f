/**
 * The server's request log lines (src/app.ts `loggerOptions`, src/platform/http/request-log.ts): at info, one line
 * when a request is answered (method, URL with any key masked, address, status, time); at debug also one when it
 * comes in; never a credential, whichever way a client sent it. A fastify app with the server's logger options and
 * request log writes into a collecting stream.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { loggerOptions, redactUrl } from '../../../src/app.js';
import { installRequestLog } from '../../../src/platform/http/request-log.js';

const KEY = 'sk_' + 'k'.repeat(43);
const TOKEN = 'st_' + 't'.repeat(43);

async function logLinesOf(level: string, request: { url: string; headers: Record<string, string> }): Promise<Record<string, unknown>[]> {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  const options = loggerOptions(level) as object;
  const app = Fastify({ logger: { ...options, stream }, disableRequestLogging: true });
  installRequestLog(app);
  app.post('/echo', async () => ({ ok: true }));
  await app.inject({ method: 'POST', url: request.url, headers: { 'content-type': 'application/json', ...request.headers }, payload: '{}' });
  await app.close();
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('request log lines', () => {
  it('at info: one line a request, when it is answered, with method, URL, address, status and time', async () => {
    const lines = await logLinesOf('info', { url: '/echo', headers: { authorization: `Bearer ${TOKEN}` } });
    assert.deepEqual(
      lines.map((l) => l.msg),
      ['request completed'],
    );
    const [completed] = lines;
    assert.deepEqual(completed.req, { method: 'POST', url: '/echo', ip: '127.0.0.1' });
    assert.deepEqual(completed.res, { statusCode: 200 });
    assert.equal(typeof completed.responseTime, 'number');
    assert.equal(typeof completed.reqId, 'string');
  });

  it('at debug: the line as the request comes in too, with the same request id', async () => {
    const lines = await logLinesOf('debug', { url: '/echo', headers: {} });
    const incoming = lines.find((l) => l.msg === 'incoming request');
    const completed = lines.find((l) => l.msg === 'request completed');
    assert.deepEqual(incoming?.req, { method: 'POST', url: '/echo', ip: '127.0.0.1' });
    assert.equal(incoming?.reqId, completed?.reqId);
  });

  it('no key or token in any line, sent in a header or in the URL', async () => {
    const lines = await logLinesOf('trace', {
      url: `/echo?api_key=${KEY}&x=${TOKEN}`,
      headers: { authorization: `Bearer ${TOKEN}`, api_key: KEY, 'api-key': KEY, apikey: KEY },
    });
    assert.ok(lines.length >= 2);
    const all = JSON.stringify(lines);
    for (const secret of [KEY, TOKEN]) assert.ok(!all.includes(secret.slice(3, 19)), `a piece of ${secret.slice(0, 3)}... was logged`);
    const incoming = lines.find((l) => l.msg === 'incoming request');
    assert.deepEqual(incoming?.req, { method: 'POST', url: '/echo?api_key=***&x=st_***', ip: '127.0.0.1' });
  });

  it('redactUrl: a URL without an underscore is returned as it is, keys are masked wherever they are', () => {
    assert.equal(redactUrl('/api/v3/predict'), '/api/v3/predict');
    assert.equal(redactUrl('/a?API_KEY=secret&b=1'), '/a?API_KEY=***&b=1');
    assert.equal(redactUrl(`/a/${KEY}/b`), '/a/sk_***/b');
    assert.equal(redactUrl('/api/v3/intent-sample/import_intent_samples'), '/api/v3/intent-sample/import_intent_samples');
  });
});
