import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify, { type FastifyInstance } from 'fastify';
import { FsBlobStore, contentTypeOf } from '../../../src/platform/blobs/fs-store.js';
import { sendBlob } from '../../../src/platform/blobs/http.js';
import { BlobKeyError, validateBlobKey } from '../../../src/platform/blobs/store.js';
import { AUDIO, BAD_KEYS, blobStoreSuite } from '../../support/platform/blob-store-suite.js';

/** Every file under `dir`, relative, with forward slashes. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) =>
      path
        .relative(dir, path.join(e.parentPath ?? e.path, e.name))
        .split(path.sep)
        .join('/'),
    )
    .sort();
}

async function tempDir(): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), 'saola-blobs-'));
}

const roots: string[] = [];
after(async () => {
  await Promise.all(roots.map((root) => fs.rm(root, { recursive: true, force: true })));
});

blobStoreSuite({
  name: 'FsBlobStore',
  async open() {
    const root = await tempDir();
    roots.push(root);
    return new FsBlobStore(path.join(root, 'blobs'));
  },
  atomicOverwrite: true,
});

describe('FsBlobStore on disk', () => {
  let root: string;
  let store: FsBlobStore;

  before(async () => {
    root = await tempDir();
    store = new FsBlobStore(path.join(root, 'blobs'));
  });

  after(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  test('bad keys write nothing, inside or outside the store', async () => {
    for (const key of BAD_KEYS) {
      assert.throws(() => validateBlobKey(key), BlobKeyError, JSON.stringify(key.slice(0, 40)));
      await assert.rejects(store.put(key, Buffer.from('x')), BlobKeyError);
    }
    for (const key of ['a', 'tts/app1/0190-abc.mp3', 'A-Z_0.9/x-y.z']) assert.equal(validateBlobKey(key), key);
    assert.deepEqual(await fs.readdir(root), [], 'nothing was written');
  });

  test('a key is a file path under the root, typed by its extension', async () => {
    await store.put('tts/app1/voice.mp3', AUDIO);
    assert.deepEqual(await fs.readFile(path.join(store.root, 'tts', 'app1', 'voice.mp3')), AUDIO);
    assert.equal(contentTypeOf('tts/app1/voice.mp3'), 'audio/mpeg');
    assert.equal(contentTypeOf('x/report.CSV'), 'text/csv; charset=utf-8');
    assert.equal(contentTypeOf('x/blob.unknown'), undefined);
    await store.put('x/typed.bin', Buffer.from('x'), { contentType: 'application/x-ignored' });
    assert.equal((await store.stat('x/typed.bin'))?.contentType, undefined, 'no sidecar metadata on disk');
  });

  test('deleteOlderThan also removes temp files of long-dead puts, and only those', async () => {
    const dir = await tempDir();
    try {
      const retained = new FsBlobStore(dir);
      const old = ['tts/app1/old.mp3', 'other/old.mp3'];
      for (const key of [...old, 'tts/app1/new.mp3']) await retained.put(key, Buffer.from(key));
      const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000);
      for (const key of old) await fs.utimes(path.join(dir, key), twoDaysAgo, twoDaysAgo);
      // Left by a put that crashed long ago, and one a put is writing now.
      await fs.writeFile(path.join(dir, 'tts/app1/.tmp-crashed.mp3-1'), 'partial');
      await fs.utimes(path.join(dir, 'tts/app1/.tmp-crashed.mp3-1'), twoDaysAgo, twoDaysAgo);
      await fs.writeFile(path.join(dir, 'tts/app1/.tmp-writing.mp3-2'), 'partial');

      const oneDayAgo = new Date(Date.now() - 86_400_000);
      assert.equal(await retained.deleteOlderThan('tts/', oneDayAgo), 1, 'temp files are not counted');
      assert.deepEqual(await filesUnder(dir), ['other/old.mp3', 'tts/app1/.tmp-writing.mp3-2', 'tts/app1/new.mp3']);
      assert.equal(await retained.deleteOlderThan('', oneDayAgo), 1);
      assert.deepEqual(await filesUnder(dir), ['tts/app1/.tmp-writing.mp3-2', 'tts/app1/new.mp3']);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  test('failed and concurrent puts leave no temp files', async () => {
    const key = 'tts/app1/atomic.mp3';
    async function* failing() {
      yield Buffer.alloc(4096, 1);
      throw new Error('upstream connection reset');
    }
    await assert.rejects(store.put(key, Readable.from(failing())), /reset/);
    await assert.rejects(store.put('tts/app1/never.mp3', Readable.from(failing())), /reset/);
    const contended = (fill: number) =>
      Readable.from(
        (async function* () {
          for (let i = 0; i < 8; i++) {
            yield Buffer.alloc(16 * 1024, fill);
            await new Promise((resolve) => setImmediate(resolve));
          }
        })(),
      );
    await Promise.all(Array.from({ length: 6 }, (_, i) => store.put(key, contended(i + 1))));
    const files = await filesUnder(path.join(store.root, 'tts/app1'));
    assert.deepEqual(
      files.filter((f) => f.startsWith('.')),
      [],
      'temp files left behind',
    );
    assert.ok(files.includes('atomic.mp3'));
    assert.ok(!files.includes('never.mp3'));
  });
});

describe('sendBlob over HTTP', () => {
  let root: string;
  let store: FsBlobStore;
  let app: FastifyInstance;
  let base: string;
  const key = 'tts/app1/served.mp3';

  before(async () => {
    root = await tempDir();
    store = new FsBlobStore(root);
    await store.put(key, AUDIO);
    app = Fastify();
    app.get('/files/*', async (request, reply) => {
      const blobKey = (request.params as { '*': string })['*'];
      const sent = await sendBlob(request, reply, store, blobKey, contentTypeOf(blobKey) ?? 'application/octet-stream');
      if (!sent) return reply.code(404).send({ error: 'no such file' });
      return reply;
    });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
  });

  after(async () => {
    await app?.close();
    await fs.rm(root, { recursive: true, force: true });
  });

  const get = (headers: Record<string, string> = {}, method = 'GET', file = key) => fetch(`${base}/files/${file}`, { method, headers });

  test('200 with the whole blob and its headers', async () => {
    const response = await get();
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'audio/mpeg');
    assert.equal(response.headers.get('content-length'), String(AUDIO.length));
    assert.equal(response.headers.get('accept-ranges'), 'bytes');
    assert.match(response.headers.get('etag') ?? '', /^"[0-9a-f]+-[0-9a-f]+"$/);
    assert.equal(response.headers.get('last-modified'), (await store.stat(key))?.modified.toUTCString());
    assert.deepEqual(Buffer.from(await response.arrayBuffer()), AUDIO);
  });

  test('206 for bytes=a-b, a- and -n', async () => {
    const cases: Array<[string, number, number]> = [
      ['bytes=2-5', 2, 5],
      ['bytes=990-', 990, 999],
      ['bytes=-3', 997, 999],
      ['bytes=0-999999', 0, 999],
      ['bytes=-5000', 0, 999],
    ];
    for (const [range, start, end] of cases) {
      const response = await get({ range });
      assert.equal(response.status, 206, range);
      assert.equal(response.headers.get('content-range'), `bytes ${start}-${end}/${AUDIO.length}`, range);
      assert.equal(response.headers.get('content-length'), String(end - start + 1), range);
      assert.deepEqual(Buffer.from(await response.arrayBuffer()), AUDIO.subarray(start, end + 1), range);
    }
  });

  test('416 with the size for a range past the end', async () => {
    for (const range of ['bytes=1000-', 'bytes=5000-6000', 'bytes=-0']) {
      const response = await get({ range });
      assert.equal(response.status, 416, range);
      assert.equal(response.headers.get('content-range'), `bytes */${AUDIO.length}`, range);
      await response.arrayBuffer();
    }
  });

  test('ranges it does not serve get the whole blob', async () => {
    for (const range of ['bytes=5-2', 'items=0-1', 'bytes=0-1,5-6']) {
      const response = await get({ range });
      assert.equal(response.status, 200, range);
      assert.equal((await response.arrayBuffer()).byteLength, AUDIO.length, range);
    }
    const stale = await get({ range: 'bytes=0-1', 'if-range': '"an-old-version"' });
    assert.equal(stale.status, 200);
    assert.equal((await stale.arrayBuffer()).byteLength, AUDIO.length);
  });

  test('HEAD has the headers and length but no body', async () => {
    const whole = await get({}, 'HEAD');
    assert.equal(whole.status, 200);
    assert.equal(whole.headers.get('content-length'), String(AUDIO.length));
    assert.equal(whole.headers.get('content-type'), 'audio/mpeg');
    assert.equal((await whole.arrayBuffer()).byteLength, 0);

    const part = await get({ range: 'bytes=10-19' }, 'HEAD');
    assert.equal(part.status, 206);
    assert.equal(part.headers.get('content-length'), '10');
    assert.equal(part.headers.get('content-range'), `bytes 10-19/${AUDIO.length}`);
  });

  test('304 for a matching If-None-Match, and If-Range with the current tag honours the range', async () => {
    const etag = (await get({}, 'HEAD')).headers.get('etag')!;
    const cached = await get({ 'if-none-match': etag });
    assert.equal(cached.status, 304);
    assert.equal((await cached.arrayBuffer()).byteLength, 0);
    const resumed = await get({ range: 'bytes=0-1', 'if-range': etag });
    assert.equal(resumed.status, 206);
    assert.deepEqual(Buffer.from(await resumed.arrayBuffer()), AUDIO.subarray(0, 2));
  });

  test('a missing blob is left to the caller (404 here)', async () => {
    const response = await get({}, 'GET', 'tts/app1/missing.mp3');
    assert.equal(response.status, 404);
    assert.deepEqual(await response.json(), { error: 'no such file' });
  });
});
