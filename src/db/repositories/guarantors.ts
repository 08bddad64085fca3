// Guarantors and co-borrowers of credits (migration 038), scoped to one business.
import type { Executor } from '../connection.ts';
import type { GuarantorRow } from '../schema.ts';

export type { GuarantorRow };

export function insertGuarantors(
  db: Executor,
  businessId: string,
  rows: { credit_id: string; client_id: string; role: GuarantorRow['role']; created_by: string }[],
): Promise<GuarantorRow[]> {
  if (rows.length === 0) return Promise.resolve([]);
  return db
    .insertInto('credit_guarantors')
    .values(rows.map((r) => ({ ...r, business_id: businessId })))
    .returningAll()
    .execute();
}

/** A credit's guarantors, oldest first. */
export function guarantorsOfCredit(db: Executor, businessId: string, creditId: string): Promise<GuarantorRow[]> {
  return db
    .selectFrom('credit_guarantors')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('credit_id', '=', creditId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function findGuarantor(
  db: Executor,
  businessId: string,
  creditId: string,
  clientId: string,
): Promise<GuarantorRow | undefined> {
  return db
    .selectFrom('credit_guarantors')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('credit_id', '=', creditId)
    .where('client_id', '=', clientId)
    .executeTakeFirst();
}

/** Removes one guarantor of the credit; undefined when the credit has no such guarantor. */
export function deleteGuarantor(
  db: Executor,
  businessId: string,
  creditId: string,
  id: string,
): Promise<GuarantorRow | undefined> {
  return db
    .deleteFrom('credit_guarantors')
    .where('business_id', '=', businessId)
    .where('credit_id', '=', creditId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}
