// The audit log (docs/api.md, "Audit log"): written by the database's triggers on every change, read here,
// newest first, by offset or by cursor (docs/api.md, "Sync with updated_since").
//
// A cursor is the place of the last entry a page showed (its changed_at to the microsecond and
// its id), the number of entries that came before the next page, and a fingerprint of the
// business and filters it was made for. The next page is the entries after that place in
// (changed_at, id) order, read straight from the filter's index: the same cost at any depth, and
// no entry is skipped or repeated when entries are written meanwhile (new entries are newer than
// any place already shown, so they never appear inside the pages still to come).
import { createHash } from 'node:crypto';
import { listAudit as auditPage, type AuditField, type AuditFilters, type AuditKey } from '../db/repositories/audit.ts';
import type { PageRequest } from '../db/repositories/page.ts';
import { invalid } from '../domain/errors.ts';
import { AuditLogEntry } from '../domain/records.ts';
import { isUuid } from '../domain/uuid.ts';
import { readsOf, type ActorContext, type Database } from './context.ts';
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
  /** next_cursor of a previous page: the page starts after it (offset must then be 0) */
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
  const filters: AuditFilters = {
    ...(hiddenTables.length > 0 ? { hiddenTables } : {}),
    ...(req.tableName !== undefined ? { tableName: req.tableName } : {}),
    ...(req.action !== undefined ? { action: req.action } : {}),
    ...(req.recordId !== undefined ? { recordId: req.recordId.toLowerCase() } : {}),
  };
  const scope = cursorScope(ctx.businessId, filters);
  let position = req.offset;
  let after: AuditKey | undefined;
  if (req.cursor !== undefined) {
    if (req.offset !== 0) {
      throw invalid('/offset', 'give a cursor or an offset, not both: the cursor already says where the page starts');
    }
    ({ after, position } = decodeCursor(req.cursor, scope));
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
    next_cursor: slice.next ? encodeCursor(scope, slice.next, position + slice.count) : null,
  };
}

const VERSION = 'a1';
const CHANGED_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** The business and filters a cursor belongs to, as a fingerprint (the cursor names neither). */
export function cursorScope(businessId: string, f: AuditFilters): string {
  return createHash('sha256')
    .update(['audit', businessId.toLowerCase(), f.tableName ?? '', f.action ?? '', f.recordId ?? ''].join('\n'))
    .digest('base64url')
    .slice(0, 16);
}

export function encodeCursor(scope: string, key: AuditKey, position: number): string {
  return Buffer.from(JSON.stringify([VERSION, scope, key.changedAt, key.id, position])).toString('base64url');
}

function decodeCursor(cursor: string, scope: string): { after: AuditKey; position: number } {
  const damaged = () =>
    invalid(
      '/cursor',
      'not a cursor this list gave (damaged or cut short): use next_cursor as it came, or start again',
    );
  let parsed: unknown;
  try {
    parsed = /^[A-Za-z0-9_-]+$/.test(cursor) ? JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) : null;
  } catch {
    throw damaged();
  }
  // only the exact text this service wrote (base64 decoding alone would ignore a stray character)
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 5 ||
    Buffer.from(JSON.stringify(parsed)).toString('base64url') !== cursor
  ) {
    throw damaged();
  }
  const [version, from, changedAt, id, position] = parsed as unknown[];
  if (
    version !== VERSION ||
    typeof from !== 'string' ||
    typeof changedAt !== 'string' ||
    !CHANGED_AT.test(changedAt) ||
    !validInstant(changedAt) ||
    typeof id !== 'string' ||
    !isUuid(id) ||
    !Number.isSafeInteger(position) ||
    (position as number) < 0
  ) {
    throw damaged();
  }
  if (from !== scope) {
    throw invalid(
      '/cursor',
      'this cursor belongs to another listing (another business, or other filters): send the filters of the page that gave it',
    );
  }
  return { after: { changedAt, id: id.toLowerCase() }, position: position as number };
}

/** A real calendar instant (no 2024-02-30): what the database will accept. */
function validInstant(s: string): boolean {
  const ms = `${s.slice(0, 23)}Z`;
  const d = new Date(ms);
  return !Number.isNaN(d.getTime()) && d.toISOString() === ms;
}
