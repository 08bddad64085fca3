// One-time set-password links (migration 015), found by the hash of their token.
import type { Executor } from '../connection.ts';

export type Account = { businessId: string; userId: string } | { operatorId: string };

const of = (a: Account) =>
  'operatorId' in a
    ? { business_id: null, user_id: null, operator_id: a.operatorId }
    : { business_id: a.businessId, user_id: a.userId, operator_id: null };

/** A new link for the account; the account's older unused links stop working. */
export async function issuePasswordToken(
  db: Executor,
  account: Account,
  tokenHash: string,
  now: Date,
  expiresAt: Date,
): Promise<void> {
  await voidPasswordTokens(db, account, now);
  await db
    .insertInto('password_tokens')
    .values({ token_hash: tokenHash, ...of(account), created_at: now, expires_at: expiresAt })
    .execute();
}

/** Marks every unused link of the account used (a password was set, or a new link replaces them). */
export async function voidPasswordTokens(db: Executor, account: Account, now: Date): Promise<void> {
  let q = db.updateTable('password_tokens').set({ used_at: now }).where('used_at', 'is', null);
  q =
    'operatorId' in account
      ? q.where('operator_id', '=', account.operatorId)
      : q.where('business_id', '=', account.businessId).where('user_id', '=', account.userId);
  await q.execute();
}

/** The link with this hash, locked until the transaction ends (two uses of one link take turns). */
export function lockPasswordToken(db: Executor, tokenHash: string) {
  return db
    .selectFrom('password_tokens')
    .select(['id', 'business_id', 'user_id', 'operator_id', 'expires_at', 'used_at'])
    .where('token_hash', '=', tokenHash)
    .forUpdate()
    .executeTakeFirst();
}

/** Links used or expired before `before`: nothing can use them; returns how many were deleted. */
export async function deleteOldPasswordTokens(db: Executor, before: Date): Promise<number> {
  const r = await db
    .deleteFrom('password_tokens')
    .where((eb) => eb.or([eb('expires_at', '<=', before), eb('used_at', '<=', before)]))
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}
