// Kysely over the embedded PGlite: one database session shared by the whole process, handed to
// one caller at a time (a transaction keeps it until it ends).
//
// Two things the plain FIFO hand-over got wrong under load:
// - PGlite runs each query synchronously on the main thread and resolves it as a microtask, so
//   handing the session straight to the next waiter chained every queued query without ever
//   returning to the event loop: while requests were queued no socket was read, no timer ran
//   (a command sent over the admin socket waited seconds just to be accepted). The session is
//   handed over from setImmediate, after the loop has polled for I/O, once YIELD_EVERY_MS went
//   by since it last did.
// - The operator's commands (the admin socket) queued behind every request in flight. They are
//   few and short and are how an operator acts on a loaded server (revoke a key), so their lane
//   is served first.
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type { PGlite } from '@electric-sql/pglite';

export type Lane = 'requests' | 'operator';

/**
 * While queries are queued, the loop polls for I/O at least this often (ms), plus the query
 * running then. Not after every query: each return to the loop costs, and short queries would pay
 * it more than once per request.
 */
const YIELD_EVERY_MS = 25;

/** Who holds the one session, and who waits for it in each lane. */
export class SessionGate {
  private held = false;
  private readonly waiting: Record<Lane, (() => void)[]> = { operator: [], requests: [] };
  /** when the event loop last polled for I/O with the session busy */
  private polledAt = 0;

  acquire(lane: Lane): Promise<void> {
    if (!this.held) {
      this.held = true;
      this.polledAt = performance.now(); // called from an I/O or timer callback: the loop just ran
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting[lane].push(resolve));
  }

  /** the session as a pool of one, for the metrics: busy or not, and the callers queued for it */
  stats(): { total: number; idle: number; waiting: number } {
    return {
      total: 1,
      idle: this.held ? 0 : 1,
      waiting: this.waiting.operator.length + this.waiting.requests.length,
    };
  }

  private next(): (() => void) | undefined {
    return this.waiting.operator.shift() ?? this.waiting.requests.shift();
  }

  release(): void {
    if (performance.now() - this.polledAt < YIELD_EVERY_MS) {
      const next = this.next();
      if (next) next();
      else this.held = false;
      return;
    }
    // the hand-over waits for the loop to read sockets and run timers; what arrived meanwhile
    // (an operator's command) is served first
    setImmediate(() => {
      this.polledAt = performance.now();
      const next = this.next();
      if (next) next();
      else this.held = false;
    });
  }
}

class PGliteConnection implements DatabaseConnection {
  private readonly pglite: PGlite;
  constructor(pglite: PGlite) {
    this.pglite = pglite;
  }

  async executeQuery<R>(q: CompiledQuery): Promise<QueryResult<R>> {
    const r = await this.pglite.query<R>(q.sql, [...q.parameters]);
    return r.affectedRows ? { rows: r.rows, numAffectedRows: BigInt(r.affectedRows) } : { rows: r.rows };
  }

  // biome-ignore lint/correctness/useYield: streaming is not used; Kysely's interface requires the method
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries are not supported on the embedded database');
  }
}

class PGliteDriver implements Driver {
  private readonly connection: PGliteConnection;
  private readonly gate: SessionGate;
  private readonly lane: Lane;
  constructor(pglite: PGlite, gate: SessionGate, lane: Lane) {
    this.gate = gate;
    this.lane = lane;
    this.connection = new PGliteConnection(pglite);
  }
  async init() {}
  async acquireConnection() {
    await this.gate.acquire(this.lane);
    return this.connection;
  }
  async releaseConnection() {
    this.gate.release();
  }
  async beginTransaction(conn: DatabaseConnection, settings: TransactionSettings) {
    await conn.executeQuery(
      CompiledQuery.raw(
        settings.isolationLevel ? `start transaction isolation level ${settings.isolationLevel}` : 'begin',
      ),
    );
  }
  async commitTransaction(conn: DatabaseConnection) {
    await conn.executeQuery(CompiledQuery.raw('commit'));
  }
  async rollbackTransaction(conn: DatabaseConnection) {
    await conn.executeQuery(CompiledQuery.raw('rollback'));
  }
  // the owner of the PGlite closes it (connection.ts), not each Kysely over it
  async destroy() {}
}

/** A Kysely dialect whose queries take the shared session through `gate` in `lane`. */
export function pgliteDialect(pglite: PGlite, gate: SessionGate, lane: Lane): Dialect {
  return {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new PGliteDriver(pglite, gate, lane),
    createQueryCompiler: () => new PostgresQueryCompiler(),
    createIntrospector: (db) => new PostgresIntrospector(db),
  };
}
