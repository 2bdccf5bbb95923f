/**
 * Crash safety, the harness of crash-embedded.test.ts and crash-postgres.test.ts: the real `saola serve` runs as
 * a child process while writers create NLU samples, entities and sample links, face users with a face, and
 * TTS requests (jobs), while `saola credit import` runs beside it on the same store; the server is killed with
 * SIGKILL at a random moment, started again on the same data, and killed again, a few rounds. The imports
 * take turns in three fates: killed with SIGKILL at a random moment (mostly while the CLI starts), killed once
 * they have staged rows (mid-import, or during the commit), and run to the end; the imports go on after the
 * last round until each fate has come at least once. Then every write the server acknowledged must be there,
 * every accepted TTS job must have finished exactly once (one job per request, done, its audio served), and no
 * partial record may stay (a request nobody will ever finish, a link to a missing sample, an import with only
 * some of its rows). Found: a kill between a TTS request's row and its job left a request "queued" forever; the
 * TTS sweep now removes such rows after a minute.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { seededRandom } from '../../../src/platform/random.js';
import { createTestDatabase, type TestDatabase } from '../../../fixtures/servers/postgres.js';
import { runSaola, spawnSaola, startSaola, type SaolaProcess } from '../../../fixtures/servers/saola-process.js';
import { sleep } from '../wait.js';

const grace = fs.readFileSync(new URL('../../fixtures/face/grace_hopper.jpg', import.meta.url));

interface Acked {
  samples: Map<string, string>;
  entities: Set<string>;
  links: Map<string, string>;
  faces: Set<string>;
  tts: Set<string>;
  /** Credit imports the CLI reported done (exit code and JSON report), and how many were killed. */
  imports: { id: string; file: string; inserted: number; duplicates: number }[];
  importsKilled: number;
}

/**
 * Credit import files: `IMPORT_FILES` files of `OWN_ROWS` rows of their own plus `SHARED_ROWS` rows
 * every file holds (so imports overlap), each row with an event_id, so the stored keys can be checked
 * against the files exactly.
 */
const IMPORT_FILES = 4;
const OWN_ROWS = 6000;
const SHARED_ROWS = 2000;
function writeImportFiles(dir: string): Map<string, string[]> {
  const files = new Map<string, string[]>();
  const row = (id: string, n: number) => `0912${String(n).padStart(6, '0')},topup,${1_700_000_000 + n},${10_000 + (n % 7) * 1000},,${id}\n`;
  for (let f = 0; f < IMPORT_FILES; f++) {
    const ids: string[] = [];
    let text = 'phone,event_type,occurred_at,amount,days_late,event_id\n';
    for (let i = 0; i < OWN_ROWS; i++) {
      ids.push(`f${f}-${i}`);
      text += row(`f${f}-${i}`, f * OWN_ROWS + i);
    }
    for (let i = 0; i < SHARED_ROWS; i++) {
      ids.push(`s-${i}`);
      text += row(`s-${i}`, 900_000 + i);
    }
    const file = path.join(dir, `events-${f}.csv`);
    fs.writeFileSync(file, text);
    files.set(file, ids);
  }
  return files;
}

/**
 * A hang detector for a server's start: a restart on what a kill left, beside credit imports starting and
 * committing, has taken over two minutes on a 2-core machine loaded by other suites.
 */
const READY_TIMEOUT_MS = 300_000;

/** How an import of the harness ends, in turn: killed at a random moment, killed once it has staged rows, or run to its end. */
const FATES = ['killed at a random moment', 'killed once staged', 'run to the end'] as const;

/**
 * Runs `saola credit import` on the files in turn until the rounds are over and each fate has come once,
 * killing some imports with SIGKILL (the CLI writes to the store directly, so the server's kill does not stop
 * it).
 */
