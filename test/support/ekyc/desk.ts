/** What the review desk's tests share: a session that ended, seeded in the store, and a webhook receiver. */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ReviewStore, SqlEkycStore } from '../../../src/ekyc/index.js';
import { newSessionRow } from '../../../src/ekyc/store.js';
import { uuidv7 } from '../../../src/platform/ids.js';
import type { TestApp } from '../../../fixtures/servers/app.js';

export interface SeededSession {
  id: string;
  /** Image ids by kind. */
  images: Record<'front' | 'back' | 'selfie', string>;
}

const item = (key: string, name: string, value: string, score: string) => ({ key, locale: 'vn', name, score, value });

/**
 * A session as the flow leaves it after a passed selfie (or a failed one), with its three images: the desk's
 * input without running the engines. The field values are made up.
 */
export async function seedEndedSession(
  t: Pick<TestApp, 'deps'>,
  appCode: string,
  photos: { front: Buffer; back: Buffer; selfie: Buffer },
  opts: { status?: 'complete' | 'failed'; code?: string; documentType?: string; created?: Date } = {},
): Promise<SeededSession> {
  const store = SqlEkycStore.over(t.deps.store.db);
  const id = uuidv7();
  const created = opts.created ?? new Date();
  await store.createSession(newSessionRow(id, appCode, 'api', null, created, 1800_000));
  const images = {} as SeededSession['images'];
  for (const kind of ['front', 'back', 'selfie'] as const) {
    const key = `ekyc/${id}/${kind}-seed.jpg`;
    await t.deps.blobs.put(key, photos[kind], { contentType: 'image/jpeg' });
    images[kind] = uuidv7();
    await store.addImage({ id: images[kind], app_code: appCode, session_id: id, kind, blob_key: key, created_time: created.toISOString() });
  }
  const side = (kind: string, image: string, items: ReturnType<typeof item>[]) => JSON.stringify({ kind, items, fields: {}, image });
  const code = opts.code ?? '200';
  const result = {
    code,
    message: code === '200' ? 'Request successful' : 'Face does not match',
    liveness: {
      code: '200',
      message: 'Success',
      is_live: 'True',
      spoof_prob: '0.02',
      need_to_review: 'False',
      is_deepfake: 'False',
      deepfake_prob: '0.0',
      warning: '',
      error_frame_url: 'N/A',
    },
    face_match: {
      code: code === '200' ? '200' : '303',
      message: 'ok',
      isMatch: code === '200' ? 'True' : 'False',
      similarity: code === '200' ? '91.5' : '32.0',
      warning: '',
    },
    video_face_url: 'N/A',
    compared_face_url: 'N/A',
    is_complete_session: true,
  };
  const changed = await store.updateSession(
    appCode,
    id,
    { status: 'open' },
    {
      status: opts.status ?? 'complete',
      document_type: opts.documentType ?? 'idr',
      front: side('cccd_chip_front', `ekyc/${id}/front-seed.jpg`, [item('ID', 'Số', '000000000001', '0.98'), item('Name', 'Họ và tên', 'TEST PERSON', '0.91')]),
      back: side('cccd_chip_back', `ekyc/${id}/back-seed.jpg`, [item('Issue Date', 'Ngày cấp', '01/01/2022', '0.88')]),
      attempts: 1,
      result: JSON.stringify(result),
      completed_time: created.toISOString(),
    },
  );
  if (!changed) throw new Error('the seeded session did not end');
  return { id, images };
}

export interface ReceivedHook {
  headers: http.IncomingHttpHeaders;
  body: string;
  /** What the receiver answered. */
  status: number;
}

export interface HookReceiver {
  url: string;
  received: ReceivedHook[];
  /** The statuses to answer the next requests with, in order; 200 once they run out. */
  answers: number[];
  close(): Promise<void>;
}

/** A webhook receiver on a loopback port that records every request. */
export async function startHookReceiver(): Promise<HookReceiver> {
  const received: ReceivedHook[] = [];
  const answers: number[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const status = answers.shift() ?? 200;
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), status });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'not now');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/ekyc`,
    received,
    answers,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A receiver's check, written here from the documented scheme (not the server's code): HMAC-SHA256 of "<timestamp>.<body>". */
export function signatureValid(hook: ReceivedHook, secret: string): boolean {
  const timestamp = hook.headers['x-saola-timestamp'];
  const given = hook.headers['x-saola-signature'];
  if (typeof timestamp !== 'string' || typeof given !== 'string' || !given.startsWith('v1=')) return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.${hook.body}`).digest();
  const actual = Buffer.from(given.slice(3), 'hex');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A refused front as the flow keeps it (its image, an attempt row naming it, QC03's checks): answers the image's id and blob key. */
export async function addRefusedSide(t: Pick<TestApp, 'deps'>, appCode: string, sessionId: string, photo: Buffer): Promise<{ imageId: string; blobKey: string }> {
  const now = new Date().toISOString();
  const imageId = uuidv7();
  const blobKey = `ekyc/${sessionId}/refused-front-seed.jpg`;
  await t.deps.blobs.put(blobKey, photo, { contentType: 'image/jpeg' });
  const checks = { quality: { result: 'failed', final_result: { blurredLikelihood: 'likely' } } };
  await SqlEkycStore.over(t.deps.store.db).addAttempt(
    { id: uuidv7(), app_code: appCode, session_id: sessionId, side: 'front', code: 'QC03', checks: JSON.stringify(checks), image_id: imageId, created_time: now },
    { id: imageId, app_code: appCode, session_id: sessionId, kind: 'front', blob_key: blobKey, created_time: now },
  );
  return { imageId, blobKey };
}

/**
 * One row in each of the desk's tables for a session (a refused side with its image, a decision with its audit
 * row, a webhook, a delivery): the purge and migrate-store suites. Answers the refused side's blob key.
 */
export async function fillDeskTables(t: Pick<TestApp, 'deps'>, appCode: string, sessionId: string): Promise<string> {
  const store = ReviewStore.over(t.deps.store.db);
  const now = new Date().toISOString();
  const { blobKey } = await addRefusedSide(t, appCode, sessionId, Buffer.from('refused front image'));
  await store.decide(
    { id: uuidv7(), app_code: appCode, session_id: sessionId, decision: 'approved', reason: 'checked', reviewer: 'Reviewer', decided_time: now },
    { id: uuidv7(), app_code: appCode, session_id: sessionId, actor: 'Reviewer', action: 'approve', detail: '{"reason":"checked"}', created_time: now },
  );
  await store.setWebhook({
    id: appCode,
    app_code: appCode,
    url: 'https://hooks.example.com/ekyc',
    secret: 'a webhook secret of some length',
    created_time: now,
    updated_time: now,
  });
  await store.addDelivery({
    id: uuidv7(),
    app_code: appCode,
    session_id: sessionId,
    event: 'session.reviewed',
    url: 'https://hooks.example.com/ekyc',
    body: '{}',
    status: 'delivered',
    attempts: 1,
    response_status: 200,
    last_error: null,
    created_time: now,
    updated_time: now,
  });
  return blobKey;
}
