import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CollectionIndex, FaceIndexCache, type CollectionKey } from '../../../src/face/search/index-cache.js';
import { BlobIndexSnapshots } from '../../../src/face/search/snapshot.js';
import { FsBlobStore } from '../../../src/platform/blobs/fs-store.js';
import { FakeCollection, KEY } from '../../support/face/index-helpers.js';

function unit(seed: number): Float32Array {
  const v = new Float32Array(512);
  let s = seed;
  let n = 0;
  for (let i = 0; i < 512; i++) {
    s = (s * 1664525 + 1013904223) >>> 0;
    v[i] = s / 2 ** 32 - 0.5;
    n += v[i] * v[i];
  }
  return v.map((x) => x / Math.sqrt(n));
}

/** One "process": its own cache over the shared blob store, with the snapshot rejections it saw. */
function processOn(blobs: FsBlobStore, options: { tag?: string; snapshotFrom?: number } = {}) {
  const rejected: string[] = [];
  const snapshots = new BlobIndexSnapshots(blobs, options.tag ?? 'model-1', (_key, reason) => rejected.push(reason));
  const errors: unknown[] = [];
  const cache = new FaceIndexCache({ snapshots, snapshotFrom: options.snapshotFrom ?? 10, pageSize: 1000, onError: (e) => errors.push(e) });
  return { cache, snapshots, rejected, errors };
}

