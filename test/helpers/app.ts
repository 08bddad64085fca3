// build(t): boots the whole HTTP app on the test database for one test (closed after it) and
// gives a tenant with a full and a read key. Requests go through app.inject: the real routes,
// plugins, validation and database, no mocks.
import type { TestContext } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/http/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import type { Database } from '../../src/db/connection.ts';
import { createBusiness } from '../../src/db/repositories/businesses.ts';
import { createApiKey } from '../../src/db/repositories/apiKeys.ts';
import type { App } from '../../src/http/types.ts';
import { DirectoryStorage } from '../../src/storage/directory.ts';
import { sharedTestDb } from './db.ts';
import { systemClock, type Clock } from '../../src/domain/index.ts';
import { KeyCache } from '../../src/services/apiKeys.ts';

export interface Tenant {
  businessId: string;
  fullKey: string;
  readKey: string;
  fullKeyId: string;
}

export async function createTenant(db: Database, opts: { timezone?: string; name?: string } = {}): Promise<Tenant> {
  const b = await createBusiness(db.kysely, { name: opts.name ?? 'Test business', timezone: opts.timezone ?? 'UTC' });
  const full = await createApiKey(db.kysely, { businessId: b.id, scope: 'full', name: 'test full' });
  const read = await createApiKey(db.kysely, { businessId: b.id, scope: 'read', name: 'test read' });
  return { businessId: b.id, fullKey: full.key, readKey: read.key, fullKeyId: full.record.id };
}

/** A clock a test moves by hand: `set('2025-01-31')` is noon UTC of that day, or any instant. */
export interface SettableClock extends Clock {
  set(at: string | Date): void;
}

export function settableClock(at: string | Date = new Date()): SettableClock {
  let t = new Date(0);
  const clock = Object.assign(() => new Date(t), {
    set(v: string | Date) {
      t = typeof v === 'string' ? new Date(`${v}T12:00:00Z`) : new Date(v);
    },
  });
  clock.set(at);
  return clock;
}

export interface Harness {
  app: App;
  /** the app's clock (the real time unless the test gave one): the command line helpers use it too */
  clock: Clock;
  db: Database;
  config: Config;
  tenant: Tenant;
  /** inject with the tenant's full key unless headers say otherwise */
  req(opts: InjectOptions & { key?: string | null }): Promise<LightMyRequestResponse>;
  get(url: string, key?: string | null): Promise<LightMyRequestResponse>;
  post(url: string, body?: unknown, key?: string | null): Promise<LightMyRequestResponse>;
  put(url: string, body?: unknown, key?: string | null): Promise<LightMyRequestResponse>;
  del(url: string, key?: string | null): Promise<LightMyRequestResponse>;
  newTenant(opts?: { timezone?: string }): Promise<Tenant>;
}

export async function build(
  t: TestContext,
  opts: {
    timezone?: string;
    env?: Record<string, string>;
    clock?: Clock;
    /** a logger for the app (e.g. capturedLogger in test/helpers/server.ts); none by default */
    logger?: Parameters<typeof buildApp>[0]['logger'];
    /** a database of the test's own (e.g. one a migration test migrated), instead of the process's shared one */
    db?: Database;
  } = {},
): Promise<Harness> {
  const db = opts.db ?? (await sharedTestDb());
  const dataDir = mkdtempSync(join(tmpdir(), 'lending-test-'));
  // no scheduled work: the accrual schedule is off, and tests run webhook deliveries themselves
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    ACCRUAL_SCHEDULE: 'off',
    WEBHOOKS: 'off',
    ...opts.env,
  });
  const clock = opts.clock ?? systemClock;
  // as the server does: keys checked once, forgotten when the database announces a change
  const keyCache = await KeyCache.start(db);
  const app = await buildApp({
    db,
    config,
    storage: new DirectoryStorage(config.filesDir),
    clock,
    keyCache,
    ...(opts.logger ? { logger: opts.logger } : {}),
  });
  await app.ready();
  t.after(async () => {
    await app.close();
    await keyCache.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const tenant = await createTenant(db, { timezone: opts.timezone });
  const req: Harness['req'] = ({ key, ...o }) => {
    const k = key === undefined ? tenant.fullKey : key;
    return app.inject({ ...o, headers: { ...(k ? { authorization: `Bearer ${k}` } : {}), ...(o.headers ?? {}) } });
  };
  return {
    app,
    clock,
    db,
    config,
    tenant,
    req,
    get: (url, key) => req({ method: 'GET', url, key }),
    post: (url, body, key) =>
      req({ method: 'POST', url, key, ...(body === undefined ? {} : { payload: body as object }) }),
    put: (url, body, key) =>
      req({ method: 'PUT', url, key, ...(body === undefined ? {} : { payload: body as object }) }),
    del: (url, key) => req({ method: 'DELETE', url, key }),
    newTenant: (o) => createTenant(db, o),
  };
}

/** Parses a JSON response body, failing with the status and body when it is not JSON. */
export function json<T = any>(res: LightMyRequestResponse): T {
  try {
    return JSON.parse(res.body) as T;
  } catch {
    throw new Error(`not JSON (status ${res.statusCode}): ${res.body.slice(0, 200)}`);
  }
}
