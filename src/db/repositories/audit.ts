// The audit list (contract 7) as one statement: one snapshot gives the page and its total, so the
// total always matches the rows the page was taken from (migration 005 says how both stay cheap).
import { sql, type Kysely } from 'kysely';
import type { DB, AuditLogEntry } from '../schema.ts';

export interface AuditFilters {
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

export interface AuditSlice {
  items: AuditLogEntry[];
  /** entries matching the filters, all pages */
  total: number;
  /** the last item's key when more entries follow it, else null */
  next: AuditKey | null;
}

type Row = { [K in keyof AuditLogEntry]: AuditLogEntry[K] | null } & { total: number; changed_key: string | null };

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
): Promise<AuditSlice> {
  const where = [sql`business_id = ${businessId}`];
  if (f.tableName !== undefined) where.push(sql`table_name = ${f.tableName}`);
  if (f.action !== undefined) where.push(sql`action = ${f.action}`);
  const total =
    f.recordId === undefined
      ? sql`SELECT coalesce(sum(n), 0)::bigint FROM audit_log_counts WHERE ${sql.join(where, sql` AND `)}`
      : sql`SELECT count(*) FROM audit_log WHERE ${sql.join([...where, sql`record_id = ${f.recordId}`], sql` AND `)}`;
  if (f.recordId !== undefined) where.push(sql`record_id = ${f.recordId}`);
  if (page.after) where.push(sql`(changed_at, id) < (${page.after.changedAt}::timestamptz, ${page.after.id}::uuid)`);
  // one more than the page: whether another page follows
  const { rows } = await sql<Row>`
    WITH page AS (
      SELECT id FROM audit_log WHERE ${sql.join(where, sql` AND `)}
       ORDER BY changed_at DESC, id DESC
       LIMIT ${page.limit + 1} OFFSET ${page.offset})
    SELECT t.total, a.*, to_char(a.changed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS changed_key
      FROM (${total}) AS t (total)
      LEFT JOIN (page JOIN audit_log a ON a.business_id = ${businessId} AND a.id = page.id) ON true
     ORDER BY a.changed_at DESC, a.id DESC`.execute(db);
  const found = rows.filter((r) => r.id !== null);
  const items = found.slice(0, page.limit).map(
    (r): AuditLogEntry => ({
      business_id: r.business_id!,
      id: r.id!,
      table_name: r.table_name!,
      action: r.action!,
      record_id: r.record_id!,
      old_data: r.old_data,
      new_data: r.new_data,
      branch_id: r.branch_id,
      actor: r.actor!,
      impersonated_by: r.impersonated_by,
      changed_at: r.changed_at!,
    }),
  );
  const last = found.length > page.limit ? found[page.limit - 1]! : null;
  return {
    items,
    total: Number(rows[0]!.total),
    next: last ? { changedAt: last.changed_key!, id: last.id! } : null,
  };
}
