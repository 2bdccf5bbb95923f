/**
 * The face index at scale across processes (issue 16): one collection of N
 * synthetic faces (random unit embeddings, seeded) in PostgreSQL, 2 API
 * processes on it sharing an S3 bucket (s3rver) for index snapshots. Measures
 * per process: resident memory before and after the collection is loaded; the
 * first search on process A (a cold load from PostgreSQL: every embedding
 * read, decoded and indexed), after which A writes a snapshot to S3 (time until
 * it is there); the first search on process B (a cold load from that
 * snapshot); warm searches; the time until a face added on A is found by a
 * search on B (B reads the faces after its seq and appends them); and (up to
 * 200k faces) a delete on A then a search on B (another epoch: B rebuilds
 * from PostgreSQL, the snapshot being stale).
 *
 *   npx tsx bench/face-index-scale.ts [faces=100000]
 *
 * Runs the built dist/ when present (npm run build first).
 */
import fs from 'node:fs';
import type { Kysely } from 'kysely';
import { uuidv7 } from 'uuidv7';
import { migrations } from '../src/services.js';
import { migrateToLatest, openStore } from '../src/platform/db/database.js';
import { encodeEmbedding } from '../src/face/store.js';
import { EMBEDDING_MODEL } from '../src/face/engine/index.js';
import { seededRandom } from '../src/platform/random.js';
import { startTopology } from './support/processes.js';
import { createTestDatabase } from '../fixtures/servers/postgres.js';
import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { S3RVER_CREDENTIALS, startS3rverBucket } from '../fixtures/servers/s3rver.js';

const FACES = Number(process.argv[2] ?? 100_000);
const BATCH = 1000;
const FIXTURES = new URL('../test/fixtures/face/', import.meta.url);

function randomUnit(random: () => number): Float32Array {
  const v = new Float32Array(512);
  let n = 0;
  for (let i = 0; i < 512; i++) {
    // Box-Muller: a normal coordinate, so the direction is uniform on the sphere.
    const x = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    v[i] = x;
    n += x * x;
  }
  n = Math.sqrt(n);
  for (let i = 0; i < 512; i++) v[i] /= n;
  return v;
}

async function search(url: string, apiKey: string, collection: string, photo: Buffer): Promise<{ ms: number; body: any }> {
  const form = new FormData();
  form.append('collection', collection);
  form.append('file', new Blob([new Uint8Array(photo)], { type: 'image/jpeg' }), 'q.jpg');
  const t0 = performance.now();
  const res = await fetch(`${url}/dmp/facesearch/v2/search`, { method: 'POST', headers: { api_key: apiKey }, body: form });
  const body = await res.json();
  return { ms: performance.now() - t0, body };
}

async function add(url: string, apiKey: string, collection: string, id: string, photo: Buffer): Promise<any> {
  const form = new FormData();
  form.append('collection', collection);
  form.append('id', id);
  form.append('file', new Blob([new Uint8Array(photo)], { type: 'image/jpeg' }), 'q.jpg');
  return (await fetch(`${url}/dmp/facesearch/v2/add`, { method: 'POST', headers: { api_key: apiKey }, body: form })).json();
}

