// One database interface over two engines: PostgreSQL through a pg pool (DATABASE_URL), or the
// embedded PGlite in a data directory. The same SQL, migrations and triggers run on both.
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CompiledQuery, Kysely, PostgresDialect, sql, type Transaction } from 'kysely';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { DB } from './schema.ts';
import { lockDataDir } from './lock.ts';
import { flushEvents } from './repositories/events.ts';
import { SessionGate, pgliteDialect, type Lane } from './pglite.ts';
import { lsn, lsnText, ReadRouter, type ReadStats } from './replica.ts';
import { preparing } from './prepared.ts';

export type { ReadStats } from './replica.ts';

export type Executor = Kysely<DB> | Transaction<DB>;

export interface Database {
  kysely: Kysely<DB>;
  mode: 'embedded' | 'postgres';
  /** Runs fn on one session that can execute multi-statement SQL (migrations). */
  session<T>(fn: (s: RawSession) => Promise<T>): Promise<T>;
  /**
   * A read outside any transaction as a named prepared statement: PostgreSQL plans it once per
   * connection (the hot reads of src/db/repositories/documents.ts). One name, one text.
   */
  prepared<R = Record<string, unknown>>(name: string, text: string, params: unknown[]): Promise<R[]>;
  /**
   * The same database for the operator's commands run inside the server (the admin socket).
   * Embedded, where one session serves everything, their queries are served before the
   * requests waiting for it; on PostgreSQL it is this database.
   */
  forOperator(): Database;
  /**
   * Receives the notifications (NOTIFY, pg_notify) sent on a channel by committed transactions of
   * any process. Resolves once listening, or, on PostgreSQL, after a first failed try (it keeps
   * trying): `live` says when notifications may have been missed (false) and when they are
   * received again (true).
   */
  listen(channel: string, on: ListenHandlers): Promise<Listener>;
  /**
   * Embedded only (undefined on PostgreSQL): runs fn while holding the one session, so nothing
   * reads or writes meanwhile; dump() gives the data directory as a tar after a CHECKPOINT (a
   * consistent image: no other query runs while it is read), query() reads on the held session.
   * For `lending backup`.
   */
  exclusive?<T>(fn: (s: ExclusiveSession) => Promise<T>): Promise<T>;
  /** connections by state, for the metrics: the pg pool's, or embedded the one session's */
  poolStats(): { total: number; idle: number; waiting: number };
  /**
   * Where a read that may come from the replica goes (the lists, reports, exports, the audit list,
   * the feed: docs/deployment.md#read-replicas): the replica of DATABASE_READ_URL while it is
   * within READ_MAX_LAG_MS and has replayed the caller's last write, else `kysely`. Without a
   * replica (and always embedded) `kysely`. caller: the actor whose read it is, null for none;
   * after: a consistency token the caller brought (a write's answer carried it): the replica serves
   * the read only once it has replayed that write.
   */
  reads(caller: string | null, after?: string | null): Promise<Kysely<DB>>;
  /**
   * Tells the database a caller's write has committed: with a replica, the primary's WAL position
   * is remembered for the caller, and its reads go to the primary until the replica has replayed
   * it (read-your-writes). Returns the consistency token of the write (the WAL position, for the
   * answer to carry to reads on other processes); without a replica, or when the position could
   * not be read, null.
   */
  wrote(caller: string): Promise<string | null>;
  /** with a replica: where reads went and why, and its last measured lag (for the metrics); else null */
  readStats(): ReadStats | null;
  close(): Promise<void>;
}

export interface ListenHandlers {
  message(payload: string): void;
  /** true: listening (every notification from now on arrives); false: the connection is lost */
  live(up: boolean): void;
}

export interface Listener {
  close(): Promise<void>;
}

export interface ExclusiveSession {
  dump(): Promise<Blob>;
  query<R = Record<string, unknown>>(text: string): Promise<R[]>;
}

export interface RawSession {
  exec(text: string): Promise<void>;
  query<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
}

// date and numeric stay strings: calendar dates have no time zone and money is never a float.
const DATE = 1082;
const NUMERIC = 1700;
const INT8 = 20;
const asIs = (v: string) => v;

export interface ReplicaOptions {
  /** DATABASE_READ_URL: a streaming replica of connectionString's server */
  readUrl: string;
  /** READ_MAX_LAG_MS: beyond this lag reads go to the primary */
  maxLagMs: number;
}

