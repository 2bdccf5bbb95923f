import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify, { type FastifyInstance } from 'fastify';
import { FsBlobStore, contentTypeOf } from '../../src/platform/blobs/fs-store.js';
import { sendBlob } from '../../src/platform/blobs/http.js';
import { BlobKeyError, BlobNotFoundError, validateBlobKey } from '../../src/platform/blobs/store.js';

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/** Every file under `dir`, relative, with forward slashes. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath ?? e.path, e.name)).split(path.sep).join('/'))
    .sort();
}

async function tempDir(): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), 'saola-blobs-'));
}

const AUDIO = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));

describe('FsBlobStore', () => {
  let root: string;
  let store: FsBlobStore;

  before(async () => {
    root = await tempDir();
    store = new FsBlobStore(path.join(root, 'blobs'));
  });

  after(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  test('put, stat, read, read a range, delete', async () => {
    const key = 'tts/app1/0190a1b2-voice.mp3';
    const before = Date.now();
    assert.deepEqual(await store.put(key, AUDIO), { key, size: AUDIO.length });

    const info = await store.stat(key);
    assert.equal(info?.size, AUDIO.length);
    assert.equal(info?.contentType, 'audio/mpeg');
    assert.ok(info.modified.getTime() >= before - 1000 && info.modified.getTime() <= Date.now() + 1000);

    assert.deepEqual(await readAll(await store.read(key)), AUDIO);
    assert.deepEqual(await readAll(await store.read(key, { start: 10, end: 19 })), AUDIO.subarray(10, 20));
    assert.deepEqual(await readAll(await store.read(key, { start: 990, end: 5000 })), AUDIO.subarray(990));
    await assert.rejects(store.read(key, { start: 5, end: 4 }), RangeError);

    assert.equal(await store.delete(key), true);
    assert.equal(await store.delete(key), false);
    assert.equal(await store.stat(key), undefined);
    await assert.rejects(store.read(key), BlobNotFoundError);
    assert.equal(await store.stat('tts/never/written.mp3'), undefined);
    assert.equal(await store.stat('tts'), undefined, 'a folder is not a blob');
  });

  test('put from a stream, and overwrite', async () => {
    const key = 'exports/app1/report.csv';
    const lines = Array.from({ length: 500 }, (_, i) => `row,${i}\n`);
    const written = await store.put(key, Readable.from(lines.map((l) => Buffer.from(l))));
    const expected = Buffer.from(lines.join(''));
    assert.equal(written.size, expected.length);
    assert.deepEqual(await readAll(await store.read(key)), expected);
    assert.equal((await store.stat(key))?.contentType, 'text/csv; charset=utf-8');

    await store.put(key, Buffer.from('replaced'));
    assert.equal((await readAll(await store.read(key))).toString(), 'replaced');
    assert.equal((await store.stat(key))?.size, 8);
  });

  test('rejects keys that could leave the store or are ambiguous', async () => {
    const bad = [
      '',
      '/etc/passwd',
      '../outside.mp3',
      'tts/../../outside.mp3',
      'tts/./a.mp3',
      'tts//a.mp3',
      'tts/a/',
      'tts\\a.mp3',
      'tts/a\0.mp3',
      'tts/a b.mp3',
      'tts/ä.mp3',
      'tts/.hidden',
      '.tmp-a.mp3',
      'x'.repeat(2000),
    ];
    for (const key of bad) {
      assert.throws(() => validateBlobKey(key), BlobKeyError, JSON.stringify(key));
      await assert.rejects(store.put(key, Buffer.from('x')), BlobKeyError, JSON.stringify(key));
      await assert.rejects(store.stat(key), BlobKeyError);
      await assert.rejects(store.read(key), BlobKeyError);
      await assert.rejects(store.delete(key), BlobKeyError);
    }
    await assert.rejects(store.deleteOlderThan('../', new Date()), BlobKeyError);
    assert.deepEqual(
      (await fs.readdir(root)).filter((name) => name !== 'blobs'),
      [],
      'nothing was written outside the store',
    );
    for (const key of ['a', 'tts/app1/0190-abc.mp3', 'A-Z_0.9/x-y.z']) assert.equal(validateBlobKey(key), key);
  });

  test('deleteOlderThan removes old blobs under a prefix and stale temp files only', async () => {
    const dir = await tempDir();
    try {
      const retained = new FsBlobStore(dir);
      const old = ['tts/app1/old.mp3', 'tts/app2/old.mp3', 'other/old.mp3', 'ttsx/old.mp3'];
      for (const key of [...old, 'tts/app1/new.mp3']) await retained.put(key, Buffer.from(key));
      const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000);
      for (const key of old) await fs.utimes(path.join(dir, key), twoDaysAgo, twoDaysAgo);
      // Left by a put that crashed long ago, and one a put is writing now.
      await fs.writeFile(path.join(dir, 'tts/app1/.tmp-crashed.mp3-1'), 'partial');
      await fs.utimes(path.join(dir, 'tts/app1/.tmp-crashed.mp3-1'), twoDaysAgo, twoDaysAgo);
      await fs.writeFile(path.join(dir, 'tts/app1/.tmp-writing.mp3-2'), 'partial');

      const oneDayAgo = new Date(Date.now() - 86_400_000);
      assert.equal(await retained.deleteOlderThan('tts/app2', oneDayAgo), 1);
      assert.equal(await retained.deleteOlderThan('tts/', oneDayAgo), 1);
      assert.deepEqual(await filesUnder(dir), [
        'other/old.mp3',
        'tts/app1/.tmp-writing.mp3-2',
        'tts/app1/new.mp3',
        'ttsx/old.mp3',
      ]);
      assert.equal(await retained.deleteOlderThan('', oneDayAgo), 2);
      assert.deepEqual(await filesUnder(dir), ['tts/app1/.tmp-writing.mp3-2', 'tts/app1/new.mp3']);
      assert.equal(await retained.deleteOlderThan('nothing/here/', new Date()), 0);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  test('a put that fails midway leaves the previous blob and no temp file', async () => {
    const key = 'tts/app1/atomic.mp3';
    await store.put(key, AUDIO);
    async function* failing() {
      yield Buffer.alloc(4096, 1);
      throw new Error('upstream connection reset');
    }
    await assert.rejects(store.put(key, Readable.from(failing())), /upstream connection reset/);
    assert.deepEqual(await readAll(await store.read(key)), AUDIO);
    await assert.rejects(store.put('tts/app1/never.mp3', Readable.from(failing())), /reset/);
    assert.equal(await store.stat('tts/app1/never.mp3'), undefined);
    const files = await filesUnder(path.join(store.root, 'tts/app1'));
    assert.deepEqual(files.filter((f) => f.startsWith('.')), []);
  });

  test('concurrent puts of one key end with one whole blob, and readers only see whole blobs', async () => {
    const key = 'tts/app1/contended.mp3';
    const size = 256 * 1024;
    const writers = 8;
    const chunked = (fill: number) =>
      Readable.from(
        (async function* () {
          for (let sent = 0; sent < size; sent += 16 * 1024) {
            yield Buffer.alloc(16 * 1024, fill);
            await new Promise((resolve) => setImmediate(resolve));
          }
        })(),
      );
    let writing = true;
    const seen: Buffer[] = [];
    const reader = (async () => {
      while (writing) {
        try {
          seen.push(await readAll(await store.read(key)));
        } catch (error) {
          if (!(error instanceof BlobNotFoundError)) throw error;
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const results = await Promise.all(Array.from({ length: writers }, (_, i) => store.put(key, chunked(i + 1))));
    writing = false;
    await reader;

    assert.ok(results.every((r) => r.size === size));
    const final = await readAll(await store.read(key));
    assert.equal(final.length, size);
    assert.ok(final.every((b) => b === final[0]) && final[0] >= 1 && final[0] <= writers, 'final blob mixes writers');
    assert.ok(seen.length > 0, 'the reader never saw the blob');
    for (const blob of seen) {
      assert.equal(blob.length, size, 'a reader saw a partial blob');
      assert.ok(blob.every((b) => b === blob[0]), 'a reader saw a mixed blob');
    }
    const files = await filesUnder(path.join(store.root, 'tts/app1'));
    assert.deepEqual(files.filter((f) => f.startsWith('.')), [], 'temp files left behind');
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

  const get = (headers: Record<string, string> = {}, method = 'GET', file = key) =>
    fetch(`${base}/files/${file}`, { method, headers });

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
