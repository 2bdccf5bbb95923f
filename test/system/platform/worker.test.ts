import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../../../fixtures/servers/app.js';
import { startSaola, type SaolaProcess } from '../../../fixtures/servers/saola-process.js';
import { eventually, sleep } from '../../support/wait.js';

/**
 * Scale-out: an API server that runs no job workers, and a separate
 * `saola worker` process on the same database and data folder doing the work.
 */
describe('saola worker', () => {
  let t: TestApp;
  let worker: SaolaProcess | undefined;
  before(async () => {
    t = await startTestApp({ env: { SAOLA_RUN_WORKERS: 'false' } });
  });
  after(async () => {
    await worker?.stop();
    await t?.close();
  });

  async function status(id: string): Promise<string> {
    const res = await fetch(`${t.url}/hmi/tts/v5/status/${id}`, { headers: { api_key: t.apiKey } });
    return ((await res.json()) as { status: string }).status;
  }

  test('a job queued by a server without workers waits, then a worker process completes it', async () => {
    const res = await fetch(`${t.url}/hmi/tts/v5`, {
      method: 'POST',
      headers: { api_key: t.apiKey, format: 'wav' },
      body: 'Xin chào, đây là một bài kiểm tra.',
    });
    const answer = (await res.json()) as { async: string; request_id: string; error: number };
    assert.equal(answer.error, 0);
    await sleep(1000);
    assert.equal(await status(answer.request_id), 'queued', 'nobody works on it yet');
    assert.equal((await fetch(answer.async)).status, 404);

    worker = await startSaola({ command: 'worker', dataDir: t.dataDir });
    const final = await eventually(
      async () => {
        const now = await status(answer.request_id);
        return now === 'done' || now === 'failed' ? now : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250, what: 'the worker finished the request' },
    );
    assert.equal(final, 'done');
    const audio = await fetch(answer.async);
    assert.equal(audio.status, 200);
    assert.equal(audio.headers.get('content-type'), 'audio/wav');
    assert.equal(
      Buffer.from(await audio.arrayBuffer())
        .subarray(0, 4)
        .toString('ascii'),
      'RIFF',
    );
  });
});
