import { isIP } from 'node:net';
import { resolve, join } from 'node:path';
import { Cron } from 'croner';

export interface Config {
  port: number;
  host: string;
  databaseUrl: string | null;
  dataDir: string;
  filesDir: string;
  maxFileBytes: number;
  logLevel: string;
  /** cron expression, or null when the scheduler is off */
  accrualSchedule: string | null;
  publicUrl: string | null;
  /** which peers are proxies whose X-Forwarded-* headers count: all (true), the nearest n hops, or these addresses and CIDRs; null: none */
  trustProxy: true | number | string[] | null;
  /** requests a minute per API key (per process); 0 = no limit */
  rateLimitPerMinute: number;
  /** requests a minute per client address (per process) on the public routes (upload links); 0 = no limit */
  publicRateLimitPerMinute: number;
  /** seconds a connection may stay silent (no byte either way): a stalled body is answered 408, an idle socket closed */
  connectionTimeout: number;
  /** seconds to receive a whole request, head and body (408 beyond) */
  requestTimeout: number;
  /** seconds to receive a request's head (408 beyond); at most requestTimeout */
  headersTimeout: number;
  /** seconds an idle keep-alive connection stays open between requests */
  keepAliveTimeout: number;
  /** connections at once, overall and from one address (503 beyond); 0 = no cap */
  maxConnections: number;
  maxConnectionsPerIp: number;
  /** port of the Prometheus /metrics listener on host; 0: none */
  metricsPort: number;
  /** ms a shutdown (SIGTERM, SIGINT) gives in-flight requests before the process exits anyway */
  shutdownTimeoutMs: number;
  /** hours an Idempotency-Key is kept: older, it counts as absent and the sweep deletes it */
  idempotencyTtlHours: number;
}

export class ConfigError extends Error {}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function int(env: NodeJS.ProcessEnv, name: string, def: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name}=${raw} is not a whole number`);
  const n = Number(raw.trim());
  if (n < min || n > max) throw new ConfigError(`${name}=${raw} is out of range (${min}..${max})`);
  return n;
}

function publicUrl(raw: string | undefined): string | null {
  const v = raw?.trim();
  if (!v) return null;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new ConfigError(`PUBLIC_URL=${raw} is not a URL (e.g. https://lending.example.com)`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new ConfigError(`PUBLIC_URL=${raw} must be an http or https URL`);
  return v.replace(/\/+$/, '');
}

function trustProxy(raw: string | undefined): Config['trustProxy'] {
  const v = raw?.trim() ?? '';
  if (v === '' || v.toLowerCase() === 'false') return null;
  if (v.toLowerCase() === 'true') return true;
  if (/^\d+$/.test(v)) return Number(v) || null;
  const list = v.split(',').map((a) => a.trim());
  for (const a of list) {
    const [addr = '', bits, ...rest] = a.split('/');
    const family = isIP(addr);
    const prefixOk = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32));
    if (!family || !prefixOk || rest.length) {
      throw new ConfigError(
        `TRUST_PROXY=${raw} is not true, a hop count or a comma list of addresses and CIDRs (e.g. 10.0.0.0/8,192.168.1.7)`,
      );
    }
  }
  return list;
}

/** The server's timeouts in seconds; the headers are part of the request, so their timeout is at most the request's. */
function timeouts(env: NodeJS.ProcessEnv) {
  const requestTimeout = int(env, 'REQUEST_TIMEOUT', 120, 1, 3600);
  const headersTimeout = int(env, 'HEADERS_TIMEOUT', Math.min(20, requestTimeout), 1, 3600);
  if (headersTimeout > requestTimeout)
    throw new ConfigError(`HEADERS_TIMEOUT=${headersTimeout} is longer than REQUEST_TIMEOUT=${requestTimeout}`);
  return {
    connectionTimeout: int(env, 'CONNECTION_TIMEOUT', 30, 1, 3600),
    requestTimeout,
    headersTimeout,
    keepAliveTimeout: int(env, 'KEEP_ALIVE_TIMEOUT', 72, 1, 3600),
  };
}

/** Reads the configuration from the environment; an unusable value throws a ConfigError with one clear line. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = resolve(env.DATA_DIR || './data');
  const logLevel = (env.LOG_LEVEL || 'info').toLowerCase();
  if (!LOG_LEVELS.includes(logLevel))
    throw new ConfigError(`LOG_LEVEL=${env.LOG_LEVEL} is not one of ${LOG_LEVELS.join(', ')}`);
  const databaseUrl = env.DATABASE_URL?.trim() || null;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// or postgresql:// URL');
  }
  let accrualSchedule: string | null = (env.ACCRUAL_SCHEDULE ?? '').trim() || '15 * * * *';
  if (accrualSchedule.toLowerCase() === 'off') accrualSchedule = null;
  else {
    try {
      new Cron(accrualSchedule, { paused: true }).stop();
    } catch {
      throw new ConfigError(`ACCRUAL_SCHEDULE=${env.ACCRUAL_SCHEDULE} is not a cron expression (or "off")`);
    }
  }
  return {
    port: int(env, 'PORT', 3000, 0, 65535),
    host: env.HOST?.trim() || '127.0.0.1',
    databaseUrl,
    dataDir,
    filesDir: resolve(env.FILES_DIR || join(dataDir, 'files')),
    maxFileBytes: int(env, 'MAX_FILE_BYTES', 10 * 1024 * 1024, 1, 1024 * 1024 * 1024),
    logLevel,
    accrualSchedule,
    publicUrl: publicUrl(env.PUBLIC_URL),
    trustProxy: trustProxy(env.TRUST_PROXY),
    rateLimitPerMinute: int(env, 'RATE_LIMIT', 6000, 0, 1_000_000),
    publicRateLimitPerMinute: int(env, 'PUBLIC_RATE_LIMIT', 60, 0, 1_000_000),
    ...timeouts(env),
    maxConnections: int(env, 'MAX_CONNECTIONS', 512, 0, 1_000_000),
    maxConnectionsPerIp: int(env, 'MAX_CONNECTIONS_PER_IP', 128, 0, 1_000_000),
    metricsPort: int(env, 'METRICS_PORT', 9464, 0, 65535),
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 100, 3_600_000),
    idempotencyTtlHours: int(env, 'IDEMPOTENCY_TTL_HOURS', 24, 1, 8760),
  };
}
