// Waivers (migration 047), scoped to one business: why and by whom a waiver ledger entry was written.
import type { Executor } from '../connection.ts';
import type { WaiverRow } from '../schema.ts';

export type { WaiverRow };

/** A waiver with the number of the installment it was written on. */
export type WaiverListed = WaiverRow & { installment_number: number };

export function insertWaiver(
  db: Executor,
  businessId: string,
  row: Omit<WaiverRow, 'business_id' | 'created_at'>,
): Promise<WaiverRow> {
  return db
    .insertInto('waivers')
    .values({ ...row, business_id: businessId })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The waivers of one credit, newest first (ties by id), each with its installment's number. */
export function waiversOfCredit(db: Executor, businessId: string, creditId: string): Promise<WaiverListed[]> {
  return db
    .selectFrom('waivers as w')
    .innerJoin('installments as i', (j) =>
      j.onRef('i.business_id', '=', 'w.business_id').onRef('i.id', '=', 'w.installment_id'),
    )
    .selectAll('w')
    .select('i.number as installment_number')
    .where('w.business_id', '=', businessId)
    .where('w.credit_id', '=', creditId)
    .orderBy('w.created_at', 'desc')
    .orderBy('w.id', 'desc')
    .execute();
}
