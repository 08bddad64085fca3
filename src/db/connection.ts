// One database interface over two engines: PostgreSQL through a pg pool (DATABASE_URL), or the
// embedded PGlite in a data directory. The same SQL, migrations and triggers run on both.
import { Kysely, PostgresDialect, sql, type Transaction } from 'kysely';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import type { DB } from './schema.ts';
import { lockDataDir } from './lock.ts';
import { SessionGate, pgliteDialect, type Lane } from './pglite.ts';

export type Executor = Kysely<DB> | Transaction<DB>;

export interface Database {
  kysely: Kysely<DB>;
  mode: 'embedded' | 'postgres';
  /** Runs fn on one session that can execute multi-statement SQL (migrations). */
  session<T>(fn: (s: RawSession) => Promise<T>): Promise<T>;
  /**
   * The same database for the operator's commands run inside the server (the admin socket).
   * Embedded, where one session serves everything, their queries are served before the
   * requests waiting for it; on PostgreSQL it is this database.
   */
  forOperator(): Database;
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
    forOperator: () => db,
    close: () => kysely.destroy(),
  };
  return db;
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
  const gate = new SessionGate();
  const close = async () => {
    await kysely.destroy();
    if (!pglite.closed) await pglite.close();
    await unlock?.();
  };
  const view = (lane: Lane): Database => ({
    kysely: new Kysely<DB>({ dialect: pgliteDialect(pglite, gate, lane) }),
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
    forOperator: () => operator,
    close,
  });
  const db = view('requests');
  const kysely = db.kysely;
  const operator = view('operator');
  return db;
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
