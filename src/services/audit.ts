// The audit log (contract 7): written by the database's triggers on every change, read here,
// newest first.
import type { AuditLogEntry } from '../db/schema.ts';
import { listAudit as auditPage } from '../db/repositories/audit.ts';
import type { Page, PageRequest } from '../db/repositories/page.ts';
import type { ActorContext, Database } from './context.ts';

export interface AuditFilter extends PageRequest {
  tableName?: string;
  action?: AuditLogEntry['action'];
  recordId?: string;
}

export function listAudit(db: Database, ctx: ActorContext, filter: AuditFilter): Promise<Page<AuditLogEntry>> {
  return auditPage(db.kysely, ctx.businessId, filter);
}
