// The payments table, scoped to one business: one row per payment request (the group of its
// ledger slices, which carry its id). Written with the slices by creditChanges.ts.
import type { Executor } from '../connection.ts';
import type { Payment } from '../schema.ts';

/** A credit's payments in the order they apply: by date, then as they were made. */
export function paymentsOfCredit(db: Executor, businessId: string, creditId: string): Promise<Payment[]> {
  return db
    .selectFrom('payments')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('credit_id', '=', creditId)
    .orderBy('paid_on')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function getPayment(db: Executor, businessId: string, creditId: string, id: string) {
  return db
    .selectFrom('payments')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('credit_id', '=', creditId)
    .where('id', '=', id)
    .executeTakeFirst();
}
