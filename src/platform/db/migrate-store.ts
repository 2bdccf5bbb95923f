import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sql, type Kysely, type Migration } from 'kysely';
import { FsBlobStore, contentTypeOf } from '../blobs/fs-store.js';
import { S3BlobStore } from '../blobs/s3-store.js';
import type { BlobStore } from '../blobs/store.js';
import { CommandUsageError, type Command } from '../cli.js';
import { loadConfig, sqliteFile } from '../config.js';
import { migrateToLatest, openStore, type Store } from './database.js';

/**
 * `saola migrate-store`: copies an embedded installation (the SQLite file and
 * the blob folder) to the server engines, then proves the copy.
 *
 * Every table the source holds is copied (not a fixed list: a service's new
 * table moves with no change here), parents before children (SQLite's foreign
 * keys give the order), in pages read by primary key and inserted with
 * ON CONFLICT DO NOTHING. So the copy is resumable: run it again after an
 * interruption and the rows already there are skipped. Then each table is
 * verified by its row count and a checksum that does not depend on row order
 * (PostgreSQL sorts text by its collation, SQLite by bytes): the SHA-256 of
 * the sorted SHA-256s of every row's canonical JSON. A target row that differs
 * from the source (the target was in use) fails the check; nothing in the
 * target is overwritten.
 *
 * Blobs are walked on disk, put in the target store unless one of the same
 * size is there already (resumable), and each is verified by reading it back
 * and comparing its SHA-256 with the file's.
 */

export interface TableReport {
  table: string;
  sourceRows: number;
  /** Rows this run inserted (0 on a rerun after a finished copy). */
  inserted: number;
  targetRows: number;
  sourceChecksum: string;
  targetChecksum: string;
  ok: boolean;
}

export interface BlobReport {
  files: number;
  bytes: number;
  /** Blobs this run put (the rest were there already with the same size). */
  copied: number;
  /** Keys whose read-back SHA-256 differs from the file's. */
  mismatched: string[];
  ok: boolean;
}

/** Kysely's own bookkeeping: the target's migrator writes its own. */
const SKIPPED_TABLES = new Set(['kysely_migration', 'kysely_migration_lock']);
/** PostgreSQL allows 65535 bind parameters per statement. */
const MAX_PARAMETERS = 30_000;
const MAX_PAGE_ROWS = 1000;

interface TableShape {
  name: string;
  columns: string[];
  primaryKey: string[];
  parents: string[];
}

type Row = Record<string, unknown>;

