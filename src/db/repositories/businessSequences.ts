// The per-business counters (business_sequences).
import { sql } from 'kysely';
import type { Executor } from '../connection.ts';

/**
 * The next per-business credit number. The row lock it takes lasts until the credit's
 * transaction ends, so numbers are given in commit order and a rolled-back credit gives its
 * number back: 1, 2, 3 … with no gap and no repeat.
 */
export async function nextCreditSequence(db: Executor, businessId: string): Promise<number> {
  const row = await db
    .insertInto('business_sequences')
    .values({ business_id: businessId, last_credit_seq: 1 })
    .onConflict((oc) =>
      oc.column('business_id').doUpdateSet({ last_credit_seq: sql`business_sequences.last_credit_seq + 1` }),
    )
    .returning('last_credit_seq')
    .executeTakeFirstOrThrow();
  return row.last_credit_seq;
}
