import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { startTestApp } from '../../../../fixtures/servers/app.js';
import { createTestDatabase } from '../../../../fixtures/servers/postgres.js';
import { looksLikeMp3, pollUntilReady, postTts, rawRequest, waitForStatus, withEnv } from '../../../support/speech/tts/helpers.js';
import { eventually } from '../../../support/wait.js';

/** The second process: the same data folder and database, keeping the first one's application. */
function reopen(dataDir: string, databaseUrl?: string) {
  return startTestApp({ dataDir, databaseUrl });
}

/**
 * Requests accepted by a process that never ran them (its workers were off)
 * are finished by the next process on the same data folder and database.
 */
async function restartWithQueuedJobs(databaseUrl?: string): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-tts-restart-'));
  const env = { SAOLA_DATA_DIR: dataDir };
  try {
    const first = await startTestApp({ databaseUrl, env: { ...env, SAOLA_RUN_WORKERS: 'false' } });
    const accepted: { id: string; link: string }[] = [];
    for (const [i, format] of (['mp3', 'wav'] as const).entries()) {
      const res = await postTts(first.url, `Yêu cầu số ${i + 1} chờ khởi động lại.`, { api_key: first.apiKey, format });
      assert.equal(res.body.error, 0, res.raw);
      accepted.push({ id: res.body.request_id, link: res.body.async });
    }
    const queued = await rawRequest(`${first.url}/hmi/tts/v5/status/${accepted[0].id}`, { headers: { api_key: first.apiKey } });
    assert.equal(JSON.parse(queued.body.toString()).status, 'queued');
    assert.equal((await rawRequest(accepted[0].link)).status, 404);
    const apiKey = first.apiKey;
    await first.close();

    const second = await reopen(dataDir, databaseUrl);
    try {
      for (const { id, link } of accepted) {
        const status = await waitForStatus(second.url, apiKey, id);
        assert.equal(status.status, 'done', JSON.stringify(status));
        // The link was handed out by the first process; its path works on the second.
        const { final } = await pollUntilReady(second.url + new URL(link).pathname);
        assert.ok(link.endsWith('.mp3') ? looksLikeMp3(final.body) : final.body.subarray(0, 4).toString() === 'RIFF');
      }
    } finally {
      await second.close();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

describe('restart with queued jobs', () => {
  test('SQLite: a new process on the same data folder completes them', async () => {
    await restartWithQueuedJobs();
  });

  test('PostgreSQL: a new process on the same database completes them', async () => {
    const db = await createTestDatabase();
    try {
      await restartWithQueuedJobs(db.url);
    } finally {
      await db.drop();
    }
  });
});

describe('retention', () => {
  test('files older than the retention period are deleted and their link answers 404', async () => {
    const restore = withEnv({ SAOLA_TTS_RETENTION_SECONDS: '10', SAOLA_TTS_SWEEP_SECONDS: '1' });
    const t = await startTestApp();
    try {
      const res = await postTts(t.url, 'Tệp này sẽ bị xóa sớm.', { api_key: t.apiKey });
      // Retention counts from the request's creation, so it must outlast a slow synthesis.
      // Ready first. Polled every 100 ms, not with a client's doubling wait: on a machine without
      // the Debian programs the WASM engine is slower, and a doubled wait could step over the
      // whole time the file lives and see only 404s.
      await eventually(async () => (await rawRequest(res.body.async)).status === 200, { timeoutMs: 120_000, what: 'the audio was ready' });
      const status = await eventually(
        async () => {
          const now = (await rawRequest(res.body.async)).status;
          return now === 200 ? undefined : now;
        },
        { timeoutMs: 30_000, intervalMs: 250, what: 'the audio was removed at the end of its retention' },
      );
      assert.equal(status, 404);
      const gone = await rawRequest(`${t.url}/hmi/tts/v5/status/${res.body.request_id}`, { headers: { api_key: t.apiKey } });
      assert.equal(gone.status, 404, 'the finished request is forgotten too');
    } finally {
      await t.close();
      restore();
    }
  });
});