export async function openPostgres(
  connectionString: string,
  max = 10,
  replica: ReplicaOptions | null = null,
): Promise<Database> {
  const types = {
    getTypeParser(oid: number, format?: 'text' | 'binary') {
      if (oid === DATE || oid === NUMERIC) return asIs;
      if (oid === INT8) return Number;
      return pg.types.getTypeParser(oid, format);
    },
  };
  const pool = new pg.Pool({ connectionString, max, types: types as pg.CustomTypesConfig });
  pool.on('error', () => {}); // an idle client's broken connection is replaced on next use
  pool.on('connect', preparing);
  const kysely = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  let router: ReadRouter | null = null;
  if (replica) {
    const readPool = new pg.Pool({
      connectionString: replica.readUrl,
      max,
      types: types as pg.CustomTypesConfig,
      // which connections are this service's reads, for the replica's pg_stat_activity
      application_name: 'lending reads',
      // a replica that does not answer is skipped (the reads go to the primary), not waited for
      connectionTimeoutMillis: 2_000,
    });
    readPool.on('error', () => {});
    router = new ReadRouter(
      kysely,
      new Kysely<DB>({ dialect: new PostgresDialect({ pool: readPool }) }),
      replica.maxLagMs,
    );
  }
  const db: Database = {
    kysely,
    mode: 'postgres',
    async session(fn) {
      const client = await pool.connect();
      try {
        return await fn({
          async exec(text) {
            await client.query(text);
          },
          async query(text, params = []) {
            return (await client.query(text, params)).rows;
          },
        });
      } finally {
        client.release();
      }
    },
    async prepared(name, text, params) {
      return (await pool.query({ name, text, values: params })).rows;
    },
    listen: (channel, on) => listenPostgres(connectionString, channel, on),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    reads: (caller, after) => (router ? router.reader(caller, after ? lsn(after) : null) : Promise.resolve(kysely)),
    wrote: async (caller) => {
      const position = router ? await router.wrote(caller) : null;
      return position === null ? null : lsnText(position);
    },
    readStats: () => router?.stats() ?? null,
    forOperator: () => db,
    close: async () => {
      await kysely.destroy();
      await router?.replica.destroy();
    },
  };
  return db;
}

/** How often the listening connection is checked, and how long its check may take before it counts as lost. */
const LISTEN_CHECK_MS = 5_000;
const LISTEN_RETRY_MS = [100, 500, 1_000, 2_000, 5_000];
/** where each listening connection sends itself its checks (every listener hears all of them) */
const CHECK_CHANNEL = 'lending_listen_check';

/**
 * A dedicated connection that LISTENs on a channel (not one of the pool's: a pooled connection
 * would not receive notifications while lent out). It counts as listening only while a
 * notification it sends itself comes back within LISTEN_CHECK_MS: at the start and every
 * LISTEN_CHECK_MS after. So a connection that died without a word (a cable, a firewall) or one
 * that cannot receive notifications at all (a pooler in transaction mode in DATABASE_URL) is not
 * trusted. When a check fails or the connection breaks it reports live(false) at once and
 * reconnects with growing pauses; live(true) only once its check comes back again, so the caller
 * can distrust anything it learnt in between.
 */
