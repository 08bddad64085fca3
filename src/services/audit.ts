// The audit log (docs/api.md, "Audit log"): written by the database's triggers on every change, read here,
// newest first, by offset or by cursor (docs/api.md, "Sync with updated_since").
//
// A cursor is the place of the last entry a page showed (its changed_at to the microsecond and
// its id), the number of entries that came before the next page, and the filters it was made for
// with a fingerprint of them and the business (src/services/cursors.ts): `?cursor=` alone
// continues the same filtered listing, and other filters are refused. The next page is the entries after that place in
// (changed_at, id) order, read straight from the filter's index: the same cost at any depth, and
// no entry is skipped or repeated when entries are written meanwhile (new entries are newer than
// any place already shown, so they never appear inside the pages still to come).
import { listAudit as auditPage, type AuditField, type AuditFilters, type AuditKey } from '../db/repositories/audit.ts';
import type { PageRequest } from '../db/repositories/page.ts';
import { invalid } from '../domain/errors.ts';
import { AuditLogEntry } from '../domain/records.ts';
import { readsOf, type ActorContext, type Database } from './context.ts';
import { decodeCursor, encodeCursor, type CursorList } from './cursors.ts';
import { isUuid } from '../domain/uuid.ts';
import { Value } from 'typebox/value';
import type { Role } from '../domain/access.ts';

export type { AuditFilters };

/**
 * The tables whose entries describe the staff and the ways in (users, API keys, impersonations):
 * only admins and full keys read them in the log and its export; every other reader's list, total
 * and cursor leave them out (docs/security.md).
 */
export const STAFF_TABLES = ['users', 'api_keys', 'impersonations'];

/** What a reader may not see of the log: the staff tables, unless an admin or a full key. */
export function hiddenTablesFor(reader: { scope: 'read' | 'full' | null; role: Role | null }): string[] {
  return reader.scope === 'full' || reader.role === 'admin' ? [] : STAFF_TABLES;
}

export interface AuditRequest extends AuditFilters, PageRequest {
  /**
   * next_cursor of a previous page: the page starts after it (offset must then be 0), with the
   * cursor's filters (the request's, if any, must be the same)
   */
  cursor?: string;
}

/** A page of the list; its items as JSON text, written by the database (present.ts auditPageJson writes the body). */
export interface AuditPage extends PageRequest {
  /** the items, a JSON array of AuditLogEntry */
  itemsJson: string;
  /** how many items */
  count: number;
  total: number;
  /** where the next page starts; null on the last page */
  next_cursor: string | null;
}

/** The fields of an entry, as the record declares them (src/domain/records.ts). */
export const AUDIT_FIELDS: AuditField[] = Object.entries(AuditLogEntry.properties).map(([name, schema]) => ({
  name: name as AuditField['name'],
  instant: (schema as { format?: string }).format === 'date-time',
}));

export async function listAudit(
  db: Database,
  ctx: ActorContext,
  req: AuditRequest,
  hiddenTables: string[],
): Promise<AuditPage> {
  let filters = visible(hiddenTables, {
    tableName: req.tableName,
    action: req.action,
    recordId: req.recordId?.toLowerCase(),
  });
  let position = req.offset;
  let after: AuditKey | undefined;
  if (req.cursor !== undefined) {
    if (req.offset !== 0) {
      throw invalid('/offset', 'give a cursor or an offset, not both: the cursor already says where the page starts');
    }
    const c = decodeCursor(AUDIT_CURSORS, ctx.businessId, req.cursor, filterValues(filters));
    const [tableName, action, recordId] = c.filters;
    filters = visible(hiddenTables, { tableName, action: action as AuditFilters['action'], recordId });
    after = { changedAt: c.after.at, id: c.after.id };
    position = c.position;
  }
  const slice = await auditPage(
    await readsOf(db, ctx),
    ctx.businessId,
    filters,
    { limit: req.limit, offset: after ? 0 : position, ...(after ? { after } : {}) },
    AUDIT_FIELDS,
  );
  return {
    itemsJson: slice.itemsJson,
    count: slice.count,
    total: slice.total,
    limit: req.limit,
    // with a cursor: how many entries came before this page when the cursor was made
    offset: position,
    next_cursor: slice.next ? auditCursor(ctx.businessId, filters, slice.next, position + slice.count) : null,
  };
}

/** The filters of a request, and the tables its reader may not see. */
function visible(hiddenTables: string[], f: Omit<AuditFilters, 'hiddenTables'>): AuditFilters {
  return {
    ...(hiddenTables.length > 0 ? { hiddenTables } : {}),
    ...(f.tableName !== undefined ? { tableName: f.tableName } : {}),
    ...(f.action !== undefined ? { action: f.action } : {}),
    ...(f.recordId !== undefined ? { recordId: f.recordId } : {}),
  };
}

/** The filters a cursor carries, in order (the hidden tables are the reader's, not the cursor's). */
const filterValues = (f: AuditFilters) => [f.tableName, f.action, f.recordId];

const AUDIT_CURSORS: CursorList = {
  list: 'audit',
  version: 'a2',
  legacy: 'a1',
  // as GET /api/logs takes table_name, action and record_id (a record id lower-cased)
  accepts: [
    (t) => t.length >= 1 && t.length <= 63,
    (a) => Value.Check(AuditLogEntry.properties.action, a),
    (r) => isUuid(r) && r === r.toLowerCase(),
  ],
  otherListing: '(another business, or other filters): send it alone, or with the filters of the page that gave it',
};

/** The cursor of the page after this entry, `position` entries in (the benches jump to a depth with it). */
export const auditCursor = (businessId: string, f: AuditFilters, key: AuditKey, position: number) =>
  encodeCursor(AUDIT_CURSORS, businessId, filterValues(f), { at: key.changedAt, id: key.id }, position);