async function importUntilStopped(
  env: Record<string, string>,
  appCode: string,
  files: string[],
  random: () => number,
  acked: Acked,
  roundsOver: () => boolean,
  stagedRows: () => Promise<number>,
  failed: () => boolean,
) {
  let ended = 0;
  // A failed round stops the imports at once (else they would go on until the file's time-out).
  const stopped = () => failed() || (roundsOver() && ended >= FATES.length);
  for (let i = 0; !stopped(); i++, ended++) {
    const file = files[Math.floor(random() * files.length)];
    const before = await stagedRows();
    const child = spawnSaola(['credit', 'import', 'alpha', file, '--app', appCode, '--json'], { env: { ...env, SAOLA_LOG_LEVEL: 'warn' } });
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr!.on('data', () => undefined);
    let killed = false;
    const kill = () => {
      if (child.exitCode === null && !killed) {
        killed = true;
        child.kill('SIGKILL');
      }
    };
    // Killed at a random moment (mostly while the CLI starts), once it has staged rows (mid-import, or during
    // the commit), or run to the end unless the imports are over first.
    const fate = FATES[i % FATES.length];
    const timer = fate === 'killed at a random moment' ? setTimeout(kill, 500 + random() * 6000) : undefined;
    if (fate === 'killed once staged') {
      const extra = random() * 300;
      void (async () => {
        while (child.exitCode === null && !killed) {
          if ((await stagedRows().catch(() => before)) > before) {
            await sleep(extra);
            return kill();
          }
          await sleep(20);
        }
      })();
    }
    const poll = setInterval(() => stopped() && kill(), 50);
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    clearTimeout(timer);
    clearInterval(poll);
    if (code === 0) {
      const report = JSON.parse(out) as { import_id: string; inserted: number; duplicates: number; rejected: number };
      assert.equal(report.rejected, 0);
      acked.imports.push({ id: report.import_id, file, inserted: report.inserted, duplicates: report.duplicates });
    } else if (killed) {
      acked.importsKilled++;
    } else {
      // Another failure (e.g. the store busy past its timeout while the server was being killed): not acknowledged.
      await sleep(100);
    }
  }
}

/**
 * How long before the earliest moment of a round's kill (the kill comes later still: after the round's first
 * face, then at a random moment of the next 2 s) the writers start. What a kill needs is a write of each kind in
 * flight when it comes, and each writer keeps one in flight from its start to the kill; writing through the
 * whole round instead (6-12 s) only made more of the same writes, each costing CPU that grows with the
 * machine's speed (a face inference each, a TTS synthesis each: two programs run, and the check waits for all).
 */
const WRITE_LEAD_MS = 2000;

/**
 * The server's TTS backlog (SAOLA_TTS_MAX_BACKLOG; 200 by default). Requests come far faster than two syntheses
 * at a time finish (36 a second against 4 measured on a loaded 2-core machine), so 20 are waiting a moment after
 * the writer starts, and from then on a request is accepted as a synthesis ends: the kill finds accepted and
 * refused requests in flight, as it does once the default backlog is full, and every accepted request costs a
 * synthesis (up to 200 a round with the default) that the check waits for.
 */
const TTS_BACKLOG = 20;

/**
 * Writes until the server dies, from `from` (a Date.now() time) on, but for one face added at once (the first
 * loads the face models, and the kill waits for a face of the round); records what the server acknowledged.
 */
async function writeUntilKilled(s: SaolaProcess, creds: { api_key: string; token: string }, round: number, acked: Acked, stopped: () => boolean, from: number) {
  const waitForWindow = () => sleep(Math.max(0, from - Date.now()));
  const bearer = { authorization: `Bearer ${creds.token}`, 'content-type': 'application/json' };
  const post = async (p: string, headers: Record<string, string>, body: BodyInit) => {
    const res = await fetch(s.url + p, { method: 'POST', headers, body });
    return { status: res.status, body: (await res.json()) as any };
  };
  const writers = [
    async () => {
      await waitForWindow();
      for (let i = 0; !stopped(); i++) {
        const content = `mẫu ${round}-${i}`;
        const r = await post('/api/v3/sample', bearer, JSON.stringify({ content }));
        if (r.status === 200) acked.samples.set(r.body.code, content);
        const label = `e_${round}_${i}`;
        const e = await post('/api/v3/entity', bearer, JSON.stringify({ label, description: 'x', type: 1 }));
        if (e.status === 200) acked.entities.add(label);
        if (r.status === 200 && e.status === 200) {
          const l = await post('/api/v3/entity-sample', bearer, JSON.stringify({ entity_code: e.body.code, sample_code: r.body.code, value: 'mẫu', start: 0, end: 3 }));
          if (l.status === 200) acked.links.set(l.body.entity_sample_code, r.body.code);
        }
      }
    },
    async () => {
      for (let i = 0; !stopped(); i++) {
        const form = new FormData();
        form.append('collection', 'crash');
        form.append('id', `u${round}-${i}`);
        form.append('file', new Blob([new Uint8Array(grace)], { type: 'image/jpeg' }), 'g.jpg');
        const r = await post('/dmp/facesearch/v2/add', { api_key: creds.api_key }, form);
        if (r.body.code === '200') acked.faces.add(`u${round}-${i}`);
        if (i === 0) await waitForWindow();
      }
    },
    async () => {
      await waitForWindow();
      for (let i = 0; !stopped(); i++) {
        const r = await post('/hmi/tts/v5', { api_key: creds.api_key }, `Câu số ${round} ${i}.`);
        if (r.status === 200 && r.body.error === 0) acked.tts.add(r.body.request_id);
        // Refused while the backlog is full (TTS_BACKLOG): asked again shortly, not in a loop as fast as refusals come.
        else await sleep(20);
      }
    },
  ];
  await Promise.all(writers.map((w) => w().catch(() => undefined)));
}

