import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CreateBucketCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import Fastify, { type FastifyInstance } from 'fastify';
import S3rver from 's3rver';
import { sendBlob } from '../../../src/platform/blobs/http.js';
import { S3BlobStore, type S3BlobStoreOptions } from '../../../src/platform/blobs/s3-store.js';
import { ConfigError, loadConfig } from '../../../src/platform/config.js';
import { startTestApp } from '../../../fixtures/servers/app.js';
import { AUDIO, blobStoreSuite, readAll } from '../../support/platform/blob-store-suite.js';

/** s3rver's built-in credentials. */
const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/** An s3rver on 127.0.0.1 with its objects in a temp folder; `bucket()` makes a fresh bucket. */
async function startS3rver() {
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'saola-s3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory });
  const { port } = await server.run();
  // s3rver deletes the keys of one batch delete in parallel and then races
  // itself removing the folders they emptied (a 500). S3 has no folders; run
  // the stand-in's deletes one at a time.
  const files = (server as unknown as { store: { deleteObject(bucket: string, key: string): Promise<void> } }).store;
  const deleteObject = files.deleteObject.bind(files);
  let deleting: Promise<unknown> = Promise.resolve();
  files.deleteObject = (bucket, key) => {
    const next = deleting.then(() => deleteObject(bucket, key));
    deleting = next.catch(() => undefined);
    return next;
  };
  /** Method and URL of every request, for tests that check which S3 calls were made. */
  const requests: string[] = [];
  server.httpServer.on('request', (request: { method?: string; url?: string }) => requests.push(`${request.method} ${request.url}`));
  const endpoint = `http://127.0.0.1:${port}`;
  const admin = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: CREDENTIALS });
  const stores: S3BlobStore[] = [];
  return {
    endpoint,
    admin,
    requests,
    async bucket(): Promise<string> {
      const name = `saola-${randomUUID().slice(0, 8)}`;
      await admin.send(new CreateBucketCommand({ Bucket: name }));
      return name;
    },
    async store(options: Partial<S3BlobStoreOptions> = {}): Promise<S3BlobStore> {
      const store = new S3BlobStore({
        bucket: options.bucket ?? (await this.bucket()),
        endpoint,
        region: 'us-east-1',
        forcePathStyle: true,
        ...CREDENTIALS,
        ...options,
      });
      stores.push(store);
      return store;
    },
    async close() {
      await Promise.all(stores.map((s) => s.close()));
      admin.destroy();
      await server.close();
      await fs.rm(directory, { recursive: true, force: true });
    },
  };
}

let s3: Awaited<ReturnType<typeof startS3rver>>;
before(async () => {
  s3 = await startS3rver();
});
after(async () => {
  await s3?.close();
});

// Small parts and pages so multipart uploads and paged listings are exercised.
blobStoreSuite({
  name: 'S3BlobStore on s3rver',
  open: () => s3.store({ partSize: 64 * 1024, pageSize: 4 }),
  atomicOverwrite: false,
});

blobStoreSuite({
  name: 'S3BlobStore on s3rver, default part and page sizes',
  open: () => s3.store(),
  atomicOverwrite: false,
});

