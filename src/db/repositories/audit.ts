import type { Kysely } from 'kysely';
import type { DB, AuditLogEntry } from '../schema.ts';

export async function listAudit(
  db: Kysely<DB>,
  businessId: string,
  opts: { tableName?: string; action?: string; recordId?: string; limit: number; offset: number },
): Promise<{ items: AuditLogEntry[]; total: number }> {
  let base = db.selectFrom('audit_log').where('business_id', '=', businessId);
  if (opts.tableName) base = base.where('table_name', '=', opts.tableName);
  if (opts.action) base = base.where('action', '=', opts.action as AuditLogEntry['action']);
  if (opts.recordId) base = base.where('record_id', '=', opts.recordId);
  const [items, count] = await Promise.all([
    base.selectAll().orderBy('changed_at', 'desc').orderBy('id', 'desc').limit(opts.limit).offset(opts.offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { items, total: Number(count.n) };
}
