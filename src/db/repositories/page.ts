// One page of a listing and the number of rows that match it: the shape of every paged list.
import { sql, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import type { InstantBound } from '../../domain/instants.ts';

export interface PageRequest {
  limit: number;
  offset: number;
}

export interface Page<T> extends PageRequest {
  items: T[];
  /** rows matching the filters, all pages */
  total: number;
}

/** base holds the filters; rows selects and orders the items from it. Items and count are read side by side. */
export async function pageOf<DB, TB extends keyof DB, O, T>(
  base: SelectQueryBuilder<DB, TB, O>,
  rows: (q: SelectQueryBuilder<DB, TB, O>) => SelectQueryBuilder<DB, TB, T>,
  req: PageRequest,
): Promise<Page<T>> {
  // the count's row type cannot be resolved over a generic table: it is { n } by construction
  const count = base.select((eb) => eb.fn.countAll().as('n')) as unknown as Counted;
  return pageOfParts(rows(base).limit(req.limit).offset(req.offset), count, req);
}

type Counted = { executeTakeFirstOrThrow(): Promise<{ n: number | string | bigint }> };

/**
 * A page whose items and count are two statements of their own (read side by side): items already
 * limited and offset as req says, count one row { n }.
 */
export async function pageOfParts<T>(
  items: { execute(): Promise<T[]> },
  count: Counted,
  { limit, offset }: PageRequest,
): Promise<Page<T>> {
  const [rows, n] = await Promise.all([items.execute(), count.executeTakeFirstOrThrow()]);
  return { items: rows, total: Number(n.n), limit, offset };
}

/** updated_since of the lists (docs/api.md, "Sync with updated_since"): updated_at at or after the instant. */
export function updatedSince(b: InstantBound): RawBuilder<boolean> {
  const at = sql`${b.instant}::timestamptz`;
  return b.exclusive ? sql<boolean>`updated_at > ${at}` : sql<boolean>`updated_at >= ${at}`;
}