async function listenPostgres(connectionString: string, channel: string, on: ListenHandlers): Promise<Listener> {
  const me = `${process.pid}:${randomUUID()}`;
  let closed = false;
  let current: pg.Client | null = null;
  let retry: NodeJS.Timeout | null = null;
  let next: NodeJS.Timeout | null = null;
  let failures = 0;
  let seq = 0;
  let awaited: { payload: string; back: () => void } | null = null;

  const lost = (c: pg.Client) => {
    if (current !== c) return;
    current = null;
    if (next) clearTimeout(next);
    next = null;
    on.live(false);
    c.end().catch(() => {});
    if (!closed) schedule();
  };
  const schedule = () => {
    const wait = LISTEN_RETRY_MS[Math.min(failures++, LISTEN_RETRY_MS.length - 1)]!;
    retry = setTimeout(() => {
      retry = null;
      void connect();
    }, wait);
    retry.unref();
  };
  /** true when a notification this connection sends itself comes back in time */
  const check = (c: pg.Client) =>
    new Promise<boolean>((resolve) => {
      const payload = `${me}:${++seq}`;
      const timer = setTimeout(() => resolve(false), LISTEN_CHECK_MS);
      awaited = {
        payload,
        back: () => {
          clearTimeout(timer);
          resolve(true);
        },
      };
      c.query('SELECT pg_notify($1, $2)', [CHECK_CHANNEL, payload]).catch(() => {
        clearTimeout(timer);
        resolve(false);
      });
    });
  const keepChecking = (c: pg.Client) => {
    next = setTimeout(async () => {
      if (current !== c) return;
      if (await check(c)) keepChecking(c);
      else lost(c);
    }, LISTEN_CHECK_MS);
    next.unref();
  };
  const connect = async () => {
    const c = new pg.Client({
      connectionString,
      keepAlive: true,
      // which process listens, for pg_stat_activity
      application_name: `lending listen ${channel} pid ${process.pid}`,
    });
    c.on('notification', (m) => {
      if (current !== c) return;
      if (m.channel === channel) on.message(m.payload ?? '');
      else if (m.channel === CHECK_CHANNEL) {
        const a = awaited;
        if (a && m.payload === a.payload) a.back();
      }
    });
    c.on('error', () => lost(c));
    c.on('end', () => lost(c));
    current = c;
    try {
      await c.connect();
      await c.query(`LISTEN "${channel.replace(/"/g, '""')}"`);
      await c.query(`LISTEN ${CHECK_CHANNEL}`);
    } catch {
      lost(c);
      return;
    }
    if (current !== c) return; // lost while connecting
    if (closed) {
      current = null;
      await c.end().catch(() => {});
      return;
    }
    if (!(await check(c))) {
      lost(c);
      return;
    }
    if (current !== c) return;
    failures = 0;
    on.live(true);
    keepChecking(c);
  };

  await connect();
  return {
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      if (next) clearTimeout(next);
      const c = current;
      current = null;
      await c?.end().catch(() => {});
    },
  };
}

/**
 * The image of a new, migrated embedded database that `npm run build` writes next to the built
 * module (scripts/build.mjs). A data directory without a database starts as a copy of it instead of
 * PGlite's initdb, which peaks at 800 MiB or more and takes seconds; the migrations then find
 * nothing to apply. Absent (running from src/, or a build that could not make it): initdb.
 */
export const EMPTY_DATABASE_IMAGE = 'empty-database.tar.gz';

function emptyDatabaseImage(): Blob | undefined {
  const file = new URL(`./${EMPTY_DATABASE_IMAGE}`, import.meta.url);
  return existsSync(file) ? new Blob([readFileSync(file)]) : undefined;
}

/**
 * dataDir null: in memory (tests). Otherwise the directory is locked for this process. `image`
 * (a dumpDataDir tarball) starts a new database as a copy of it instead of an initdb, which is
 * most of an in-memory database's start (the tests open one per process from a migrated image).
 */
export async function openEmbedded(dataDir: string | null, opts: { image?: Blob } = {}): Promise<Database> {
  const unlock = dataDir ? await lockDataDir(dataDir) : null;
  let pglite: PGlite;
  try {
    const pgdata = dataDir ? join(dataDir, 'pgdata') : null;
    const image = opts.image ?? (pgdata && !existsSync(join(pgdata, 'PG_VERSION')) ? emptyDatabaseImage() : undefined);
    pglite = await PGlite.create({
      ...(pgdata ? { dataDir: pgdata } : {}),
      ...(image ? { loadDataDir: image } : {}),
      parsers: { [DATE]: asIs, [NUMERIC]: asIs, [INT8]: Number },
      // the client search's trigram index (migration 043)
      extensions: { pg_trgm },
    });
  } catch (err) {
    await unlock?.();
    throw err;
  }
  const gate = new SessionGate();
  const close = async () => {
    await kysely.destroy();
    if (!pglite.closed) await pglite.close();
    await unlock?.();
  };
  const view = (lane: Lane): Database => {
    const k = new Kysely<DB>({ dialect: pgliteDialect(pglite, gate, lane) });
    return {
      kysely: k,
      mode: 'embedded',
      async session(fn) {
        // migrations' multi-statement SQL takes the session like any query, never in the middle of a transaction
        await gate.acquire(lane);
        try {
          return await fn({
            async exec(text) {
              await pglite.exec(text);
            },
            async query(text, params = []) {
              return (await pglite.query(text, params)).rows as never;
            },
          });
        } finally {
          gate.release();
        }
      },
      // in-process: nothing to save by naming it. Through Kysely, never PGlite directly: its one
      // session may be inside another request's transaction, which a query must neither see nor join
      async prepared(_name, text, params) {
        return (await k.executeQuery(CompiledQuery.raw(text, params))).rows as never;
      },
      // One process holds the data directory, and PGlite hands a notification over while the
      // statement that committed it is still returning: listening never misses one.
      async listen(channel, on) {
        const unlisten = await pglite.listen(channel, (payload) => on.message(payload));
        on.live(true);
        return {
          async close() {
            if (!pglite.closed) await unlisten();
          },
        };
      },
      async exclusive(fn) {
        await gate.acquire(lane);
        try {
          return await fn({
            async dump() {
              await pglite.exec('CHECKPOINT');
              return pglite.dumpDataDir('none');
            },
            async query(text) {
              return (await pglite.query(text)).rows as never;
            },
          });
        } finally {
          gate.release();
        }
      },
      poolStats: () => gate.stats(),
      // one process, one database: nothing lags behind it
      reads: async () => k,
      wrote: async () => null,
      readStats: () => null,
      forOperator: () => operator,
      close,
    };
  };
  const db = view('requests');
  const kysely = db.kysely;
  const operator = view('operator');
  return db;
}