describe('S3BlobStore specifics', () => {
  test('a stream longer than a part is uploaded in parts, a short one in one PUT', async () => {
    const store = await s3.store({ partSize: 64 * 1024 });
    const long = Buffer.alloc(200 * 1024, 7);
    async function* pieces(buffer: Buffer) {
      for (let i = 0; i < buffer.length; i += 10_000) yield buffer.subarray(i, i + 10_000);
    }
    const path = `/${store.bucket}/tts/app1/multi.mp3`;
    const mark = s3.requests.length;
    assert.equal((await store.put('tts/app1/multi.mp3', Readable.from(pieces(long)))).size, long.length);
    const calls = s3.requests.slice(mark).filter((r) => r.includes(path));
    assert.equal(calls.filter((r) => r.startsWith('POST') && r.includes('uploads')).length, 1, calls.join('\n'));
    assert.equal(calls.filter((r) => r.startsWith('PUT') && r.includes('partNumber=')).length, 4, calls.join('\n'));
    assert.equal(calls.filter((r) => r.startsWith('POST') && r.includes('uploadId=')).length, 1, calls.join('\n'));
    const head = await s3.admin.send(new HeadObjectCommand({ Bucket: store.bucket, Key: 'tts/app1/multi.mp3' }));
    assert.equal(head.ContentType, 'audio/mpeg');
    assert.equal(head.ContentLength, long.length);
    assert.deepEqual(await readAll(await store.read('tts/app1/multi.mp3')), long);

    const before = s3.requests.length;
    await store.put('tts/app1/single.mp3', Readable.from(pieces(Buffer.alloc(1000, 3))));
    const single = s3.requests.slice(before).filter((r) => r.includes('/single.mp3'));
    assert.equal(single.length, 1, single.join('\n'));
    assert.match(single[0], /^PUT /);
  });

  test('a failed multipart upload is aborted', async () => {
    const store = await s3.store({ partSize: 64 * 1024 });
    async function* failing() {
      for (let i = 0; i < 20; i++) yield Buffer.alloc(10_000, 1);
      throw new Error('source died');
    }
    const mark = s3.requests.length;
    await assert.rejects(store.put('tts/app1/aborted.mp3', Readable.from(failing())), /source died/);
    const calls = s3.requests.slice(mark).filter((r) => r.includes('/aborted.mp3'));
    assert.ok(
      calls.some((r) => r.startsWith('DELETE') && r.includes('uploadId=')),
      calls.join('\n'),
    );
    assert.equal(await store.stat('tts/app1/aborted.mp3'), undefined);
  });

  test('meta.contentType is stored as the object Content-Type', async () => {
    const store = await s3.store();
    await store.put('exports/app1/data.bin', Buffer.from('x'), { contentType: 'application/x-saola' });
    assert.equal((await store.stat('exports/app1/data.bin'))?.contentType, 'application/x-saola');
    await store.put('tts/app1/a.ogg', Buffer.from('x'));
    assert.equal((await store.stat('tts/app1/a.ogg'))?.contentType, 'audio/ogg', 'the extension decides otherwise');
  });

  test('a missing bucket is an error, not a missing blob', async () => {
    const store = await s3.store({ bucket: 'no-such-bucket' });
    await assert.rejects(store.check());
    await assert.rejects(store.put('a.txt', Buffer.from('x')), (e: Error) => e.name === 'NoSuchBucket');
    await assert.rejects(store.read('a.txt'), (e: Error) => e.name === 'NoSuchBucket');
    await assert.rejects(store.deleteOlderThan('', new Date()), (e: Error) => e.name === 'NoSuchBucket');
  });

  test('options are checked', () => {
    assert.throws(() => new S3BlobStore({ bucket: '', region: 'us-east-1' }), TypeError);
    assert.throws(() => new S3BlobStore({ bucket: 'b', region: 'us-east-1', accessKeyId: 'x' }), TypeError);
    assert.throws(() => new S3BlobStore({ bucket: 'b', region: 'us-east-1', pageSize: 1001 }), TypeError);
    assert.equal(new S3BlobStore({ bucket: 'b', region: 'r', endpoint: 'http://s3.local' }).describe(), 's3://b at http://s3.local');
  });
});

describe('sendBlob from S3', () => {
  let app: FastifyInstance;
  let base: string;
  const key = 'tts/app1/served.mp3';

  before(async () => {
    const store = await s3.store();
    await store.put(key, AUDIO);
    app = Fastify();
    app.get('/files/*', async (request, reply) => {
      const sent = await sendBlob(request, reply, store, (request.params as { '*': string })['*'], 'audio/mpeg');
      if (!sent) return reply.code(404).send({ error: 'no such file' });
      return reply;
    });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
  });

  after(() => app?.close());

  test('whole, ranged, past the end, conditional, missing', async () => {
    const whole = await fetch(`${base}/files/${key}`);
    assert.equal(whole.status, 200);
    assert.deepEqual(Buffer.from(await whole.arrayBuffer()), AUDIO);
    const etag = whole.headers.get('etag')!;

    const part = await fetch(`${base}/files/${key}`, { headers: { range: 'bytes=-3' } });
    assert.equal(part.status, 206);
    assert.equal(part.headers.get('content-range'), `bytes 997-999/${AUDIO.length}`);
    assert.deepEqual(Buffer.from(await part.arrayBuffer()), AUDIO.subarray(997));

    const past = await fetch(`${base}/files/${key}`, { headers: { range: 'bytes=1000-' } });
    assert.equal(past.status, 416);
    await past.arrayBuffer();

    const cached = await fetch(`${base}/files/${key}`, { headers: { 'if-none-match': etag } });
    assert.equal(cached.status, 304);

    const missing = await fetch(`${base}/files/tts/app1/missing.mp3`);
    assert.equal(missing.status, 404);
    await missing.arrayBuffer();
  });
});

