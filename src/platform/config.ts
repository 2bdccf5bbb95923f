import { booleanSetting, ConfigError, integerSetting, textSetting, urlSetting, type Env } from './settings.js';
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
  /** A worker thread idle this long is ended, its models' memory with it (ms). */
  poolIdleMs: number;
  /** libvips threads per image operation (0: one per core); process-wide. */
  imageThreads: number;
  /** Longest expected wait for a worker thread before "busy" (ms; 0: only the queue's length bounds it). */
  poolMaxWaitMs: number;
  /** Milliseconds a task may wait plus run before it is abandoned. */
  poolTaskTimeoutMs: number;
  /** Load shedding (src/platform/http/overload.ts): requests of one service answered at once (0: no limit). */
  maxInFlight: number;
  /** Load shedding: smoothed event-loop delay above which requests are refused with 429 (0: off). */
  maxEventLoopDelayMs: number;
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

/** S3's bucket naming rules (lowercase, 3-63 characters, no leading or trailing dot or hyphen). */
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const REGION_NAME = /^[a-z0-9-]{1,64}$/;
const REDIS_PREFIX = /^[A-Za-z0-9_.-]{1,64}$/;

function s3Config(env: Env): S3Config | undefined {
  const bucket = textSetting(env, 'SAOLA_S3_BUCKET');
  const endpoint = textSetting(env, 'SAOLA_S3_ENDPOINT');
  const accessKeyId = textSetting(env, 'SAOLA_S3_ACCESS_KEY_ID');
  const secretAccessKey = textSetting(env, 'SAOLA_S3_SECRET_ACCESS_KEY');
  if (bucket === undefined) {
    const stray = ['SAOLA_S3_ENDPOINT', 'SAOLA_S3_ACCESS_KEY_ID', 'SAOLA_S3_SECRET_ACCESS_KEY'].find((name) => textSetting(env, name));
    if (stray) throw new ConfigError(`${stray} is set but SAOLA_S3_BUCKET is not: set the bucket to store blobs in S3`);
    return undefined;
  }
  if (!BUCKET_NAME.test(bucket)) {
    throw new ConfigError(`SAOLA_S3_BUCKET must be an S3 bucket name (3-63 of a-z 0-9 . -), got "${bucket}"`);
  }
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    throw new ConfigError('SAOLA_S3_ACCESS_KEY_ID and SAOLA_S3_SECRET_ACCESS_KEY must be set together');
  }
  const region = textSetting(env, 'SAOLA_S3_REGION') ?? 'us-east-1';
  if (!REGION_NAME.test(region)) throw new ConfigError(`SAOLA_S3_REGION must be a region name like us-east-1, got "${region}"`);
  return {
    bucket,
    endpoint: endpoint === undefined ? undefined : urlSetting('SAOLA_S3_ENDPOINT', endpoint, ['http:', 'https:']).replace(/\/+$/, ''),
    region,
    accessKeyId,
    secretAccessKey,
    forcePathStyle: booleanSetting(env, 'SAOLA_S3_FORCE_PATH_STYLE', false),
  };
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
/** SAOLA_LOG_LEVEL when unset: a line per request in and out (what the benches measure too). */
export const DEFAULT_LOG_LEVEL = 'info';

export function loadConfig(env: Env = process.env): Config {
  const host = env.SAOLA_HOST?.trim() || '0.0.0.0';
  const port = integerSetting(env, 'SAOLA_PORT', 8000, 0, 65535);
  const dataDir = path.resolve(env.SAOLA_DATA_DIR?.trim() || './data');
  const linkHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const publicUrl = (
    env.SAOLA_PUBLIC_URL?.trim() ? urlSetting('SAOLA_PUBLIC_URL', env.SAOLA_PUBLIC_URL.trim(), ['http:', 'https:']) : `http://${linkHost}:${port}`
  ).replace(/\/+$/, '');
  const databaseUrl = env.SAOLA_DATABASE_URL?.trim()
    ? urlSetting('SAOLA_DATABASE_URL', env.SAOLA_DATABASE_URL.trim(), ['postgres:', 'postgresql:', 'sqlite:'])
    : `sqlite:${path.join(dataDir, 'saola.db')}`;
  const logLevel = env.SAOLA_LOG_LEVEL?.trim() || DEFAULT_LOG_LEVEL;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`SAOLA_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }
  const redisUrl = textSetting(env, 'SAOLA_REDIS_URL');
  const redisPrefix = textSetting(env, 'SAOLA_REDIS_PREFIX') ?? 'saola';
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
    poolThreads: integerSetting(env, 'SAOLA_POOL_THREADS', Math.max(1, cores), 1, 256),
    poolQueue: integerSetting(env, 'SAOLA_POOL_QUEUE', 64, 0, 100_000),
    imageThreads: integerSetting(env, 'SAOLA_IMAGE_THREADS', 1, 0, 256),
    poolIdleMs: integerSetting(env, 'SAOLA_POOL_IDLE_MS', 60_000, 1000, 2_147_483_647),
    poolMaxWaitMs: integerSetting(env, 'SAOLA_POOL_MAX_WAIT_MS', 8000, 0, 3_600_000),
    poolTaskTimeoutMs: integerSetting(env, 'SAOLA_POOL_TIMEOUT_MS', 60_000, 100, 3_600_000),
    maxInFlight: integerSetting(env, 'SAOLA_MAX_IN_FLIGHT', 256, 0, 1_000_000),
    maxEventLoopDelayMs: integerSetting(env, 'SAOLA_MAX_EVENT_LOOP_DELAY_MS', 200, 0, 60_000),
    jsonBodyLimit: integerSetting(env, 'SAOLA_JSON_BODY_LIMIT', 1024 * 1024, 1024, 512 * 1024 * 1024),
    authCacheSeconds: integerSetting(env, 'SAOLA_AUTH_CACHE_SECONDS', 5, 0, 3600),
    runWorkers: booleanSetting(env, 'SAOLA_RUN_WORKERS', true),
    redisUrl: redisUrl === undefined ? undefined : urlSetting('SAOLA_REDIS_URL', redisUrl, ['redis:', 'rediss:']),
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

export { ConfigError };
