/**
 * The behaviour every BlobStore must have, run on each implementation
 * (filesystem in test/api/integration/blobs.test.ts, S3 in blobs-s3.test.ts).
 */
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BlobKeyError, BlobNotFoundError, type BlobStore } from '../../../src/platform/blobs/store.js';
import { sleep } from '../wait.js';

export interface BlobStoreHarness {
  /** Shown in the test names. */
  name: string;
  /** A new, empty store. */
  open(): Promise<BlobStore>;
  /** Called once after every test of the suite. */
  close?(): Promise<void>;
  /**
   * Whether readers racing concurrent overwrites of one key only ever see a
   * whole blob. True for the filesystem store and for S3 itself; false for
   * s3rver, the test stand-in, which writes objects in place.
   */
  atomicOverwrite: boolean;
}

export async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks);
}

export const AUDIO = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));

/** Keys that could climb out of a store or mean different things on different systems. */
export const BAD_KEYS = [
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

/** `count` chunks of `chunkSize` bytes filled with `fill`, yielding to the event loop between them. */
function chunked(count: number, chunkSize: number, fill: (index: number) => number): Readable {
  return Readable.from(
    (async function* () {
      for (let i = 0; i < count; i++) {
        yield Buffer.alloc(chunkSize, fill(i));
        await new Promise((resolve) => setImmediate(resolve));
      }
    })(),
  );
}

/** Yields `bytes` of ones, then fails like a dropped upstream connection. */
function failingAfter(bytes: number): Readable {
  return Readable.from(
    (async function* () {
      for (let sent = 0; sent < bytes; sent += 4096) yield Buffer.alloc(4096, 1);
      throw new Error('upstream connection reset');
    })(),
  );
}

export function blobStoreSuite(harness: BlobStoreHarness): void {
  describe(`BlobStore conformance: ${harness.name}`, () => {
    let store: BlobStore;

    before(async () => {
      store = await harness.open();
    });

    after(async () => {
      await harness.close?.();
    });

    test('put, stat, read, read a range, delete', async () => {
      const key = 'tts/app1/0190a1b2-voice.mp3';
      const started = Date.now();
      assert.deepEqual(await store.put(key, AUDIO), { key, size: AUDIO.length });

      const info = await store.stat(key);
      assert.equal(info?.size, AUDIO.length);
      assert.equal(info?.contentType, 'audio/mpeg');
      // Some stores keep whole seconds.
      assert.ok(info.modified.getTime() >= started - 2000 && info.modified.getTime() <= Date.now() + 1000, `modified ${info.modified.toISOString()}`);

      assert.deepEqual(await readAll(await store.read(key)), AUDIO);
      assert.deepEqual(await readAll(await store.read(key, { start: 10, end: 19 })), AUDIO.subarray(10, 20));
      assert.deepEqual(await readAll(await store.read(key, { start: 0, end: 0 })), AUDIO.subarray(0, 1));
      assert.deepEqual(await readAll(await store.read(key, { start: 990, end: 5000 })), AUDIO.subarray(990));
      assert.deepEqual(await readAll(await store.read(key, { start: 5000, end: 6000 })), Buffer.alloc(0), 'a range past the end is empty');
      await assert.rejects(store.read(key, { start: 5, end: 4 }), RangeError);
      await assert.rejects(store.read(key, { start: -1, end: 4 }), RangeError);

      assert.equal(await store.delete(key), true);
      assert.equal(await store.delete(key), false);
      assert.equal(await store.stat(key), undefined);
      await assert.rejects(store.read(key), BlobNotFoundError);
      await assert.rejects(store.read(key, { start: 0, end: 1 }), BlobNotFoundError);
      assert.equal(await store.stat('tts/never/written.mp3'), undefined);
    });

    test('a folder-like prefix of a key is not a blob', async () => {
      await store.put('folders/app1/a.json', Buffer.from('{}'));
      assert.equal(await store.stat('folders'), undefined);
      assert.equal(await store.stat('folders/app1'), undefined);
      await assert.rejects(store.read('folders/app1'), BlobNotFoundError);
      assert.equal(await store.delete('folders/app1'), false);
      assert.equal((await store.stat('folders/app1/a.json'))?.contentType, 'application/json');
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

      await store.put(key, Readable.from([]));
      assert.equal((await store.stat(key))?.size, 0, 'an empty stream is an empty blob');
      assert.deepEqual(await readAll(await store.read(key)), Buffer.alloc(0));
    });

    test('a long stream is stored whole and reads back in ranges', async () => {
      const key = 'tts/app1/long.wav';
      const chunkSize = 16 * 1024;
      const count = 40; // 640 KiB, more than one upload part where parts are small
      const written = await store.put(
        key,
        chunked(count, chunkSize, (i) => i),
      );
      assert.equal(written.size, count * chunkSize);
      const whole = await readAll(await store.read(key));
      assert.equal(whole.length, count * chunkSize);
      for (let i = 0; i < count; i++) {
        assert.ok(
          whole.subarray(i * chunkSize, (i + 1) * chunkSize).every((b) => b === i),
          `chunk ${i} is wrong`,
        );
      }
      // A range across chunk (and part) boundaries.
      const start = 3 * chunkSize - 5;
      const end = 9 * chunkSize + 7;
      assert.deepEqual(await readAll(await store.read(key, { start, end })), whole.subarray(start, end + 1));
      assert.equal((await store.stat(key))?.size, count * chunkSize);
    });

    test('a put whose source fails midway leaves the previous blob, or none', async () => {
      const key = 'tts/app1/atomic.mp3';
      await store.put(key, AUDIO);
      await assert.rejects(store.put(key, failingAfter(4096)), /upstream connection reset/);
      assert.deepEqual(await readAll(await store.read(key)), AUDIO);
      await assert.rejects(store.put(key, failingAfter(600 * 1024)), /upstream connection reset/);
      assert.deepEqual(await readAll(await store.read(key)), AUDIO, 'a long failed put replaced the blob');
      await assert.rejects(store.put('tts/app1/never.mp3', failingAfter(4096)), /reset/);
      assert.equal(await store.stat('tts/app1/never.mp3'), undefined);
      await assert.rejects(store.put('tts/app1/never-long.mp3', failingAfter(600 * 1024)), /reset/);
      assert.equal(await store.stat('tts/app1/never-long.mp3'), undefined);
    });

    test('rejects keys that could leave the store or are ambiguous', async () => {
      for (const key of BAD_KEYS) {
        const label = JSON.stringify(key.slice(0, 40));
        await assert.rejects(store.put(key, Buffer.from('x')), BlobKeyError, label);
        await assert.rejects(store.put(key, Readable.from([Buffer.from('x')])), BlobKeyError, label);
        await assert.rejects(store.stat(key), BlobKeyError, label);
        await assert.rejects(store.read(key), BlobKeyError, label);
        await assert.rejects(store.delete(key), BlobKeyError, label);
      }
      for (const prefix of ['../', '/abs', 'a//', 'tts/.tmp-']) {
        await assert.rejects(store.deleteOlderThan(prefix, new Date()), BlobKeyError, prefix);
      }
      for (const key of ['a', 'tts/app1/0190-abc.mp3', 'A-Z_0.9/x-y.z']) {
        await store.put(key, Buffer.from(key));
        assert.equal((await readAll(await store.read(key))).toString(), key);
      }
    });

    test('deleteOlderThan removes blobs under a prefix written before the cutoff', async () => {
      const retained = await harness.open();
      const old = ['tts/app1/old.mp3', 'tts/app2/old.mp3', 'other/old.mp3', 'ttsx/old.mp3'];
      for (const key of old) await retained.put(key, Buffer.from(key));
      await sleep(20);
      const cutoff = new Date();
      // Past the next whole second: stores that keep whole seconds still see the new blob as new.
      await sleep(1000 - (cutoff.getTime() % 1000) + 50);
      await retained.put('tts/app1/new.mp3', Buffer.from('new'));

      const present = async () => {
        const keys: string[] = [];
        for (const key of [...old, 'tts/app1/new.mp3']) if (await retained.stat(key)) keys.push(key);
        return keys.sort();
      };
      assert.equal(await retained.deleteOlderThan('tts/app2', cutoff), 1);
      assert.equal(await retained.deleteOlderThan('tts/', cutoff), 1);
      assert.deepEqual(await present(), ['other/old.mp3', 'tts/app1/new.mp3', 'ttsx/old.mp3']);
      assert.equal(await retained.deleteOlderThan('', cutoff), 2);
      assert.deepEqual(await present(), ['tts/app1/new.mp3']);
      assert.equal(await retained.deleteOlderThan('nothing/here/', new Date(Date.now() + 60_000)), 0);
      assert.equal(await retained.deleteOlderThan('tts/app1/new', new Date(Date.now() + 60_000)), 1, 'a whole key is a prefix too');
      assert.deepEqual(await present(), []);
    });

    test('deleteOlderThan goes through many blobs and leaves other prefixes alone', async () => {
      const retained = await harness.open();
      const keys = Array.from({ length: 23 }, (_, i) => `bulk/app${i % 3}/${String(i).padStart(3, '0')}.json`);
      await Promise.all(keys.map((key) => retained.put(key, Buffer.from('{}'))));
      await retained.put('bulk2/keep.json', Buffer.from('{}'));
      await retained.put('bul/keep.json', Buffer.from('{}'));
      const future = new Date(Date.now() + 60_000);
      assert.equal(await retained.deleteOlderThan('bulk/app1/', future), keys.filter((k) => k.startsWith('bulk/app1/')).length);
      assert.equal(await retained.deleteOlderThan('bulk/', future), keys.filter((k) => !k.startsWith('bulk/app1/')).length);
      for (const key of keys) assert.equal(await retained.stat(key), undefined, key);
      assert.ok(await retained.stat('bulk2/keep.json'));
      assert.ok(await retained.stat('bul/keep.json'));
      assert.equal(await retained.deleteOlderThan('bulk/', future), 0);
    });

    test('concurrent puts of one key end with one whole blob', async () => {
      const key = 'tts/app1/contended.mp3';
      const chunks = 16;
      const chunkSize = 16 * 1024;
      const writers = 6;
      // Readers race the writers only where the store promises whole blobs.
      let writing = harness.atomicOverwrite;
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
      let results;
      try {
        results = await Promise.all(
          Array.from({ length: writers }, (_, w) =>
            store.put(
              key,
              chunked(chunks, chunkSize, () => w + 1),
            ),
          ),
        );
      } finally {
        writing = false;
        await reader;
      }
      assert.ok(results.every((r) => r.size === chunks * chunkSize));
      if (harness.atomicOverwrite) {
        const final = await readAll(await store.read(key));
        assert.equal(final.length, chunks * chunkSize);
        assert.ok(final.every((b) => b === final[0]) && final[0] >= 1 && final[0] <= writers, 'final blob mixes writers');
        assert.ok(seen.length > 0, 'the reader never saw the blob');
        for (const blob of seen) {
          assert.equal(blob.length, chunks * chunkSize, 'a reader saw a partial blob');
          assert.ok(
            blob.every((b) => b === blob[0]),
            'a reader saw a mixed blob',
          );
        }
      }
      // Once the writers are done, one more overwrite is seen whole by everyone.
      await store.put(key, AUDIO);
      assert.deepEqual(await readAll(await store.read(key)), AUDIO);
    });
  });
}