describe('S3 settings', () => {
  test('a bucket switches blobs to S3; the rest is validated', () => {
    assert.equal(loadConfig({}).s3, undefined);
    const config = loadConfig({
      SAOLA_S3_BUCKET: 'saola-blobs',
      SAOLA_S3_ENDPOINT: 'http://127.0.0.1:9000/',
      SAOLA_S3_ACCESS_KEY_ID: 'id',
      SAOLA_S3_SECRET_ACCESS_KEY: 'secret',
      SAOLA_S3_FORCE_PATH_STYLE: 'true',
    });
    assert.deepEqual(config.s3, {
      bucket: 'saola-blobs',
      endpoint: 'http://127.0.0.1:9000',
      region: 'us-east-1',
      accessKeyId: 'id',
      secretAccessKey: 'secret',
      forcePathStyle: true,
    });
    assert.equal(loadConfig({ SAOLA_S3_BUCKET: 'bkt' }).s3?.forcePathStyle, false);
    assert.equal(loadConfig({ SAOLA_S3_BUCKET: 'bkt', SAOLA_S3_REGION: 'ap-southeast-1' }).s3?.region, 'ap-southeast-1');
    const refused: Record<string, string>[] = [
      { SAOLA_S3_BUCKET: 'bkt', SAOLA_S3_ENDPOINT: 'ftp://x' },
      { SAOLA_S3_BUCKET: 'bkt', SAOLA_S3_ACCESS_KEY_ID: 'id' },
      { SAOLA_S3_BUCKET: 'bkt', SAOLA_S3_SECRET_ACCESS_KEY: 'secret' },
      { SAOLA_S3_BUCKET: 'bkt', SAOLA_S3_FORCE_PATH_STYLE: 'sometimes' },
      { SAOLA_S3_BUCKET: 'Not_A_Bucket' },
      { SAOLA_S3_ENDPOINT: 'http://127.0.0.1:9000' },
    ];
    for (const env of refused) {
      assert.throws(
        () => loadConfig(env),
        (e: unknown) => e instanceof ConfigError && /SAOLA_S3_/.test(e.message),
        JSON.stringify(env),
      );
    }
  });

  test('the server stores blobs in S3 and says so in /readyz', async () => {
    const bucket = await s3.bucket();
    const t = await startTestApp({
      env: {
        SAOLA_S3_BUCKET: bucket,
        SAOLA_S3_ENDPOINT: s3.endpoint,
        SAOLA_S3_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
        SAOLA_S3_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
        SAOLA_S3_FORCE_PATH_STYLE: 'true',
        SAOLA_RUN_WORKERS: 'false',
      },
    });
    try {
      assert.ok(t.deps.blobs instanceof S3BlobStore);
      await t.deps.blobs.put('tts/app1/through-the-platform.mp3', AUDIO);
      const head = await s3.admin.send(new HeadObjectCommand({ Bucket: bucket, Key: 'tts/app1/through-the-platform.mp3' }));
      assert.equal(head.ContentLength, AUDIO.length);
      const ready = await (await fetch(`${t.url}/readyz`)).json();
      assert.deepEqual(ready.checks.blobs, { ok: true, engine: `s3://${bucket} at ${s3.endpoint}` });
    } finally {
      await t.close();
    }
  });
});