/** The source's tables with their columns, primary key and foreign-key parents, from SQLite's catalogue. */
async function sqliteTables(db: Kysely<any>): Promise<TableShape[]> {
  const { rows } = await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name`.execute(db);
  const tables: TableShape[] = [];
  for (const { name } of rows) {
    if (SKIPPED_TABLES.has(name)) continue;
    const info = await sql<{ name: string; pk: number }>`select name, pk from pragma_table_info(${name})`.execute(db);
    const keys = await sql<{ table: string }>`select "table" from pragma_foreign_key_list(${name})`.execute(db);
    const primaryKey = info.rows
      .filter((c) => c.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((c) => c.name);
    if (primaryKey.length === 0) throw new Error(`table ${name} has no primary key: it cannot be copied resumably`);
    tables.push({
      name,
      columns: info.rows.map((c) => c.name),
      primaryKey,
      parents: [...new Set(keys.rows.map((k) => k.table))].filter((t) => t !== name),
    });
  }
  return parentsFirst(tables);
}

function parentsFirst(tables: TableShape[]): TableShape[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const ordered: TableShape[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (table: TableShape) => {
    if (state.get(table.name) === 'done') return;
    if (state.get(table.name) === 'visiting') throw new Error(`foreign keys form a cycle through ${table.name}`);
    state.set(table.name, 'visiting');
    for (const parent of table.parents) {
      const shape = byName.get(parent);
      if (shape) visit(shape);
    }
    state.set(table.name, 'done');
    ordered.push(table);
  };
  for (const table of tables) visit(table);
  return ordered;
}

async function postgresColumns(db: Kysely<any>, table: string): Promise<string[]> {
  const { rows } = await sql<{ column_name: string }>`
    select column_name from information_schema.columns
    where table_schema = current_schema() and table_name = ${table}`.execute(db);
  return rows.map((r) => r.column_name);
}

/** Reads a table in primary-key order, one page at a time (keyset pagination: no OFFSET scans). */
async function* pages(db: Kysely<any>, table: TableShape, pageRows: number): AsyncGenerator<Row[]> {
  const key = sql.join(table.primaryKey.map((c) => sql.ref(c)));
  let after: unknown[] | undefined;
  for (;;) {
    const where = after === undefined ? sql`` : sql`where (${key}) > (${sql.join(after.map((v) => sql`${v}`))})`;
    const { rows } = await sql<Row>`select * from ${sql.table(table.name)} ${where} order by ${key} limit ${pageRows}`.execute(db);
    if (rows.length === 0) return;
    yield rows;
    if (rows.length < pageRows) return;
    const last = rows[rows.length - 1];
    after = table.primaryKey.map((c) => last[c]);
  }
}

/** A row as the same text on both engines: columns in the source's order, numbers as numbers, bytes as hex. */
function canonical(row: Row, columns: string[]): string {
  return JSON.stringify(
    columns.map((c) => {
      const value = row[c];
      if (value === null || value === undefined) return null;
      if (Buffer.isBuffer(value) || value instanceof Uint8Array) return `hex:${Buffer.from(value).toString('hex')}`;
      if (typeof value === 'bigint') return Number(value);
      return value;
    }),
  );
}

async function tableChecksum(db: Kysely<any>, table: TableShape, pageRows: number): Promise<{ rows: number; checksum: string }> {
  const digests: string[] = [];
  for await (const rows of pages(db, table, pageRows)) {
    for (const row of rows) digests.push(createHash('sha256').update(canonical(row, table.columns)).digest('hex'));
  }
  digests.sort();
  const all = createHash('sha256');
  for (const d of digests) all.update(d);
  return { rows: digests.length, checksum: all.digest('hex') };
}

async function countRows(db: Kysely<any>, table: string): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)}`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

/**
 * Copies every table of `source` (SQLite) into `target` (PostgreSQL, migrated
 * to the same schema first) and verifies each. `onTable` is told as each table
 * finishes.
 */
export async function copyTables(source: Store, target: Store, opts: { onTable?: (report: TableReport) => void } = {}): Promise<TableReport[]> {
  if (source.dialect !== 'sqlite') throw new Error('the source must be the embedded SQLite store');
  if (target.dialect !== 'postgres') throw new Error('the target must be PostgreSQL');
  const src = source.db as unknown as Kysely<any>;
  const dst = target.db as unknown as Kysely<any>;
  const reports: TableReport[] = [];
  for (const table of await sqliteTables(src)) {
    const targetColumns = new Set(await postgresColumns(dst, table.name));
    const missing = table.columns.filter((c) => !targetColumns.has(c));
    if (missing.length > 0) {
      throw new Error(`the target's table ${table.name} lacks ${missing.join(', ')}: are both at the same Saola version?`);
    }
    const pageRows = Math.max(1, Math.min(MAX_PAGE_ROWS, Math.floor(MAX_PARAMETERS / table.columns.length)));
    let inserted = 0;
    const sourceRows = await countRows(src, table.name);
    // A finished table is only verified on a rerun.
    if ((await countRows(dst, table.name)) < sourceRows) {
      for await (const rows of pages(src, table, pageRows)) {
        const result = await dst
          .insertInto(table.name)
          .values(rows)
          .onConflict((oc) => oc.doNothing())
          .executeTakeFirst();
        inserted += Number(result.numInsertedOrUpdatedRows ?? 0n);
      }
    }
    const [from, to] = await Promise.all([tableChecksum(src, table, pageRows), tableChecksum(dst, table, pageRows)]);
    const report: TableReport = {
      table: table.name,
      sourceRows: from.rows,
      inserted,
      targetRows: to.rows,
      sourceChecksum: from.checksum,
      targetChecksum: to.checksum,
      ok: from.rows === to.rows && from.checksum === to.checksum,
    };
    opts.onTable?.(report);
    reports.push(report);
  }
  return reports;
}

/** Every blob key under an FsBlobStore's root (its temp files, which start with a dot, are not blobs). */
export async function fsBlobKeys(root: string): Promise<string[]> {
  const keys: string[] = [];
  const walk = async (folder: string, prefix: string) => {
    let entries;
    try {
      entries = await fs.readdir(folder, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const key = prefix + entry.name;
      if (entry.isDirectory()) await walk(path.join(folder, entry.name), `${key}/`);
      else if (entry.isFile()) keys.push(key);
    }
  };
  await walk(root, '');
  return keys.sort();
}

async function sha256Of(stream: NodeJS.ReadableStream): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of stream) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Copies the blob folder into `target` (skipping blobs already there with the same size) and verifies each by SHA-256. */
export async function copyBlobs(source: FsBlobStore, target: BlobStore): Promise<BlobReport> {
  const report: BlobReport = { files: 0, bytes: 0, copied: 0, mismatched: [], ok: true };
  for (const key of await fsBlobKeys(source.root)) {
    const file = path.join(source.root, ...key.split('/'));
    const { size } = await fs.stat(file);
    report.files += 1;
    report.bytes += size;
    const expected = await sha256Of(createReadStream(file));
    const there = await target.stat(key);
    let copied = false;
    if (there?.size !== size) {
      await target.put(key, createReadStream(file), { contentType: contentTypeOf(key) });
      copied = true;
    }
    let actual = await sha256Of(await target.read(key));
    if (actual !== expected && !copied) {
      // Same size, other bytes: an older or foreign object; the source wins.
      await target.put(key, createReadStream(file), { contentType: contentTypeOf(key) });
      copied = true;
      actual = await sha256Of(await target.read(key));
    }
    if (copied) report.copied += 1;
    if (actual !== expected) report.mismatched.push(key);
  }
  report.ok = report.mismatched.length === 0;
  return report;
}

const USAGE = `Usage: saola migrate-store --to postgres://USER@HOST/DB [--blobs s3://BUCKET] [--json]

Copies this installation's embedded store (SAOLA_DATA_DIR: the SQLite file and
the blob folder) to PostgreSQL and, with --blobs, to an S3 bucket (endpoint,
region and keys from SAOLA_S3_ENDPOINT, SAOLA_S3_REGION, SAOLA_S3_ACCESS_KEY_ID,
SAOLA_S3_SECRET_ACCESS_KEY, SAOLA_S3_FORCE_PATH_STYLE). Stop the server first.
The target schema is migrated; rows and blobs already there are kept, so an
interrupted run is simply run again. Every table is verified by row count and
checksum, every blob by SHA-256; exit code 1 when anything differs.`;

/** The CLI command; `migrations` is the whole schema, handed down by the composition root. */
export const migrateStoreCommand: Command = async (ctx) => {
  let values;
  try {
    ({ values } = parseArgs({
      args: ctx.args,
      options: {
        to: { type: 'string' },
        blobs: { type: 'string' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (error) {
    throw new CommandUsageError(`${(error as Error).message}\n\n${USAGE}`);
  }
  if (values.help) {
    ctx.stdout(USAGE + '\n');
    return 0;
  }
  const to = values.to?.trim();
  if (!to || !/^postgres(ql)?:\/\//.test(to)) throw new CommandUsageError(`--to postgres://... is required\n\n${USAGE}`);
  const sourceFile = sqliteFile(ctx.config.databaseUrl);
  if (sourceFile === undefined || sourceFile === ':memory:') {
    throw new CommandUsageError('SAOLA_DATABASE_URL already points at a server database: migrate-store copies the embedded SQLite store');
  }
  let blobTarget: S3BlobStore | undefined;
  if (values.blobs !== undefined) {
    const match = /^s3:\/\/([^/]+)\/?$/.exec(values.blobs.trim());
    if (!match) throw new CommandUsageError(`--blobs must be s3://BUCKET, got "${values.blobs}"`);
    // The bucket from the flag, everything else from the same settings `serve` reads.
    const s3 = loadConfig({ ...process.env, SAOLA_S3_BUCKET: match[1] }).s3;
    if (!s3) throw new CommandUsageError('--blobs needs an S3 bucket');
    blobTarget = new S3BlobStore(s3);
  }
  try {
    await fs.access(sourceFile);
  } catch {
    throw new CommandUsageError(`no embedded store at ${sourceFile} (set SAOLA_DATA_DIR)`);
  }

  const result = await migrateStore({
    sourceUrl: ctx.config.databaseUrl,
    blobRoot: path.join(ctx.config.dataDir, 'blobs'),
    targetUrl: to,
    blobTarget,
    migrations: ctx.migrations,
    onTable: values.json
      ? undefined
      : (t) => ctx.stdout(`${t.ok ? 'ok      ' : 'DIFFERS '} ${t.table}: ${t.sourceRows} rows, ${t.inserted} copied now, ${t.targetRows} in the target\n`),
  });
  const ok = result.tables.every((t) => t.ok) && (result.blobs?.ok ?? true);
  if (values.json) {
    ctx.stdout(JSON.stringify({ ok, ...result }) + '\n');
  } else {
    const { blobs } = result;
    ctx.stdout(
      blobs
        ? `${blobs.ok ? 'ok      ' : 'DIFFERS '} blobs: ${blobs.files} files, ${blobs.bytes} bytes, ${blobs.copied} copied now${blobs.mismatched.length ? `; differ: ${blobs.mismatched.slice(0, 10).join(', ')}` : ''}\n`
        : `blobs were not copied (no --blobs): they stay in ${path.join(ctx.config.dataDir, 'blobs')}\n`,
    );
    if (result.unfinishedJobs > 0) {
      ctx.stdout(
        `${result.unfinishedJobs} jobs were queued or running: they were copied to the PostgreSQL jobs table; ` +
          'with SAOLA_REDIS_URL set they will not run (let them finish on the embedded store first)\n',
      );
    }
    ctx.stdout(ok ? 'The copy is complete and verified.\n' : 'The copy differs from the source (see above): run again, or empty the target.\n');
  }
  return ok ? 0 : 1;
};

export interface MigrateStoreResult {
  tables: TableReport[];
  blobs: BlobReport | undefined;
  /** Jobs still queued or running in the source's SQL queue. */
  unfinishedJobs: number;
}

/** The whole move: schema on the target, every table, the blobs when a target store is given. */
export async function migrateStore(opts: {
  sourceUrl: string;
  blobRoot: string;
  targetUrl: string;
  blobTarget?: BlobStore & { close?(): Promise<void> | void };
  migrations: Readonly<Record<string, Migration>>;
  onTable?: (report: TableReport) => void;
}): Promise<MigrateStoreResult> {
  const source = openStore(opts.sourceUrl);
  const target = openStore(opts.targetUrl);
  try {
    // Both at the newest schema, so their tables have the same columns.
    await migrateToLatest(source, opts.migrations);
    await migrateToLatest(target, opts.migrations);
    const tables = await copyTables(source, target, { onTable: opts.onTable });
    const blobs = opts.blobTarget ? await copyBlobs(new FsBlobStore(opts.blobRoot), opts.blobTarget) : undefined;
    const unfinished = await source.db
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('status', 'in', ['queued', 'running'])
      .executeTakeFirst();
    return { tables, blobs, unfinishedJobs: Number(unfinished?.n ?? 0) };
  } finally {
    await Promise.all([source.close(), target.close(), opts.blobTarget?.close?.()]);
  }
}
