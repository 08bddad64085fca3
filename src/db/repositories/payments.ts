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

/** The business's payment with this channel and reference (reversed or not), if any. */
export function paymentByReference(
  db: Executor,
  businessId: string,
  channel: string | null,
  externalReference: string,
): Promise<Pick<Payment, 'id' | 'credit_id'> | undefined> {
  return db
    .selectFrom('payments')
    .select(['id', 'credit_id'])
    .where('business_id', '=', businessId)
    .where((eb) => (channel === null ? eb('channel', 'is', null) : eb('channel', '=', channel)))
    .where('external_reference', '=', externalReference)
    .executeTakeFirst();
}

/** Of these references, those the business already paid: "channel\u0000reference" → payment id. */
export async function paymentsByReferences(
  db: Executor,
  businessId: string,
  refs: { channel: string | null; externalReference: string }[],
): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  if (refs.length === 0) return found;
  const rows = await db
    .selectFrom('payments')
    .select(['id', 'channel', 'external_reference'])
    .where('business_id', '=', businessId)
    .where(
      'external_reference',
      'in',
      refs.map((r) => r.externalReference),
    )
    .execute();
  for (const r of rows) found.set(referenceKey(r.channel, r.external_reference!), r.id);
  return found;
}

export const referenceKey = (channel: string | null, externalReference: string) =>
  `${channel ?? ''}\u0000${externalReference}`;