async function verify(
  s: SaolaProcess,
  creds: { api_key: string; token: string },
  acked: Acked,
  sqlCount: (query: string) => Promise<number>,
  sqlRows: (query: string) => Promise<unknown[]>,
) {
  const bearer = { authorization: `Bearer ${creds.token}` };
  const get = async (p: string, headers: Record<string, string>) => {
    const res = await fetch(s.url + p, { headers });
    return { status: res.status, body: (await res.json()) as any };
  };
  const samples = (await get('/api/v3/sample', bearer)).body as { code: string; content: string }[];
  const byCode = new Map(samples.map((x) => [x.code, x.content]));
  for (const [code, content] of acked.samples) assert.equal(byCode.get(code), content, `acknowledged sample ${code} lost`);
  for (const x of samples) assert.match(x.content, /^mẫu \d+-\d+$/, 'no partial sample');
  const entities = new Set(((await get('/api/v3/entity', bearer)).body as { label: string }[]).map((e) => e.label));
  for (const label of acked.entities) assert.ok(entities.has(label), `acknowledged entity ${label} lost`);
  assert.equal(
    await sqlCount('select count(*) as n from nlu_entity_samples es left join nlu_samples s on s.code = es.sample_code where s.code is null'),
    0,
    'a link to a missing sample',
  );
  for (const [link, sample] of acked.links) {
    assert.equal(
      await sqlCount(`select count(*) as n from nlu_entity_samples where code = '${link}' and sample_code = '${sample}'`),
      1,
      `acknowledged link ${link} lost`,
    );
  }
  const faces = new Set(((await get('/dmp/facesearch/v2/list?collection=crash', { api_key: creds.api_key })).body.data as { id: string }[]).map((u) => u.id));
  for (const id of acked.faces) assert.ok(faces.has(id), `acknowledged face user ${id} lost`);
  assert.equal(
    await sqlCount('select count(*) as n from face_users u left join face_embeddings e on e.user_row_id = u.id where e.id is null'),
    0,
    'a face user without its face',
  );
  // Every TTS request, acknowledged or not, must finish: none may be left without a job.
  const deadline = Date.now() + 240_000;
  let unfinished = 0;
  do {
    unfinished = await sqlCount('select count(*) as n from tts_requests where ready_time is null and failed_time is null');
    if (unfinished > 0) await sleep(1000);
  } while (unfinished > 0 && Date.now() < deadline);
  if (unfinished > 0) {
    const ids = (await sqlRows('select id, job_id from tts_requests where ready_time is null and failed_time is null')) as { id: string; job_id: string | null }[];
    const states = [];
    for (const r of ids) states.push({ ...r, acknowledged: acked.tts.has(r.id), status: (await get(`/hmi/tts/v5/status/${r.id}`, { api_key: creds.api_key })).body });
    assert.fail(`${unfinished} TTS requests never finish: ${JSON.stringify(states)}`);
  }
  for (const id of acked.tts) {
    const st = await get(`/hmi/tts/v5/status/${id}`, { api_key: creds.api_key });
    assert.equal(st.body.status, 'done', `acknowledged TTS request ${id}: ${JSON.stringify(st.body)}`);
    // The link names the public URL of the server that accepted it (an earlier port here).
    const audio = await fetch(s.url + new URL(st.body.async).pathname);
    assert.equal(audio.status, 200);
    await audio.arrayBuffer();
  }
  assert.equal(await sqlCount('select count(*) as n from tts_requests where failed_time is not null'), 0, 'failed TTS requests');
  // Exactly once: one job per request id (the SQL queue's table; BullMQ's ids are derived from the key).
  assert.equal(
    await sqlCount('select count(*) as n from (select job_key from jobs where job_key is not null group by queue, app_code, job_key having count(*) > 1) d'),
    0,
    'a request with two jobs',
  );
}

/**
 * Credit imports: each one is all there or not there at all. Every acknowledged import is recorded with
 * the count it reported, every recorded import has exactly its rows, no row belongs to an unrecorded
 * import, and the stored keys are exactly the rows of the files of the recorded imports.
 */
