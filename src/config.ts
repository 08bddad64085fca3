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
  /** requests a minute per API key (per process); 0 = no limit */
  rateLimitPerMinute: number;
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
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ConfigError(`PUBLIC_URL=${raw} must be an http or https URL`);
  return v.replace(/\/+$/, '');
}

/** Reads the configuration from the environment; an unusable value throws a ConfigError with one clear line. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = resolve(env.DATA_DIR || './data');
  const logLevel = (env.LOG_LEVEL || 'info').toLowerCase();
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL=${env.LOG_LEVEL} is not one of ${LOG_LEVELS.join(', ')}`);
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
    rateLimitPerMinute: int(env, 'RATE_LIMIT', 6000, 0, 1_000_000),
  };
}
