// The hot statements of a write's transaction sent as named prepared statements on PostgreSQL
// (docs/lending-engine.md, "Round trips of a write"). A module of its own that imports nothing:
// the repositories register their texts as they load, before connection.ts (which imports some
// of them) has finished loading (pg itself is no module of ours).
import pg from 'pg';
// pg's own conversion of a parameter to its text (an array to its literal), as it sends parameters;
// not in @types/pg
// @ts-expect-error no declaration file
import { prepareValue as pgPrepareValue } from 'pg/lib/utils.js';

const prepareValue = pgPrepareValue as (v: unknown) => unknown;

/** Statement text → name, for the statements sent as named prepared statements (preparedText). */
const PREPARED = new Map<string, string>();

/** The texts a held BEGIN is sent with, in one round trip (preparedText's foldsBegin). */
const FOLDS_BEGIN = new Set<string>();

/**
 * Registers a hot statement of a write's transaction (a payment's: docs/lending-engine.md, "Round
 * trips of a write") to be sent as a named prepared statement on PostgreSQL: each connection
 * parses and plans it once instead of at every call. Returns the text, to be run as usual
 * (CompiledQuery.raw): a client of the pool recognises it. A fixed text only (never one built from
 * a list's length), so the server keeps a bounded set per connection. Embedded, it runs as sent.
 *
 * foldsBegin: a statement that opens its transaction's work (a payment's lock and book). Sent as a
 * transaction's first statement, it goes with the BEGIN in one round trip instead of two: as one
 * simple-protocol query, `BEGIN; <the text with its parameters written in as literals>`, so it is
 * not a prepared statement (keep such a text short: a call of SQL functions, whose own statements
 * the server plans once a connection).
 */
export function preparedText(name: string, text: string, opts: { foldsBegin?: boolean } = {}): string {
  const named = `lending_${name}`;
  const known = PREPARED.get(text);
  if (known !== undefined && known !== named) throw new Error(`statement ${named} already prepared as ${known}`);
  PREPARED.set(text, named);
  if (opts.foldsBegin) FOLDS_BEGIN.add(text);
  return text;
}

type QueryFn = (...args: unknown[]) => unknown;

/** The result a held BEGIN answers with (nothing reads it: Kysely awaits it and goes on). */
const BEGUN = { command: 'BEGIN', rowCount: null, rows: [], fields: [] };

/** A parameter as a literal of a simple-protocol query, or undefined when it is not of a kind written in. */
function literal(v: unknown): string | undefined {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'string') return pg.escapeLiteral(v);
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return pg.escapeLiteral(prepareValue(v) as string);
  return undefined;
}

/** `text` with `$n` written as the literals of `values`, or undefined when one cannot be. */
function inlined(text: string, values: unknown[]): string | undefined {
  const lits = values.map(literal);
  if (lits.some((l) => l === undefined)) return undefined;
  return text.replace(/\$(\d+)/g, (_, n: string) => lits[Number(n) - 1]!);
}

/**
 * A pool client's query sending the registered texts by name (pg prepares a name once a
 * connection), and holding a transaction's BEGIN (as Kysely sends it: 'begin', no parameter) until
 * its first statement: sent with it in one round trip when that statement folds it (foldsBegin),
 * else queued just before it (pg sends a client's queries in order). A transaction that sends
 * nothing but its end sends nothing at all.
 */
export function preparing(client: pg.PoolClient): void {
  const query = client.query.bind(client) as QueryFn;
  const send = (text: unknown, values?: unknown, cb?: unknown) => {
    const name = typeof text === 'string' && Array.isArray(values) ? PREPARED.get(text) : undefined;
    return name === undefined ? query(text, values, cb) : query({ name, text, values }, cb);
  };
  let held = false;
  (client as unknown as { query: QueryFn }).query = (text: unknown, values?: unknown, cb?: unknown) => {
    const plain = typeof text === 'string' && cb === undefined && (values === undefined || Array.isArray(values));
    const noParams = values === undefined || (Array.isArray(values) && values.length === 0);
    if (plain && noParams && !held && text === 'begin') {
      held = true;
      return Promise.resolve(BEGUN);
    }
    if (!held) return send(text, values, cb);
    held = false;
    if (plain && noParams && (text === 'commit' || text === 'rollback'))
      return Promise.resolve({ ...BEGUN, command: String(text).toUpperCase() });
    if (plain && FOLDS_BEGIN.has(text as string)) {
      const sql = inlined(text as string, (values ?? []) as unknown[]);
      if (sql !== undefined)
        return (query(`BEGIN;${sql}`) as Promise<pg.QueryResult | pg.QueryResult[]>).then((r) =>
          Array.isArray(r) ? r[r.length - 1]! : r,
        );
    }
    (query('begin') as Promise<unknown>).catch(() => {}); // its failure fails the next query too
    return send(text, values, cb);
  };
}
