// The hot statements of a write's transaction sent as named prepared statements on PostgreSQL
// (docs/lending-engine.md, "Round trips of a write"). A module of its own that imports nothing:
// the repositories register their texts as they load, before connection.ts (which imports some
// of them) has finished loading.
import type pg from 'pg';

/** Statement text → name, for the statements sent as named prepared statements (preparedText). */
const PREPARED = new Map<string, string>();

/**
 * Registers a hot statement of a write's transaction (a payment's: docs/lending-engine.md, "Round
 * trips of a write") to be sent as a named prepared statement on PostgreSQL: each connection
 * parses and plans it once instead of at every call. Returns the text, to be run as usual
 * (CompiledQuery.raw): a client of the pool recognises it. A fixed text only (never one built from
 * a list's length), so the server keeps a bounded set per connection. Embedded, it runs as sent.
 */
export function preparedText(name: string, text: string): string {
  const named = `lending_${name}`;
  const known = PREPARED.get(text);
  if (known !== undefined && known !== named) throw new Error(`statement ${named} already prepared as ${known}`);
  PREPARED.set(text, named);
  return text;
}

/** A pool client's query sending the registered texts by name (pg prepares a name once a connection). */
export function preparing(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (
    text: unknown,
    values?: unknown,
    cb?: unknown,
  ) => {
    const name = typeof text === 'string' && Array.isArray(values) ? PREPARED.get(text) : undefined;
    return name === undefined ? query(text, values, cb) : query({ name, text, values }, cb);
  };
}