describe('face index snapshots in the blob store', () => {
  let dir: string;
  let blobs: FsBlobStore;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-face-snap-'));
    blobs = new FsBlobStore(dir);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a load from the store writes a snapshot; another process starts from it and reads only the faces added after it', async () => {
    const store = new FakeCollection();
    // More than 4096 faces, so the index has sign codes and the snapshot carries them.
    for (let i = 0; i < 5000; i++) store.add(`u${i}`, unit(i + 1));
    const a = processOn(blobs);
    const first = await a.cache.get(KEY, store.version, store.loader);
    await a.cache.idle();
    assert.deepEqual(a.errors, []);
    const file = path.join(dir, a.snapshots.key(KEY));
    assert.ok(fs.existsSync(file), 'snapshot written');
    assert.ok(fs.statSync(file).size > 5000 * 512 * 4);

    store.add('late', unit(777_777));
    store.pages.length = 0;
    const b = processOn(blobs);
    const restored = await b.cache.get(KEY, store.version, store.loader);
    assert.deepEqual(b.rejected, []);
    assert.deepEqual(store.pages, [5000], 'only the faces after the snapshot come from the store');
    assert.equal(restored.count, 5001);
    assert.ok(restored['codes'], 'sign codes restored');
    for (const seed of [1, 2500, 5000]) assert.deepEqual(restored.search(unit(seed), 1), first.search(unit(seed), 1));
    assert.equal(restored.search(unit(777_777), 1)[0].owner, 'late');
    assert.equal(restored.search(unit(2500), 1)[0].owner, 'u2499');
    // The restored codes are the codes a fresh build computes: both answer alike for near queries.
    const fresh = new CollectionIndex(512, 16, 'usearch');
    for (const f of store.faces) fresh.add(f.owner, f.embedding);
    for (const seed of [3, 333, 4444]) assert.deepEqual(restored.search(unit(seed), 2, 0.2), fresh.search(unit(seed), 2, 0.2));
  });

  it('a delete (another epoch) makes the snapshot stale: ignored, the store read, a fresh snapshot written at the new epoch', async () => {
    const key: CollectionKey = { appCode: 'app1', collectionId: 'coll-epoch' };
    const store = new FakeCollection();
    for (let i = 0; i < 20; i++) store.add(`u${i}`, unit(i + 1));
    const a = processOn(blobs);
    await a.cache.get(key, store.version, store.loader);
    await a.cache.idle();
    store.remove('u3');
    store.pages.length = 0;
    const b = processOn(blobs);
    const index = await b.cache.get(key, store.version, store.loader);
    assert.equal(b.rejected.length, 1);
    assert.match(b.rejected[0], /stale/);
    assert.deepEqual(store.pages, [0]);
    assert.equal(index.count, 19);
    assert.ok(index.search(unit(4), 1)[0].cosine < 0.5, 'the deleted face is not in the index');
    await b.cache.idle();
    store.pages.length = 0;
    const c = processOn(blobs);
    assert.equal((await c.cache.get(key, store.version, store.loader)).count, 19);
    assert.deepEqual(c.rejected, []);
    assert.deepEqual(store.pages, [], 'the new snapshot is used: nothing read from the store');
  });

  it('a corrupt or truncated snapshot is ignored and replaced', async () => {
    const key: CollectionKey = { appCode: 'app1', collectionId: 'coll-corrupt' };
    const store = new FakeCollection();
    for (let i = 0; i < 30; i++) store.add(`u${i}`, unit(i + 100));
    const a = processOn(blobs);
    await a.cache.get(key, store.version, store.loader);
    await a.cache.idle();
    const file = path.join(dir, a.snapshots.key(key));
    const good = fs.readFileSync(file);

    const flipped = Buffer.from(good);
    flipped[good.length - 500] ^= 0x40; // inside the rows
    fs.writeFileSync(file, flipped);
    const b = processOn(blobs);
    store.pages.length = 0;
    const index = await b.cache.get(key, store.version, store.loader);
    assert.deepEqual(b.rejected, ['checksum does not match']);
    assert.deepEqual(store.pages, [0]);
    assert.equal(index.search(unit(129), 1)[0].owner, 'u29');
    await b.cache.idle();
    assert.ok(fs.readFileSync(file).equals(good), 'rewritten from the store: the same bytes as the first snapshot');

    fs.writeFileSync(file, good.subarray(0, good.length - 1000));
    const c = processOn(blobs);
    await c.cache.get(key, store.version, store.loader);
    assert.equal(c.rejected.length, 1);
    assert.match(c.rejected[0], /bytes where the header says/);

    fs.writeFileSync(file, Buffer.from('not a snapshot at all, just some text long enough to hold a header and a trailer'));
    const d = processOn(blobs);
    await d.cache.get(key, store.version, store.loader);
    assert.deepEqual(d.rejected, ['not a face index snapshot']);
  });

  it("tenancy: one application's snapshot is never used for another's, even under its key; another model's rows are not used", async () => {
    const mine: CollectionKey = { appCode: 'appA', collectionId: 'coll-shared-id' };
    const theirs: CollectionKey = { appCode: 'appB', collectionId: 'coll-shared-id' };
    const store = new FakeCollection();
    for (let i = 0; i < 12; i++) store.add(`a${i}`, unit(i + 500));
    const a = processOn(blobs);
    await a.cache.get(mine, store.version, store.loader);
    await a.cache.idle();
    assert.notEqual(a.snapshots.key(mine), a.snapshots.key(theirs));
    // Someone copies A's blob to B's key: B's process refuses it by the header.
    const target = path.join(dir, a.snapshots.key(theirs));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(path.join(dir, a.snapshots.key(mine)), target);
    const other = new FakeCollection();
    other.add('b0', unit(9999));
    for (let i = 1; i < 12; i++) other.add(`b${i}`, unit(i + 9999));
    const b = processOn(blobs);
    const index = await b.cache.get(theirs, other.version, other.loader);
    assert.deepEqual(b.rejected, ['written for another application or collection']);
    assert.equal(index.search(unit(500), 1)[0]?.owner === 'a0', false);
    assert.equal(index.search(unit(9999), 1)[0].owner, 'b0');

    const m = processOn(blobs, { tag: 'model-2' });
    store.pages.length = 0;
    await m.cache.get(mine, store.version, store.loader);
    assert.deepEqual(m.rejected, ['rows of model model-1, expected model-2']);
    assert.deepEqual(store.pages, [0]);
  });

  it('a snapshot ahead of the store (restored from an older backup) is ignored; small collections get none; a dropped collection loses it', async () => {
    const key: CollectionKey = { appCode: 'app1', collectionId: 'coll-ahead' };
    const store = new FakeCollection();
    for (let i = 0; i < 15; i++) store.add(`u${i}`, unit(i + 1));
    const a = processOn(blobs);
    await a.cache.get(key, store.version, store.loader);
    await a.cache.idle();
    const b = processOn(blobs);
    await b.cache.get(key, { epoch: 0, seq: 10 }, async (after, limit) => store.faces.filter((f) => f.seq > after && f.seq <= 10).slice(0, limit));
    assert.equal(b.rejected.length, 1);
    assert.match(b.rejected[0], /does not fit the store's seq 10/);

    await a.cache.dropped(key);
    assert.equal(fs.existsSync(path.join(dir, a.snapshots.key(key))), false);

    const small: CollectionKey = { appCode: 'app1', collectionId: 'coll-small' };
    const s = processOn(blobs, { snapshotFrom: 100 });
    await s.cache.get(small, store.version, store.loader);
    await s.cache.idle();
    assert.equal(fs.existsSync(path.join(dir, s.snapshots.key(small))), false);
  });

  it('adds while a snapshot is being written (the index grows and moves) leave the snapshot whole', async () => {
    const key: CollectionKey = { appCode: 'app1', collectionId: 'coll-growing' };
    const store = new FakeCollection();
    for (let i = 0; i < 5000; i++) store.add(`u${i}`, unit(i + 1));
    const a = processOn(blobs);
    const index = await a.cache.get(key, store.version, store.loader);
    // The write has started in the background; these adds pass the room left (an eighth) and regrow rows and codes.
    for (let i = 5000; i < 7000; i++) await a.cache.added(key, `u${i}`, unit(i + 1), store.add(`u${i}`, unit(i + 1)));
    assert.equal(index.count, 7000);
    await a.cache.idle();
    assert.deepEqual(a.errors, []);
    store.pages.length = 0;
    const b = processOn(blobs);
    const restored = await b.cache.get(key, store.version, store.loader);
    assert.deepEqual(b.rejected, []);
    assert.deepEqual(store.pages, [5000, 6000], 'the snapshot holds the 5000 faces there were when it started (then two pages of 1000)');
    assert.equal(restored.count, 7000);
    for (const seed of [1, 4999, 5001, 7000]) assert.equal(restored.search(unit(seed), 1)[0].owner, `u${seed - 1}`);
  });

  it('a catch-up that appended many faces since the snapshot writes a new one', async () => {
    const key: CollectionKey = { appCode: 'app1', collectionId: 'coll-resnap' };
    const store = new FakeCollection();
    for (let i = 0; i < 20; i++) store.add(`u${i}`, unit(i + 1));
    const a = processOn(blobs);
    await a.cache.get(key, store.version, store.loader);
    await a.cache.idle();
    for (let i = 20; i < 1020; i++) store.add(`u${i}`, unit(i + 1));
    await a.cache.get(key, store.version, store.loader);
    await a.cache.idle();
    store.pages.length = 0;
    const b = processOn(blobs);
    assert.equal((await b.cache.get(key, store.version, store.loader)).count, 1020);
    assert.deepEqual(store.pages, [], 'the second snapshot holds all 1020');
  });
});
