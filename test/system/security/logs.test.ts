/**
 * Secrets never reach the logs: the real `saola serve` runs as a child process
 * at log level trace, requests carry keys and tokens every way clients send
 * them (four headers, the query string, bearer), valid, revoked and wrong, to
 * every service, plus a credit source token in the settings; then the whole of
 * stdout and stderr is searched for each secret and for any 16-character piece of it.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runSaola, startSaola, type SaolaProcess } from '../../../fixtures/servers/saola-process.js';

describe('secrets in logs', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-logs-'));
  let url = '';
  let provider: http.Server;
  let server: SaolaProcess | undefined;
  const secrets: string[] = [];
  const creditToken = 'credit-source-token-' + 'q'.repeat(24);
  let app: { api_key: string; token: string; app_code: string };
  let revoked: { api_key: string; token: string };

  const env = { SAOLA_LOG_LEVEL: 'trace', SAOLA_AUTH_CACHE_SECONDS: '0' };
  const cli = async (...args: string[]) => JSON.parse((await runSaola([...args, '--json'], { env: { ...env, SAOLA_DATA_DIR: dir } })).stdout);

  before(async () => {
    provider = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"features":{"x":1}}'));
    await new Promise<void>((r) => provider.listen(0, '127.0.0.1', r));
    app = await cli('app', 'create', '--name', 'logs-a');
    revoked = await cli('app', 'create', '--name', 'logs-b');
    await cli('app', 'revoke', '--app', 'logs-b');
    secrets.push(app.api_key, app.token, revoked.api_key, revoked.token, creditToken);
    server = await startSaola({
      dataDir: dir,
      logLevel: 'trace',
      env: {
        ...env,
        SAOLA_CREDIT_BETA_URL: `http://127.0.0.1:${(provider.address() as net.AddressInfo).port}/f`,
        SAOLA_CREDIT_BETA_TOKEN: creditToken,
      },
    });
    url = server.url;
  });
  after(async () => {
    await server?.stop();
    await new Promise((r) => provider.close(r));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('no key or token, valid, revoked or wrong, appears in any log line', async () => {
    const wrongKey = 'sk_' + 'w'.repeat(43);
    const wrongToken = 'st_' + 'v'.repeat(43);
    secrets.push(wrongKey, wrongToken);
    const paths: [string, string][] = [
      ['GET', '/dmp/creditscoring/v1?phone=0912345678&dltype=1&decision_time=1740787200'],
      ['GET', '/dmp/facesearch/v2/list?collection=x'],
      ['GET', '/hmi/tts/v5/status/nope'],
      ['POST', '/hmi/tts/v5'],
      ['POST', '/vision/idr/vnm'],
      ['POST', '/hmi/asr/general'],
      ['GET', '/no/such/route'],
    ];
    let requests = 0;
    for (const key of [app.api_key, revoked.api_key, wrongKey]) {
      for (const [method, p] of paths) {
        for (const header of ['api_key', 'api-key', 'apikey', 'authorization', 'query']) {
          const headers: Record<string, string> = {};
          let target = url + p;
          if (header === 'query') target += `${p.includes('?') ? '&' : '?'}api_key=${encodeURIComponent(key)}`;
          else if (header === 'authorization') headers.authorization = `Bearer ${key}`;
          else headers[header] = key;
          const res = await fetch(target, { method, headers, body: method === 'POST' ? 'x' : undefined });
          await res.arrayBuffer();
          requests++;
        }
      }
    }
    for (const token of [app.token, revoked.token, wrongToken]) {
      for (const p of ['/api/v3/sample', '/api/v3/entity/x', '/api/v3/nothing']) {
        const res = await fetch(url + p, { headers: { authorization: `Bearer ${token}` } });
        await res.arrayBuffer();
        const q = await fetch(`${url}${p}?api_key=${token}&token=${token}`);
        await q.arrayBuffer();
        requests += 2;
      }
    }
    // Stopped first, so every line the server writes (its shutdown included) is searched.
    await server!.stop();
    const output = server!.output();
    console.log(`# logs: ${requests} requests, ${output.split('\n').length} log lines, ${secrets.length} secrets searched`);
    assert.ok(requests > 100);
    assert.ok(output.split('\n').length > requests, 'the requests were logged at all');
    for (const secret of secrets) {
      for (let i = 0; i + 16 <= secret.length; i += 8) {
        const piece = secret.slice(i, i + 16);
        assert.ok(
          !output.includes(piece),
          `a piece of a secret (${secret.slice(0, 6)}…) is in the log: ${output
            .split('\n')
            .find((l) => l.includes(piece))
            ?.slice(0, 300)}`,
        );
      }
    }
  });
});
