import os from 'node:os';
import path from 'node:path';

/** Every setting Saola reads, parsed and validated in one place. */
export interface Config {
  host: string;
  port: number;
  /** Base of every link the server hands out (no trailing slash). */
  publicUrl: string;
  dataDir: string;
  /** `sqlite:<file>` for the embedded store, or a postgres:// URL. */
  databaseUrl: string;
  logLevel: string;
  /** Worker threads for CPU-heavy engines; defaults to the core count. */
  poolThreads: number;
  /** Tasks that may wait for a worker before callers get "busy". */
  poolQueue: number;
  /** Milliseconds a task may wait plus run before it is abandoned. */
  poolTaskTimeoutMs: number;
  /** Default JSON body limit in bytes (routes may set their own). */
  jsonBodyLimit: number;
  /** Seconds an auth lookup is cached in memory. */
  authCacheSeconds: number;
  /** Whether this process runs the job workers (saola serve does by default). */
  runWorkers: boolean;
  /** When set, the job queue is BullMQ on this Redis instead of the SQL table. */
  redisUrl: string | undefined;
  /** Prefix of every Redis key the job queue writes (several deployments can share one Redis). */
  redisPrefix: string;
  /** When set, blobs go to this S3 bucket instead of `<dataDir>/blobs`. */
  s3: S3Config | undefined;
}

export interface S3Config {
  bucket: string;
  /** An S3-compatible server; AWS when absent. */
  endpoint: string | undefined;
  region: string;
  /** Both or neither: without them the AWS SDK's default chain (env, profile, instance role) applies. */
  accessKeyId: string | undefined;
  secretAccessKey: string | undefined;
  forcePathStyle: boolean;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function url(name: string, raw: string, protocols: string[]): string {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL: "${raw}"`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
  }
  return raw;
}

function text(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw ? raw : undefined;
}

/** S3's bucket naming rules (lowercase, 3-63 characters, no leading or trailing dot or hyphen). */
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const REGION_NAME = /^[a-z0-9-]{1,64}$/;
const REDIS_PREFIX = /^[A-Za-z0-9_.-]{1,64}$/;

function s3Config(env: Env): S3Config | undefined {
  const bucket = text(env, 'SAOLA_S3_BUCKET');
  const endpoint = text(env, 'SAOLA_S3_ENDPOINT');
  const accessKeyId = text(env, 'SAOLA_S3_ACCESS_KEY_ID');
  const secretAccessKey = text(env, 'SAOLA_S3_SECRET_ACCESS_KEY');
  if (bucket === undefined) {
    const stray = ['SAOLA_S3_ENDPOINT', 'SAOLA_S3_ACCESS_KEY_ID', 'SAOLA_S3_SECRET_ACCESS_KEY'].find((name) => text(env, name));
    if (stray) throw new ConfigError(`${stray} is set but SAOLA_S3_BUCKET is not: set the bucket to store blobs in S3`);
    return undefined;
  }
  if (!BUCKET_NAME.test(bucket)) {
    throw new ConfigError(`SAOLA_S3_BUCKET must be an S3 bucket name (3-63 of a-z 0-9 . -), got "${bucket}"`);
  }
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    throw new ConfigError('SAOLA_S3_ACCESS_KEY_ID and SAOLA_S3_SECRET_ACCESS_KEY must be set together');
  }
  const region = text(env, 'SAOLA_S3_REGION') ?? 'us-east-1';
  if (!REGION_NAME.test(region)) throw new ConfigError(`SAOLA_S3_REGION must be a region name like us-east-1, got "${region}"`);
  return {
    bucket,
    endpoint: endpoint === undefined ? undefined : url('SAOLA_S3_ENDPOINT', endpoint, ['http:', 'https:']).replace(/\/+$/, ''),
    region,
    accessKeyId,
    secretAccessKey,
    forcePathStyle: bool(env, 'SAOLA_S3_FORCE_PATH_STYLE', false),
  };
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(env: Env = process.env): Config {
  const host = env.SAOLA_HOST?.trim() || '0.0.0.0';
  const port = integer(env, 'SAOLA_PORT', 8000, 0, 65535);
  const dataDir = path.resolve(env.SAOLA_DATA_DIR?.trim() || './data');
  const linkHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const publicUrl = (
    env.SAOLA_PUBLIC_URL?.trim()
      ? url('SAOLA_PUBLIC_URL', env.SAOLA_PUBLIC_URL.trim(), ['http:', 'https:'])
      : `http://${linkHost}:${port}`
  ).replace(/\/+$/, '');
  const databaseUrl = env.SAOLA_DATABASE_URL?.trim()
    ? url('SAOLA_DATABASE_URL', env.SAOLA_DATABASE_URL.trim(), ['postgres:', 'postgresql:', 'sqlite:'])
    : `sqlite:${path.join(dataDir, 'saola.db')}`;
  const logLevel = env.SAOLA_LOG_LEVEL?.trim() || 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`SAOLA_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }
  const redisUrl = text(env, 'SAOLA_REDIS_URL');
  const redisPrefix = text(env, 'SAOLA_REDIS_PREFIX') ?? 'saola';
  if (!REDIS_PREFIX.test(redisPrefix)) {
    throw new ConfigError(`SAOLA_REDIS_PREFIX may only hold 1-64 of A-Z a-z 0-9 _ . -, got "${redisPrefix}"`);
  }
  const cores = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  return {
    host,
    port,
    publicUrl,
    dataDir,
    databaseUrl,
    logLevel,
    poolThreads: integer(env, 'SAOLA_POOL_THREADS', Math.max(1, cores), 1, 256),
    poolQueue: integer(env, 'SAOLA_POOL_QUEUE', 64, 0, 100_000),
    poolTaskTimeoutMs: integer(env, 'SAOLA_POOL_TIMEOUT_MS', 60_000, 100, 3_600_000),
    jsonBodyLimit: integer(env, 'SAOLA_JSON_BODY_LIMIT', 1024 * 1024, 1024, 512 * 1024 * 1024),
    authCacheSeconds: integer(env, 'SAOLA_AUTH_CACHE_SECONDS', 5, 0, 3600),
    runWorkers: bool(env, 'SAOLA_RUN_WORKERS', true),
    redisUrl: redisUrl === undefined ? undefined : url('SAOLA_REDIS_URL', redisUrl, ['redis:', 'rediss:']),
    redisPrefix,
    s3: s3Config(env),
  };
}

/** The file of an embedded `sqlite:` database URL, or undefined for a server database. */
export function sqliteFile(databaseUrl: string): string | undefined {
  if (!databaseUrl.startsWith('sqlite:')) return undefined;
  const file = databaseUrl.slice('sqlite:'.length).replace(/^\/\//, '');
  return file === ':memory:' ? file : path.resolve(file);
}
