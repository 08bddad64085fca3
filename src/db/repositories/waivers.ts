// Waivers (migration 047), scoped to one business: why and by whom a waiver ledger entry was written.
import type { Executor } from '../connection.ts';
import type { WaiverRow } from '../schema.ts';

export type { WaiverRow };

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
