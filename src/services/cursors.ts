// The opaque cursors of the lists that page by keyset (the audit log, the payment imports;
// docs/api.md, "Pagination"): a cursor holds its format's version, a fingerprint of the list,
// business and filters it was made for, the place of the last item seen (an instant and an id), how
// many items came before the next page, and the filters themselves, so that `?cursor=` alone
// continues the listing it came from (the same filters repeated are accepted too; other filters
// are refused). A cursor is accepted only exactly as this service wrote it.
//
// The earlier format (the fingerprint without the filters) is still read, with its filters
// repeated as before, so that walks begun before the change carry on.
import { createHash } from 'node:crypto';
import { invalid } from '../domain/errors.ts';
import { isUuid } from '../domain/uuid.ts';

/** The last item a page showed: its instant (microseconds, UTC) and its id. */
export interface CursorPlace {
  at: string;
  id: string;
}

/** A list's filters, in the list's order; undefined where not given. */
export type CursorFilters = (string | undefined)[];

/** A list that pages by cursor. */
export interface CursorList {
  /** the list's name (in the fingerprint) */
  list: string;
  /** the version of the cursors written now (they carry their filters) */
  version: string;
  /** the version of the earlier cursors (a fingerprint alone): read with their filters given again */
  legacy: string;
  /**
   * Whether each filter's value, read back from a cursor, is one its query parameter accepts (a
   * cursor is only base64 of JSON: what it carries is checked as a request's filters would be).
   */
  accepts: ((value: string) => boolean)[];
  /** the end of the message of a cursor given with other filters or by another business */
  otherListing: string;
}

const AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** The list, business and filters a cursor belongs to, as a fingerprint. */
function cursorScope(list: string, businessId: string, filters: CursorFilters): string {
  return createHash('sha256')
    .update([list, businessId.toLowerCase(), ...filters.map((f) => f ?? '')].join('\n'))
    .digest('base64url')
    .slice(0, 16);
}

/** The cursor of the page after `place`, `position` items into the list of these filters. */
export function encodeCursor(
  of: CursorList,
  businessId: string,
  filters: CursorFilters,
  place: CursorPlace,
  position: number,
): string {
  return Buffer.from(
    JSON.stringify([
      of.version,
      cursorScope(of.list, businessId, filters),
      place.at,
      place.id,
      position,
      filters.map((f) => f ?? null),
    ]),
  ).toString('base64url');
}

/**
 * The place, position and filters of a cursor of this list and business. `given` are the request's
 * filters: none at all continues with the cursor's own; any given must be exactly the cursor's. A
 * damaged cursor, or one made for another list, business or filters, is 400.
 */
export function decodeCursor(
  of: CursorList,
  businessId: string,
  cursor: string,
  given: CursorFilters,
): { after: CursorPlace; position: number; filters: CursorFilters } {
  const damaged = () =>
    invalid(
      '/cursor',
      'not a cursor this list gave (damaged or cut short): use next_cursor as it came, or start again',
    );
  const otherListing = () => invalid('/cursor', `this cursor belongs to another listing ${of.otherListing}`);
  let parsed: unknown;
  try {
    parsed = /^[A-Za-z0-9_-]+$/.test(cursor) ? JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) : null;
  } catch {
    throw damaged();
  }
  // only the exact text this service wrote (base64 decoding alone would ignore a stray character)
  if (!Array.isArray(parsed) || Buffer.from(JSON.stringify(parsed)).toString('base64url') !== cursor) throw damaged();
  const [v, from, at, id, position, carried] = parsed as unknown[];
  const current = v === of.version && parsed.length === 6;
  if (
    !(current || (v === of.legacy && parsed.length === 5)) ||
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
  let filters = given;
  if (current) {
    if (
      !Array.isArray(carried) ||
      carried.length !== of.accepts.length ||
      !carried.every((f, i) => f === null || (typeof f === 'string' && of.accepts[i]!(f)))
    )
      throw damaged();
    filters = (carried as (string | null)[]).map((f) => f ?? undefined);
    // another business's cursor (its fingerprint is not this business's)
    if (from !== cursorScope(of.list, businessId, filters)) throw otherListing();
    // filters given with the cursor must be the ones it continues
    if (given.some((f) => f !== undefined) && given.some((f, i) => f !== filters[i])) throw otherListing();
  } else if (from !== cursorScope(of.list, businessId, given)) throw otherListing();
  return { after: { at, id: id.toLowerCase() }, position: position as number, filters };
}

/** A real calendar instant (no 2024-02-30): what the database will accept. */
function validInstant(s: string): boolean {
  const ms = `${s.slice(0, 23)}Z`;
  const d = new Date(ms);
  return !Number.isNaN(d.getTime()) && d.toISOString() === ms;
}
