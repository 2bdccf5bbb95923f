import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestApp, type TestApp } from '../../../../fixtures/servers/app.js';
import { buildTinyTransducer } from '../../../../fixtures/speech/tiny-transducer.js';

/** A test server whose speech settings come from `env` (the ASR settings are read from the process environment). */
export async function startAsrApp(env: Record<string, string | undefined>): Promise<TestApp> {
  const saved: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(env)) {
    saved[k] = process.env[k];
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  try {
    return await startTestApp();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/** Builds the tiny transducer in a fresh temp folder. */
export function tinyModelDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-asr-model-'));
  buildTinyTransducer(dir);
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface AsrReply {
  http: number;
  requestId: string | null;
  body: { status: number; hypotheses?: { utterance: string }[]; message?: string; id: string };
}

/** POSTs audio the way clients of the original do: the file as the body. */
export async function postAudio(app: { url: string; apiKey: string }, audio: Buffer | string, headers: Record<string, string> = {}, query = ''): Promise<AsrReply> {
  const res = await fetch(`${app.url}/hmi/asr/general${query}`, {
    method: 'POST',
    headers: { api_key: app.apiKey, ...headers },
    body: typeof audio === 'string' ? audio : new Uint8Array(audio),
  });
  const text = await res.text();
  return { http: res.status, requestId: res.headers.get('x-request-id'), body: JSON.parse(text) };
}
