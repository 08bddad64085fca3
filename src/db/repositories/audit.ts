// The audit list (GET /api/logs) as one statement: one snapshot gives the page and its total, so the
// total always matches the rows the page was taken from (migration 006 says how both stay cheap).
// The page comes back as the JSON text of its items: entries carry their rows' old and new images
// (jsonb), which the database writes as JSON far faster than the driver parses them and the
// server writes them again.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB, AuditLogEntry } from '../schema.ts';

export interface AuditFilters {
  /** tables whose entries this reader may not see */
  hiddenTables?: string[];
  tableName?: string;
  action?: AuditLogEntry['action'];
  recordId?: string;
}

/** An entry's place in the list: newest first, ties by id. changedAt keeps the microseconds. */
export interface AuditKey {
  /** YYYY-MM-DDTHH:MM:SS.ffffffZ */
  changedAt: string;
  id: string;
}

/** A field of the items, in order: a column of audit_log; an instant is written as the API writes instants. */
export interface AuditField {
  name: keyof AuditLogEntry;
  instant: boolean;
}

export interface AuditSlice {
  /** the items as a JSON array, one object a row with `fields` in order */
  itemsJson: string;
  /** how many items */
  count: number;
  /** entries matching the filters, all pages */
  total: number;
  /** the last item's key when more entries follow it, else null */
  next: AuditKey | null;
}

// RFC 3339 in UTC with milliseconds, as Date#toISOString writes it (both drop the microseconds)
const INSTANT = 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"';
const KEY_INSTANT = 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"';

/**
 * One page: `limit` entries after the first `offset` ones, or (`after`) the `limit` entries that
 * follow that key. The ids of the page come from the filter's index alone (an index-only scan
 * that skips `offset` entries), then only the page's rows are read. The total comes from
 * audit_log_counts; with a record id (a handful of rows) it is counted through that index.
 */
export async function listAudit(
  db: Kysely<DB>,
  businessId: string,
  f: AuditFilters,
  page: { limit: number; offset: number; after?: AuditKey },
  fields: AuditField[],
): Promise<AuditSlice> {
  const where = [sql`business_id = ${businessId}`];
  if (f.tableName !== undefined) where.push(sql`table_name = ${f.tableName}`);
  if (f.hiddenTables?.length) where.push(sql`table_name NOT IN (${sql.join(f.hiddenTables)})`);
  if (f.action !== undefined) where.push(sql`action = ${f.action}`);
  const total =
    f.recordId === undefined
      ? sql`SELECT coalesce(sum(n), 0)::bigint FROM audit_log_counts WHERE ${sql.join(where, sql` AND `)}`
      : sql`SELECT count(*) FROM audit_log WHERE ${sql.join([...where, sql`record_id = ${f.recordId}`], sql` AND `)}`;
  if (f.recordId !== undefined) where.push(sql`record_id = ${f.recordId}`);
  if (page.after) where.push(sql`(changed_at, id) < (${page.after.changedAt}::timestamptz, ${page.after.id}::uuid)`);
  // {"id":…,"table_name":…,…}: each value through to_json (strings escaped, null as null)
  const item = sql.join(
    fields.map((c, i) => {
      const col = sql.ref(`r.${c.name}`);
      const value: RawBuilder<unknown> = c.instant
        ? sql`to_json(to_char(${col} AT TIME ZONE 'UTC', ${sql.lit(INSTANT)}))`
        : sql`to_json(${col})`;
      return sql`${sql.lit(`${i ? ',' : '{'}${JSON.stringify(c.name)}:`)} || coalesce(${value}::text, 'null')`;
    }),
    sql` || `,
  );
  // one more than the page: whether another page follows
  const { rows } = await sql<{
    total: number;
    n: number;
    items: string;
    last_at: string | null;
    last_id: string | null;
  }>`
    WITH page AS (
      SELECT id FROM audit_log WHERE ${sql.join(where, sql` AND `)}
       ORDER BY changed_at DESC, id DESC
       LIMIT ${page.limit + 1} OFFSET ${page.offset}),
    r AS MATERIALIZED (
      SELECT a.*, row_number() OVER (ORDER BY a.changed_at DESC, a.id DESC) AS i
        FROM page JOIN audit_log a ON a.business_id = ${businessId} AND a.id = page.id)
    SELECT (${total}) AS total,
           (SELECT count(*) FROM r) AS n,
           (SELECT coalesce('[' || string_agg(${item} || '}', ',' ORDER BY r.i) || ']', '[]') FROM r WHERE r.i <= ${page.limit}) AS items,
           (SELECT to_char(r.changed_at AT TIME ZONE 'UTC', ${sql.lit(KEY_INSTANT)}) FROM r WHERE r.i = ${page.limit}) AS last_at,
           (SELECT r.id FROM r WHERE r.i = ${page.limit}) AS last_id`.execute(db);
  const row = rows[0]!;
  const found = Number(row.n);
  return {
    itemsJson: row.items,
    count: Math.min(found, page.limit),
    total: Number(row.total),
    next: found > page.limit && row.last_at && row.last_id ? { changedAt: row.last_at, id: row.last_id } : null,
  };
}
