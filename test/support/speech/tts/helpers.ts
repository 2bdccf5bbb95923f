import http from 'node:http';
import assert from 'node:assert/strict';
import { eventually, sleep } from '../../wait.js';
import type { Pcm } from '../../../../src/speech/tts/engine/encode.js';

/** What POST /hmi/tts/v5 answered: the raw text (a client slices it) and the parsed body. */
export interface TtsAnswer {
  status: number;
  raw: string;
  body: { async: string; error: number; message: string; request_id: string };
  headers: http.IncomingHttpHeaders;
}

/**
 * A raw HTTP request with exactly the headers given (no Content-Type unless
 * given), as Python requests sends a bytes body.
 */
export function rawRequest(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const body = opts.body === undefined ? undefined : Buffer.isBuffer(opts.body) ? opts.body : Buffer.from(opts.body, 'utf8');
    const headers: Record<string, string> = { ...opts.headers };
    if (body) headers['content-length'] = String(body.length);
    const req = http.request(url, { method: opts.method ?? 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}

export async function postTts(base: string, text: string | Buffer, headers: Record<string, string>, query = ''): Promise<TtsAnswer> {
  const res = await rawRequest(`${base}/hmi/tts/v5${query}`, { method: 'POST', headers, body: text });
  const raw = res.body.toString('utf8');
  return { status: res.status, raw, body: JSON.parse(raw), headers: res.headers };
}

/** A poller as real clients write it: first try after 0.2 s, then the wait doubles. Answers every status seen. */
export async function pollUntilReady(url: string, maxTries = 10): Promise<{ statuses: number[]; final: Awaited<ReturnType<typeof rawRequest>> }> {
  const statuses: number[] = [];
  let wait = 200;
  for (let i = 0; i < maxTries; i++) {
    await sleep(wait);
    const res = await rawRequest(url);
    statuses.push(res.status);
    if (res.status === 200) return { statuses, final: res };
    wait *= 2;
  }
  assert.fail(`${url} was not ready after ${maxTries} polls: ${statuses.join(', ')}`);
}

/** Waits for a request's status to reach done or failed (status endpoint). */
export async function waitForStatus(base: string, apiKey: string, requestId: string, timeoutMs = 60_000): Promise<any> {
  let last: any;
  return eventually(
    async () => {
      const res = await rawRequest(`${base}/hmi/tts/v5/status/${requestId}`, { headers: { api_key: apiKey } });
      last = JSON.parse(res.body.toString('utf8'));
      return last.status === 'done' || last.status === 'failed' ? last : undefined;
    },
    { timeoutMs, intervalMs: 200, what: () => `request ${requestId} did not finish: ${JSON.stringify(last)}` },
  );
}

/** An MP3 file starts with an ID3 tag or an MPEG audio frame sync. */
export function looksLikeMp3(buf: Buffer): boolean {
  return buf.subarray(0, 3).toString('latin1') === 'ID3' || (buf[0] === 0xff && (buf[1] & 0xe0) === 0xe0);
}

/** Sets environment variables for the services started next; returns what restores them. */
export function withEnv(vars: Record<string, string>): () => void {
  const before = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  return () => {
    for (const [k, v] of Object.entries(before)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
}

/**
 * The median pitch of a voice's voiced 40-ms frames, Hz (autocorrelation peak between 70 and 400 Hz). A
 * speaker's eSpeak variant sets its pitch, so two syntheses in one voice agree within a lag step (under 1 %).
 */
export function medianPitch({ samples, sampleRate }: Pcm): number {
  const frame = Math.round(sampleRate * 0.04);
  const minLag = Math.round(sampleRate / 400);
  const maxLag = Math.round(sampleRate / 70);
  const pitches: number[] = [];
  for (let start = 0; start + frame + maxLag < samples.length; start += frame) {
    const energy = sumOfProducts(samples, start, start, frame);
    // Silence and unvoiced sounds have no pitch.
    if (energy / frame < 1e5) continue;
    let best = 0;
    let bestLag = 0;
    for (let lag = minLag; lag <= maxLag; lag++) {
      const r = sumOfProducts(samples, start, start + lag, frame) / Math.sqrt(energy * sumOfProducts(samples, start + lag, start + lag, frame));
      if (r > best) [best, bestLag] = [r, lag];
    }
    if (best > 0.6) pitches.push(sampleRate / bestLag);
  }
  assert.ok(pitches.length > 0, 'no voiced frame');
  pitches.sort((a, b) => a - b);
  return pitches[Math.floor(pitches.length / 2)];
}

function sumOfProducts(samples: Int16Array, a: number, b: number, n: number): number {
  let sum = 0;
  for (let i = 0; i < n; i++) sum += samples[a + i] * samples[b + i];
  return sum;
}