async function verifyImports(acked: Acked, files: Map<string, string[]>, sqlCount: (query: string) => Promise<number>, sqlRows: (query: string) => Promise<unknown[]>) {
  const recorded = (await sqlRows('select id, file_name, inserted, duplicates, rows_total from credit_imports')) as {
    id: string;
    file_name: string;
    inserted: number | string;
    duplicates: number | string;
    rows_total: number | string;
  }[];
  const byId = new Map(recorded.map((r) => [r.id, r]));
  for (const a of acked.imports) {
    const r = byId.get(a.id);
    assert.ok(r, `acknowledged import ${a.id} not recorded`);
    assert.equal(Number(r.inserted), a.inserted, `import ${a.id}: recorded count differs from the acknowledged one`);
  }
  const perImport = new Map(
    ((await sqlRows('select import_id, count(*) as n from credit_alpha_events group by import_id')) as { import_id: string; n: number | string }[]).map((r) => [
      r.import_id,
      Number(r.n),
    ]),
  );
  for (const [id, n] of perImport) {
    const r = byId.get(id);
    assert.ok(r, `${n} events of import ${id}, which was never recorded: a partial import`);
    assert.equal(n, Number(r.inserted), `import ${id} recorded ${r.inserted} new rows but holds ${n}`);
  }
  for (const r of recorded) {
    assert.equal(Number(r.inserted) + Number(r.duplicates), Number(r.rows_total), `import ${r.id}: every row is new or a duplicate`);
    if (Number(r.inserted) > 0) assert.ok(perImport.has(r.id), `recorded import ${r.id} lost its rows`);
  }
  const expected = new Set<string>();
  for (const r of recorded) for (const id of files.get(r.file_name) ?? assert.fail(`import of an unknown file ${r.file_name}`)) expected.add(`id:${id}`);
  const stored = ((await sqlRows('select event_key from credit_alpha_events')) as { event_key: string }[]).map((r) => r.event_key);
  assert.equal(stored.length, new Set(stored).size, 'an event stored twice');
  assert.equal(stored.length, expected.size, `stored ${stored.length} events, the recorded imports' files hold ${expected.size}`);
  for (const k of stored) assert.ok(expected.has(k), `event ${k} belongs to no recorded import`);
  void sqlCount;
}

/**
 * The suite on one engine: `rounds` server kills (SAOLA_CRASH_ROUNDS sets it for both engines), the kill moments
 * seeded by SAOLA_CRASH_SEED.
 */
