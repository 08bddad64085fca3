import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { resolve, join } from 'node:path';
import { Cron } from 'croner';
import { parseCuit } from './domain/cuit.ts';

export interface Config {
  port: number;
  host: string;
  databaseUrl: string | null;
  /** DATABASE_READ_URL: a streaming replica of DATABASE_URL's server for the reads that may lag (docs/deployment.md#read-replicas); null: none */
  databaseReadUrl: string | null;
  /** ms the replica may lag before those reads go to the primary */
  readMaxLagMs: number;
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
  /** leads an hour per client address (per process) on the public lead form, besides the public limit; 0 = no limit */
  leadsRateLimitPerHour: number;
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
  /** the client verifications against the registries (docs/verification.md) */
  verification: VerificationConfig;
  /** this process runs the webhook delivery job (WEBHOOKS=off: endpoints are still managed, other processes deliver) */
  webhooks: boolean;
  /** this process runs the scheduled jobs of src/jobs (JOBS=off: an API-only process; others run them) */
  jobs: boolean;
  /** webhook URLs may also be http:// and reach loopback and private addresses (tests, private networks) */
  webhookAllowPrivate: boolean;
  /** ms a webhook receiver has to answer 2xx before the attempt counts as failed */
  webhookTimeoutMs: number;
  /** e-mail (docs/notifications.md): null without SMTP_URL, and then nothing is sent */
  mail: MailConfig | null;
  /** minutes a session may stay unused before it ends (docs/users.md) */
  sessionIdleMinutes: number;
  /** hours a session lasts at most, however much it is used */
  sessionMaxHours: number;
  /**
   * failed sign-ins of one account within loginFailureWindowMinutes before its progressive delay
   * starts, and attempts per client address before 429 (docs/security.md)
   */
  loginFailuresPerAccount: number;
  loginFailuresPerAddress: number;
  loginFailureWindowMinutes: number;
  /** serve creates the demo business on an empty embedded data directory (DEMO=false: it does not) */
  demo: boolean;
}

export interface VerificationConfig {
  /** hours a verification of the same source and CUIT is answered again instead of asking the registry */
  ttlHours: number;
  /** ms a whole verification may take at the registry (every call it makes) before it is a 502 */
  timeoutMs: number;
  /** base URL of the central bank's debtor registry (Central de Deudores), no trailing slash */
  bcraApiUrl: string;
  /** the tax authority's register; null when ARCA_CERT, ARCA_KEY and ARCA_CUIT are not set */
  arca: ArcaConfig | null;
}

/** The business's access to ARCA (WSAA login, padrón A13), checked at start-up. */
export interface ArcaConfig {
  /** the certificate ARCA issued for the key, PEM (public) */
  certPem: string;
  /** the private key, as a KeyObject: printing or serialising the configuration never shows it */
  key: KeyObject;
  /** the CUIT the certificate belongs to (cuitRepresentada of every padrón call) */
  cuit: string;
  env: ArcaEnv;
  /** LoginCms endpoint of WSAA: ARCA_WSAA_URL, else the one of env */
  wsaaUrl: string;
  /** personaServiceA13 endpoint: ARCA_PADRON_URL, else the one of env */
  padronUrl: string;
}

export type ArcaEnv = 'homologacion' | 'produccion';

/** ARCA's documented endpoints per environment. */
export const ARCA_ENDPOINTS: Record<ArcaEnv, { wsaa: string; padron: string }> = {
  homologacion: {
    wsaa: 'https://wsaahomo.afip.gov.ar/ws/services/LoginCms',
    padron: 'https://awshomo.afip.gov.ar/sr-padron/webservices/personaServiceA13',
  },
  produccion: {
    wsaa: 'https://wsaa.afip.gov.ar/ws/services/LoginCms',
    padron: 'https://aws.afip.gov.ar/sr-padron/webservices/personaServiceA13',
  },
};

export const DEFAULT_BCRA_API_URL = 'https://api.bcra.gob.ar';

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

export interface MailConfig {
  /** smtp://user:pass@host:587 (STARTTLS when the server offers it) or smtps://…:465 */
  smtpUrl: string;
  /** the From of every message: an address, or `Name <address>` */
  from: string;
  /** a delivery attempt that takes longer has failed and is retried */
  timeoutMs: number;
  /** attempts before a notification is `failed` */
  maxAttempts: number;
}

