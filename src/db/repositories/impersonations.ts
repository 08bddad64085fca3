// An operator acting as a user of a business, from start to stop (migration 020): rows of the
// business, audited by its trigger, so both ends are in the business's audit log.
import type { Executor } from '../connection.ts';

export async function startImpersonation(
  db: Executor,
  businessId: string,
  v: { operatorId: string; operatorEmail: string; userId: string; at: Date },
): Promise<string> {
  const r = await db
    .insertInto('impersonations')
    .values({
      business_id: businessId,
      operator_id: v.operatorId,
      operator_email: v.operatorEmail,
      user_id: v.userId,
      started_at: v.at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

/** Ends the impersonation (once: an ended one stays as it ended). */
export async function endImpersonation(db: Executor, businessId: string, id: string, at: Date): Promise<void> {
  await db
    .updateTable('impersonations')
    .set({ ended_at: at })
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .where('ended_at', 'is', null)
    .execute();
}
