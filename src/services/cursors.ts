// The opaque cursors of the lists that page by keyset (the audit log, the payment imports;
// docs/api.md, "Pagination"): a cursor holds its format's version, a fingerprint of the business
// and filters it was made for, the place of the last item seen (an instant and an id) and how
// many items came before the next page. A cursor is accepted only exactly as this service wrote it.
import { createHash } from 'node:crypto';
import { invalid } from '../domain/errors.ts';
import { isUuid } from '../domain/uuid.ts';

/** The last item a page showed: its instant (microseconds, UTC) and its id. */
export interface CursorPlace {
  at: string;
  id: string;
}

const AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** The list, business and filters a cursor belongs to, as a fingerprint (the cursor names none of them). */
export function cursorScope(list: string, businessId: string, filters: (string | undefined)[]): string {
  return createHash('sha256')
    .update([list, businessId.toLowerCase(), ...filters.map((f) => f ?? '')].join('\n'))
    .digest('base64url')
    .slice(0, 16);
}

export function encodeCursor(version: string, scope: string, place: CursorPlace, position: number): string {
  return Buffer.from(JSON.stringify([version, scope, place.at, place.id, position])).toString('base64url');
}

/**
 * The place and position a cursor of this version and scope holds; a damaged cursor, or one made
 * for another list, business or filters, is 400 (`otherFilters` names what to send instead).
 */
export function decodeCursor(
  cursor: string,
  version: string,
  scope: string,
  otherFilters: string,
): { after: CursorPlace; position: number } {
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
  )
    throw damaged();
  const [v, from, at, id, position] = parsed as unknown[];
  if (
    v !== version ||
    typeof from !== 'string' ||
    typeof at !== 'string' ||
    !AT.test(at) ||
    !validInstant(at) ||
    typeof id !== 'string' ||
    !isUuid(id) ||
    !Number.isSafeInteger(position) ||
    (position as number) < 0
  )
    throw damaged();
  if (from !== scope) throw invalid('/cursor', `this cursor belongs to another listing ${otherFilters}`);
  return { after: { at, id: id.toLowerCase() }, position: position as number };
}

/** A real calendar instant (no 2024-02-30): what the database will accept. */
function validInstant(s: string): boolean {
  const ms = `${s.slice(0, 23)}Z`;
  const d = new Date(ms);
  return !Number.isNaN(d.getTime()) && d.toISOString() === ms;
}