const database = await createTestDatabase();
const s3 = await startS3rverBucket();
const report: string[] = [`faces: ${FACES.toLocaleString('en-US')} in one collection, 2 API processes on PostgreSQL, snapshots in S3 (s3rver)`];
try {
  const store = openStore(database.url);
  await migrateToLatest(store, migrations);
  await store.close();
  const t = await startTopology({ apis: 2, workers: 0, env: { SAOLA_DATABASE_URL: database.url, SAOLA_POOL_THREADS: '1', ...s3.env } });
  try {
    const store2 = openStore(database.url);
    // The face tables are the face service's (FaceTables), not the platform's Database type.
    const db = { db: store2.db as unknown as Kysely<any>, close: () => store2.close() };
    const collectionId = uuidv7();
    const now = new Date().toISOString();
    await db.db.insertInto('face_collections').values({ id: collectionId, app_code: t.appCode, name: 'big', created_at: now }).execute();
    const random = seededRandom(20261124);
    const fill0 = performance.now();
    for (let start = 0; start < FACES; start += BATCH) {
      const n = Math.min(BATCH, FACES - start);
      const users = Array.from({ length: n }, (_, i) => ({
        id: uuidv7(),
        app_code: t.appCode,
        collection_id: collectionId,
        user_id: `u${start + i}`,
        name: `User ${start + i}`,
        created_at: now,
        updated_at: now,
      }));
      await db.db.insertInto('face_users').values(users).execute();
      await db.db
        .insertInto('face_embeddings')
        .values(
          users.map((u, i) => ({
            id: uuidv7(),
            app_code: t.appCode,
            collection_id: collectionId,
            user_row_id: u.id,
            embedding: encodeEmbedding(randomUnit(random)),
            model: EMBEDDING_MODEL,
            created_at: now,
            seq: start + i + 1,
          })),
        )
        .execute();
    }
    // As the store's addFace leaves it: the collection's seq is its latest face's.
    await db.db.updateTable('face_collections').set({ faces_seq: FACES }).where('id', '=', collectionId).execute();
    await db.close();
    report.push(`filling PostgreSQL: ${((performance.now() - fill0) / 1000).toFixed(1)} s`);

    const grace = fs.readFileSync(new URL('grace_hopper.jpg', FIXTURES));
    const other = fs.readFileSync(new URL('person-a.jpg', FIXTURES));
    const [a, b] = t.urls;
    const [procA, procB] = t.procs;
    const snapshotKey = `face-index/${t.appCode.replace(/[^A-Za-z0-9_-]/g, '_')}/${collectionId}.idx`;
    const s3client = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: S3RVER_CREDENTIALS });
    const snapshotSize = async () => {
      try {
        return (await s3client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: snapshotKey }))).ContentLength ?? 0;
      } catch {
        return 0;
      }
    };
    for (const [name, url, proc] of [
      ['A', a, procA],
      ['B', b, procB],
    ] as const) {
      // The face models load on the first face request: a tiny collection first, so the big one's timing is its own.
      await add(url, t.apiKey, `tiny-${name}`, 'x', other);
      await search(url, t.apiKey, `tiny-${name}`, other);
      const rssBefore = proc.rssMiB();
      const from = name === 'A' ? 'from PostgreSQL' : 'from the snapshot';
      const cold = await search(url, t.apiKey, 'big', other);
      const coldDone = performance.now();
      const warm = await search(url, t.apiKey, 'big', other);
      const warm2 = await search(url, t.apiKey, 'big', other);
      report.push(
        `process ${name}: RSS ${Math.round(rssBefore)} MiB before the collection, ${Math.round(proc.rssMiB())} MiB after; ` +
          `first search (cold load ${from}) ${Math.round(cold.ms)} ms, warm ${Math.round(Math.min(warm.ms, warm2.ms))} ms (answer ${JSON.stringify(cold.body.code)})`,
      );
      if (name === 'A') {
        while ((await snapshotSize()) === 0) await new Promise((r) => setTimeout(r, 250));
        // Its size from the layout (s3rver's HEAD reports a multipart object's length wrongly): float32 rows and 128-byte sign codes.
        report.push(
          `snapshot in S3 ${Math.round(performance.now() - coldDone)} ms after A's first search answered (about ${((FACES * (512 * 4 + 128)) / 2 ** 20).toFixed(0)} MiB)`,
        );
      }
    }
    const added = await add(a, t.apiKey, 'big', 'grace', grace);
    if (added.code !== '200') throw new Error(`add: ${JSON.stringify(added)}`);
    const onA = await search(a, t.apiKey, 'big', grace);
    const addedAt = performance.now();
    const onB = await search(b, t.apiKey, 'big', grace);
    const seenAfter = performance.now() - addedAt;
    if (onA.body.data?.id !== 'grace' || onB.body.data?.id !== 'grace') throw new Error(`not found: A ${JSON.stringify(onA.body)} B ${JSON.stringify(onB.body)}`);
    report.push(
      `add on A: searchable on A at once (${Math.round(onA.ms)} ms, appended in place); found on B by its next search (which first reads the faces after its seq): ${Math.round(seenAfter)} ms`,
    );
    const again = await search(b, t.apiKey, 'big', grace);
    report.push(`B afterwards: ${Math.round(again.ms)} ms; RSS A ${Math.round(procA.rssMiB())} MiB, B ${Math.round(procB.rssMiB())} MiB`);
    if (FACES <= 200_000) {
      const form = new FormData();
      form.append('collection', 'big');
      form.append('id', 'grace');
      const del = (await (await fetch(`${a}/dmp/facesearch/v2/delete_faces`, { method: 'DELETE', headers: { api_key: t.apiKey }, body: form })).json()) as any;
      if (del.code !== '200') throw new Error(`delete: ${JSON.stringify(del)}`);
      const gone = await search(b, t.apiKey, 'big', grace);
      if (gone.body.code === '200') throw new Error(`deleted face still found on B: ${JSON.stringify(gone.body)}`);
      report.push(`delete on A: B's next search rebuilds from PostgreSQL (the snapshot is stale) and no longer finds it: ${Math.round(gone.ms)} ms`);
    }
    s3client.destroy();
  } finally {
    await t.stop();
  }
} finally {
  await database.drop();
  await s3.close();
}
console.log(report.join('\n'));
