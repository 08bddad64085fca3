// How far punitory is posted on each credit (credit_accruals). Not audited: it is derived from
// the ledger, and marking a batch must not touch the audited credits row.
import { sql } from 'kysely';
import type { Executor } from '../connection.ts';

/**
 * The date punitory is posted through on each of these credits (absent: never posted). Read it
 * while holding the credits' row locks: every writer holds them, so the value cannot move.
 */
export async function postedThrough(
  db: Executor,
  businessId: string,
  creditIds: string[],
): Promise<Map<string, string>> {
  if (creditIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('credit_accruals')
    .select(['credit_id', 'posted_through'])
    .where('business_id', '=', businessId)
    .where('credit_id', '=', sql<string>`ANY(${sql.val(creditIds)}::uuid[])`)
    .execute();
  return new Map(rows.map((r) => [r.credit_id, r.posted_through]));
}

/**
 * Marks these credits as accrued through `date`: one multi-row upsert, never moving a
 * watermark backwards. Touches no credits row, so no audit entry and no new updated_at.
 */
export async function markAccrued(db: Executor, businessId: string, creditIds: string[], date: string): Promise<void> {
  if (creditIds.length === 0) return;
  await db
    .insertInto('credit_accruals')
    .values(creditIds.map((id) => ({ business_id: businessId, credit_id: id, posted_through: date })))
    .onConflict((oc) =>
      oc
        .columns(['business_id', 'credit_id'])
        .doUpdateSet({ posted_through: sql`greatest(credit_accruals.posted_through, excluded.posted_through)` }),
    )
    .execute();
}