export function crashSuite(engine: 'embedded' | 'postgres+redis', defaultRounds: number): void {
  const ROUNDS = Number(process.env.SAOLA_CRASH_ROUNDS ?? defaultRounds);
  describe(`crash safety on ${engine}`, () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-crash-'));
    let pg: TestDatabase | undefined;
    let server: SaolaProcess | undefined;
    after(async () => {
      await server?.kill();
      await pg?.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it(`${ROUNDS} rounds of writes killed with SIGKILL at random moments lose no acknowledged write and leave nothing half-done`, async () => {
      if (engine === 'postgres+redis') pg = await createTestDatabase();
      // The TTS sweep (which also removes requests a crash left without a job) every 5 s.
      const env: Record<string, string> = {
        SAOLA_DATA_DIR: dir,
        SAOLA_AUTH_CACHE_SECONDS: '0',
        SAOLA_TTS_SWEEP_SECONDS: '5',
        SAOLA_TTS_MAX_BACKLOG: String(TTS_BACKLOG),
      };
      if (pg) {
        env.SAOLA_DATABASE_URL = pg.url;
        env.SAOLA_REDIS_URL = process.env.SAOLA_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
        env.SAOLA_REDIS_PREFIX = `saola-crash-${process.pid}-${Date.now()}`;
      }
      const cli = async (...args: string[]) => JSON.parse((await runSaola([...args, '--json'], { env })).stdout);
      const creds = await cli('app', 'create', '--name', 'crash');
      const acked: Acked = { samples: new Map(), entities: new Set(), links: new Map(), faces: new Set(), tts: new Set(), imports: [], importsKilled: 0 };
      const files = writeImportFiles(dir);
      const random = seededRandom(Number(process.env.SAOLA_CRASH_SEED ?? 7));
      const importRandom = seededRandom(Number(process.env.SAOLA_CRASH_SEED ?? 7) + 1);
      // The imports run beside every round (the CLI takes seconds to start), until the last round ends.
      let roundsOver = false;
      let failed = false;
      const { openStore } = await import('../../../src/platform/db/database.js');
      const { sql } = await import('kysely');
      const watch = openStore(pg ? pg.url : `sqlite:${path.join(dir, 'saola.db')}`);
      const stagedRows = async () => Number(((await sql.raw('select count(*) as n from credit_import_staging').execute(watch.db)).rows[0] as { n: string | number }).n);
      const importing = importUntilStopped(
        env,
        creds.app_code,
        [...files.keys()],
        importRandom,
        acked,
        () => roundsOver,
        stagedRows,
        () => failed,
      ).finally(() => watch.close());
      /** The rounds: a server started on the data the last kill left, written to, killed. */
      const rounds = async () => {
        for (let round = 0; round < ROUNDS; round++) {
          server = await startSaola({ dataDir: dir, env, readyTimeoutMs: READY_TIMEOUT_MS });
          let killed = false;
          // The first face add loads the face models (seconds), and a credit import's CLI starts in seconds,
          // so rounds last long enough to see some of both.
          const killAfter = 6000 + Math.floor(random() * 6000);
          const before = [acked.faces.size, acked.samples.size, acked.tts.size];
          const eachWrote = () => acked.faces.size > before[0] && acked.samples.size > before[1] && acked.tts.size > before[2];
          const writing = writeUntilKilled(server, creds, round, acked, () => killed, Date.now() + killAfter - WRITE_LEAD_MS);
          await sleep(killAfter);
          // On a busy machine loading the face models can outlast the round: the kill then waits for the round's
          // first face, and for a sample and a TTS request acknowledged in the round (so every writer is writing
          // when it comes; at most three minutes: one minute was too short for either of two rounds on a 2-core
          // machine at a load average of 40), and comes at a random moment in the next 2 s.
          for (let waited = 0; !eachWrote() && waited < 180_000; waited += 100) await sleep(100);
          if (eachWrote()) await sleep(Math.floor(random() * 2000));
          const crashed = server.kill();
          killed = true;
          await crashed;
          await writing;
        }
      };
      try {
        await rounds();
      } catch (err) {
        failed = true;
        await importing.catch(() => undefined);
        throw err;
      }
      roundsOver = true;
      await importing;
      server = await startSaola({ dataDir: dir, env, readyTimeoutMs: READY_TIMEOUT_MS });
      const store = openStore(pg ? pg.url : `sqlite:${path.join(dir, 'saola.db')}`);
      try {
        const sqlCount = async (q: string) => Number(((await sql.raw(q).execute(store.db)).rows[0] as { n: string | number }).n);
        const sqlRows = async (q: string) => (await sql.raw(q).execute(store.db)).rows;
        await verify(server, creds, acked, sqlCount, sqlRows);
        const staged = await sqlCount('select count(*) as n from credit_import_staging');
        await verifyImports(acked, files, sqlCount, sqlRows);
        // One more import after the crashes: it drops what killed imports staged (silent for over a second by now).
        const last = await runSaola(['credit', 'import', 'alpha', [...files.keys()][0], '--app', creds.app_code, '--json'], {
          env: { ...env, SAOLA_CREDIT_IMPORT_ABANDON_SECONDS: '1' },
        });
        const report = JSON.parse(last.stdout) as { import_id: string; inserted: number; duplicates: number };
        acked.imports.push({ id: report.import_id, file: [...files.keys()][0], inserted: report.inserted, duplicates: report.duplicates });
        await verifyImports(acked, files, sqlCount, sqlRows);
        assert.equal(await sqlCount('select count(*) as n from credit_import_staging'), 0, 'staging rows of killed imports left behind');
        console.log(
          `# crash ${engine}: ${acked.importsKilled} credit imports killed (${staged} staged rows of killed imports before the clean-up), ${acked.imports.length - 1} acknowledged before it`,
        );
      } catch (err) {
        (err as Error).message += `\nserver output:\n${server.output().slice(-3000)}`;
        throw err;
      } finally {
        await store.close();
      }
      const total = acked.samples.size + acked.entities.size + acked.links.size + acked.faces.size + acked.tts.size;
      console.log(
        `# crash ${engine}: ${ROUNDS} kills, acknowledged ${acked.samples.size} samples, ${acked.entities.size} entities, ${acked.links.size} links, ${acked.faces.size} face users, ${acked.tts.size} TTS requests (${total} writes), all present`,
      );
      assert.ok(acked.samples.size > 0 && acked.tts.size > 0 && acked.faces.size > 0, 'the writers got writes acknowledged');
      assert.ok(acked.imports.length > 1 && acked.importsKilled > 0, `credit imports: ${acked.imports.length} acknowledged, ${acked.importsKilled} killed`);
    });
  });
}