/** SMTP_URL and MAIL_FROM, together or not at all. */
function mail(env: NodeJS.ProcessEnv): MailConfig | null {
  const url = env.SMTP_URL?.trim();
  const from = env.MAIL_FROM?.trim();
  if (!url) {
    if (from) throw new ConfigError('MAIL_FROM is set without SMTP_URL: set both, or neither');
    return null;
  }
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new ConfigError('SMTP_URL is not a URL: write smtp://user:password@host:587 or smtps://…:465');
  }
  if (u.protocol !== 'smtp:' && u.protocol !== 'smtps:')
    throw new ConfigError('SMTP_URL must start with smtp:// or smtps://');
  if (!from) throw new ConfigError('SMTP_URL is set without MAIL_FROM: the address messages are sent from');
  if (!/^(?:[^<>]*<)?[^\s@<>]+@[^\s@<>]+>?$/.test(from))
    throw new ConfigError('MAIL_FROM must be an address (lender@example.com) or `Name <lender@example.com>`');
  return {
    smtpUrl: url,
    from,
    timeoutMs: int(env, 'MAIL_TIMEOUT_MS', 10_000, 100, 120_000),
    maxAttempts: int(env, 'MAIL_MAX_ATTEMPTS', 6, 1, 50),
  };
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

function httpUrl(name: string, raw: string | undefined, def: string): string {
  const v = raw?.trim();
  if (!v) return def;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new ConfigError(`${name}=${raw} is not a URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new ConfigError(`${name}=${raw} must be an http or https URL`);
  return v.replace(/\/+$/, '');
}

/**
 * A PEM value of ARCA_CERT or ARCA_KEY: the PEM text itself (newlines may be written \n, as in
 * an env file), or the path of a file holding it. The value is never repeated in an error.
 */
function pem(name: string, raw: string): string {
  const v = raw.trim();
  if (v.startsWith('-----BEGIN')) return v.replace(/\\n/g, '\n');
  try {
    return readFileSync(resolve(v), 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigError(`${name}: cannot read the file ${v} (${code}); give a file path or the PEM text`);
  }
}

/** ARCA's access when ARCA_CERT, ARCA_KEY and ARCA_CUIT are set (all three or none). */
function arca(env: NodeJS.ProcessEnv): ArcaConfig | null {
  const given = (['ARCA_CERT', 'ARCA_KEY', 'ARCA_CUIT'] as const).filter((n) => env[n]?.trim());
  const rawEnv = env.ARCA_ENV?.trim() || 'homologacion';
  if (rawEnv !== 'homologacion' && rawEnv !== 'produccion')
    throw new ConfigError(`ARCA_ENV=${env.ARCA_ENV} is not homologacion or produccion`);
  const wsaaUrl = httpUrl('ARCA_WSAA_URL', env.ARCA_WSAA_URL, ARCA_ENDPOINTS[rawEnv].wsaa);
  const padronUrl = httpUrl('ARCA_PADRON_URL', env.ARCA_PADRON_URL, ARCA_ENDPOINTS[rawEnv].padron);
  if (given.length === 0) return null;
  if (given.length < 3) {
    const missing = ['ARCA_CERT', 'ARCA_KEY', 'ARCA_CUIT'].filter((n) => !given.includes(n as never));
    throw new ConfigError(`ARCA_CERT, ARCA_KEY and ARCA_CUIT go together: ${missing.join(' and ')} not set`);
  }
  const cuit = parseCuit(env.ARCA_CUIT!.trim());
  if (!cuit)
    throw new ConfigError(`ARCA_CUIT=${env.ARCA_CUIT} is not a CUIT (11 digits ending in the right check digit)`);
  const certPem = pem('ARCA_CERT', env.ARCA_CERT!);
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certPem);
  } catch {
    throw new ConfigError('ARCA_CERT is not a PEM certificate (-----BEGIN CERTIFICATE-----)');
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(pem('ARCA_KEY', env.ARCA_KEY!));
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError('ARCA_KEY is not an unencrypted PEM private key');
  }
  if (key.asymmetricKeyType !== 'rsa') throw new ConfigError('ARCA_KEY must be an RSA key (the kind ARCA certifies)');
  if (!cert.checkPrivateKey(key)) throw new ConfigError('ARCA_KEY is not the private key of ARCA_CERT');
  return { certPem: cert.toString(), key, cuit, env: rawEnv, wsaaUrl, padronUrl };
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

function flag(name: string, raw: string | undefined, def: boolean, words: [string, string]): boolean {
  const v = raw?.trim().toLowerCase() ?? '';
  if (v === '') return def;
  if (v === words[0]) return true;
  if (v === words[1]) return false;
  throw new ConfigError(`${name}=${raw} is not ${words[0]} or ${words[1]}`);
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

/** Session lifetimes and sign-in limits (docs/users.md); an idle limit longer than the whole session makes no sense. */
function sessions(env: NodeJS.ProcessEnv) {
  const sessionMaxHours = int(env, 'SESSION_MAX_HOURS', 12, 1, 24 * 90);
  const sessionIdleMinutes = int(env, 'SESSION_IDLE_MINUTES', 30, 1, 24 * 60 * 90);
  if (sessionIdleMinutes > sessionMaxHours * 60)
    throw new ConfigError(
      `SESSION_IDLE_MINUTES=${sessionIdleMinutes} is longer than SESSION_MAX_HOURS=${sessionMaxHours}`,
    );
  return {
    sessionIdleMinutes,
    sessionMaxHours,
    // LOGIN_FAILURES_PER_EMAIL: the name before failures were counted per account, still read
    loginFailuresPerAccount: int(
      env,
      env.LOGIN_FAILURES_PER_ACCOUNT === undefined ? 'LOGIN_FAILURES_PER_EMAIL' : 'LOGIN_FAILURES_PER_ACCOUNT',
      5,
      1,
      1_000_000,
    ),
    loginFailuresPerAddress: int(env, 'LOGIN_FAILURES_PER_ADDRESS', 20, 1, 1_000_000),
    loginFailureWindowMinutes: int(env, 'LOGIN_FAILURE_WINDOW_MINUTES', 15, 1, 24 * 60),
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
  const databaseReadUrl = env.DATABASE_READ_URL?.trim() || null;
  if (databaseReadUrl && !databaseUrl)
    throw new ConfigError(
      'DATABASE_READ_URL needs DATABASE_URL: the embedded database has no replica (set DATABASE_URL to the primary server)',
    );
  if (databaseReadUrl && !/^postgres(ql)?:\/\//.test(databaseReadUrl)) {
    throw new ConfigError('DATABASE_READ_URL must be a postgres:// or postgresql:// URL');
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
    databaseReadUrl,
    readMaxLagMs: int(env, 'READ_MAX_LAG_MS', 1_000, 0, 3_600_000),
    dataDir,
    filesDir: resolve(env.FILES_DIR || join(dataDir, 'files')),
    maxFileBytes: int(env, 'MAX_FILE_BYTES', 10 * 1024 * 1024, 1, 1024 * 1024 * 1024),
    logLevel,
    accrualSchedule,
    publicUrl: publicUrl(env.PUBLIC_URL),
    trustProxy: trustProxy(env.TRUST_PROXY),
    rateLimitPerMinute: int(env, 'RATE_LIMIT', 6000, 0, 1_000_000),
    publicRateLimitPerMinute: int(env, 'PUBLIC_RATE_LIMIT', 60, 0, 1_000_000),
    leadsRateLimitPerHour: int(env, 'LEADS_RATE_LIMIT_PER_HOUR', 10, 0, 1_000_000),
    ...timeouts(env),
    maxConnections: int(env, 'MAX_CONNECTIONS', 512, 0, 1_000_000),
    maxConnectionsPerIp: int(env, 'MAX_CONNECTIONS_PER_IP', 128, 0, 1_000_000),
    metricsPort: int(env, 'METRICS_PORT', 9464, 0, 65535),
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 100, 3_600_000),
    idempotencyTtlHours: int(env, 'IDEMPOTENCY_TTL_HOURS', 24, 1, 8760),
    verification: {
      ttlHours: int(env, 'VERIFICATION_TTL_HOURS', 24, 0, 8760),
      timeoutMs: int(env, 'VERIFICATION_TIMEOUT_MS', 10_000, 1, 600_000),
      bcraApiUrl: httpUrl('BCRA_API_URL', env.BCRA_API_URL, DEFAULT_BCRA_API_URL),
      arca: arca(env),
    },
    webhooks: flag('WEBHOOKS', env.WEBHOOKS, true, ['on', 'off']),
    jobs: flag('JOBS', env.JOBS, true, ['on', 'off']),
    webhookAllowPrivate: flag('WEBHOOK_ALLOW_PRIVATE', env.WEBHOOK_ALLOW_PRIVATE, false, ['true', 'false']),
    webhookTimeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 10, 60_000),
    mail: mail(env),
    ...sessions(env),
    demo: flag('DEMO', env.DEMO, true, ['true', 'false']),
  };
}
