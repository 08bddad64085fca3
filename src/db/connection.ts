// One database interface over two engines: PostgreSQL through a pg pool (DATABASE_URL), or the
// embedded PGlite in a data directory. The same SQL, migrations and triggers run on both.
import { CompiledQuery, Kysely, PostgresDialect, sql, type Transaction } from 'kysely';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { PGliteDialect } from 'kysely-pglite-dialect';
import type { DB } from './schema.ts';
import { lockDataDir } from './lock.ts';

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
  close(): Promise<void>;
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

export async function openPostgres(connectionString: string, max = 10): Promise<Database> {
  const types = {
    getTypeParser(oid: number, format?: 'text' | 'binary') {
      if (oid === DATE || oid === NUMERIC) return asIs;
      if (oid === INT8) return Number;
      return pg.types.getTypeParser(oid, format);
    },
  };
  const pool = new pg.Pool({ connectionString, max, types: types as pg.CustomTypesConfig });
  pool.on('error', () => {}); // an idle client's broken connection is replaced on next use
  const kysely = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return {
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
    close: () => kysely.destroy(),
  };
}

/** dataDir null: in memory (tests). Otherwise the directory is locked for this process. */
export async function openEmbedded(dataDir: string | null): Promise<Database> {
  const unlock = dataDir ? await lockDataDir(dataDir) : null;
  let pglite: PGlite;
  try {
    pglite = await PGlite.create({
      ...(dataDir ? { dataDir: `${dataDir}/pgdata` } : {}),
      parsers: { [DATE]: asIs, [NUMERIC]: asIs, [INT8]: Number },
    });
  } catch (err) {
    await unlock?.();
    throw err;
  }
  const kysely = new Kysely<DB>({ dialect: new PGliteDialect(pglite) });
  return {
    kysely,
    mode: 'embedded',
    async session(fn) {
      return fn({
        async exec(text) {
          await pglite.exec(text);
        },
        async query(text, params = []) {
          return (await pglite.query(text, params)).rows as never;
        },
      });
    },
    // in-process: nothing to save by naming it. Through Kysely, never PGlite directly: its one
    // session may be inside another request's transaction, which a query must neither see nor join
    async prepared(_name, text, params) {
      return (await kysely.executeQuery(CompiledQuery.raw(text, params))).rows as never;
    },
    async close() {
      await kysely.destroy();
      // Kysely closes PGlite only if it ever ran a query; a process that only migrated (raw
      // session) would otherwise never exit
      if (!pglite.closed) await pglite.close();
      await unlock?.();
    },
  };
}

export async function openDatabase(opts: { databaseUrl: string | null; dataDir: string }): Promise<Database> {
  return opts.databaseUrl ? openPostgres(opts.databaseUrl) : openEmbedded(opts.dataDir);
}

/**
 * Runs fn in a transaction whose writes the audit trigger attributes to actor
 * (`api_key:<id>`, `cli`, `upload_link:<id>`, `system:<job>`).
 */
export async function withActor<T>(
  db: Kysely<DB>,
  actor: string,
  fn: (trx: Transaction<DB>) => Promise<T>,
): Promise<T> {
  return db.transaction().execute(async (trx) => {
    await sql`select set_config('app.actor', ${actor}, true)`.execute(trx);
    return fn(trx);
  });
}
