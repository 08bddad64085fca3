import type { Kysely } from 'kysely';
import type { DB, AuditLogEntry } from '../schema.ts';
import { pageOf, type Page, type PageRequest } from './page.ts';

export function listAudit(
  db: Kysely<DB>,
  businessId: string,
  opts: { tableName?: string; action?: AuditLogEntry['action']; recordId?: string } & PageRequest,
): Promise<Page<AuditLogEntry>> {
  let base = db.selectFrom('audit_log').where('business_id', '=', businessId);
  if (opts.tableName) base = base.where('table_name', '=', opts.tableName);
  if (opts.action) base = base.where('action', '=', opts.action);
  if (opts.recordId) base = base.where('record_id', '=', opts.recordId);
  return pageOf(base, (b) => b.selectAll().orderBy('changed_at', 'desc').orderBy('id', 'desc'), opts);
}
