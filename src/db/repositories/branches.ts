import { sql } from 'kysely';
import type { Branch } from '../schema.ts';
import type { Executor } from '../connection.ts';

/** `lock`: locked as the UPDATE that follows would lock it, until the transaction ends (an edit reads what it changes). */
export function getBranch(
  db: Executor,
  businessId: string,
  id: string,
  opts: { lock?: boolean } = {},
): Promise<Branch | undefined> {
  return db
    .selectFrom('branches')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .$if(opts.lock === true, (q) => q.forNoKeyUpdate())
    .executeTakeFirst();
}

export function insertBranch(
  db: Executor,
  businessId: string,
  input: { name: string; address?: string | null; phone?: string | null },
) {
  return db
    .insertInto('branches')
    .values({ business_id: businessId, name: input.name, address: input.address ?? null, phone: input.phone ?? null })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function updateBranch(
  db: Executor,
  businessId: string,
  id: string,
  patch: { name?: string; address?: string | null; phone?: string | null },
) {
  return db
    .updateTable('branches')
    .set({ ...patch, updated_at: sql`now()` })
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** Soft delete; deleting again keeps the first deleted_at. */
export async function softDeleteBranch(db: Executor, businessId: string, id: string): Promise<Branch | undefined> {
  await db
    .updateTable('branches')
    .set({ deleted_at: sql`now()`, updated_at: sql`now()` })
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .execute();
  return getBranch(db, businessId, id);
}

/** Read with a share lock: the branch cannot be deleted until this transaction ends. */
/** Several branches read with a share lock (shareBranch for a batch). */
export function shareBranches(db: Executor, businessId: string, ids: string[]): Promise<Branch[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('branches')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('id', '=', sql<string>`ANY(${sql.val(ids)}::uuid[])`)
    .orderBy('id')
    .forShare()
    .execute();
}

export function shareBranch(db: Executor, businessId: string, id: string): Promise<Branch | undefined> {
  return db
    .selectFrom('branches')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .forShare()
    .executeTakeFirst();
}