export async function openDatabase(opts: {
  databaseUrl: string | null;
  dataDir: string;
  databaseReadUrl?: string | null;
  readMaxLagMs?: number;
}): Promise<Database> {
  if (!opts.databaseUrl) return openEmbedded(opts.dataDir);
  const replica = opts.databaseReadUrl ? { readUrl: opts.databaseReadUrl, maxLagMs: opts.readMaxLagMs ?? 1_000 } : null;
  return openPostgres(opts.databaseUrl, 10, replica);
}

/**
 * Work the caller of a use case adds to the use case's own transaction: it runs after the use
 * case's work, with its result, and commits or rolls back with it. The HTTP layer stores an
 * Idempotency-Key's answer this way (src/http/idempotency.ts), so a write is never kept without
 * its key, nor a key without its write.
 */
export type BeforeCommit = (trx: Transaction<DB>, result: unknown) => Promise<void>;

/** Who writes: the audit actor, and what its caller adds to the transaction before it commits. */
export interface Writer {
  /** `api_key:<id>`, `user:<id>`, `cli`, `upload_link:<id>`, `system:<job>` */
  actor: string;
  /** the operator's email while an operator acts as a user (impersonation); the audit rows carry it */
  impersonatedBy?: string | null;
  beforeCommit?: BeforeCommit;
}

/** The audit trigger's two settings for a writer, as its transaction's first statement sets them. */
export interface ActorSettings {
  actor: string;
  impersonatedBy: string;
}

/**
 * withActor without its own statement for the actor: fn's first statement must set both settings
 * (set_config(..., true)) before anything is written, one round trip less (a payment's lock does:
 * src/db/repositories/creditBook.ts lockAndReadBook). Then the writer's beforeCommit and the events, as
 * withActor.
 */
export async function withActorInFirstStatement<T>(
  db: Kysely<DB>,
  writer: Writer,
  fn: (trx: Transaction<DB>, settings: ActorSettings) => Promise<T>,
): Promise<T> {
  return db.transaction().execute(async (trx) => {
    const result = await fn(trx, { actor: writer.actor, impersonatedBy: writer.impersonatedBy ?? '' });
    await writer.beforeCommit?.(trx, result);
    await flushEvents(trx);
    return result;
  });
}

/**
 * Runs fn in a transaction whose writes the audit trigger attributes to the writer's actor (and
 * the operator impersonating it, if any),
 * then the writer's beforeCommit with fn's result, then commits. Use cases pass their whole
 * context (an ActorContext is a Writer), never just the actor's name: that is how a caller's
 * beforeCommit reaches the transaction without every use case taking it as a parameter.
 */
export async function withActor<T>(
  db: Kysely<DB>,
  writer: Writer,
  fn: (trx: Transaction<DB>) => Promise<T>,
): Promise<T> {
  return db.transaction().execute(async (trx) => {
    // both settings last until the transaction ends; the audit trigger reads them (migration 006)
    await sql`select set_config('app.actor', ${writer.actor}, true), set_config('app.impersonated_by', ${writer.impersonatedBy ?? ''}, true)`.execute(
      trx,
    );
    const result = await fn(trx);
    await writer.beforeCommit?.(trx, result);
    // the events last: the event counter's lock lasts only until the commit (migration 012)
    await flushEvents(trx);
    return result;
  });
}
