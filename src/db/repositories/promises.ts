// Promises to pay (migration 039), scoped to one business. What a promise's status is as of a day
// is one SQL expression (promiseStatus), used by every read, the worklist's filter and the daily
// run that settles promises for good: the rule of docs/collections.md in one place.
import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../connection.ts';
import type { PromiseRow, PromiseStatus } from '../schema.ts';

/**
 * What the credit's payments made since the promise (registered at or after its creation, dated up
 * to its promised_for, not reversed) add up to; `p` is the promise's alias.
 */
export const paidTowards = (p: string): RawBuilder<string> =>
  sql<string>`(SELECT coalesce(sum(y.amount), 0) FROM payments y
     WHERE y.business_id = ${sql.ref(`${p}.business_id`)} AND y.credit_id = ${sql.ref(`${p}.credit_id`)}
       AND y.reversed_at IS NULL AND y.paid_on <= ${sql.ref(`${p}.promised_for`)}
       AND y.created_at >= ${sql.ref(`${p}.created_at`)})`;

/**
 * A promise's status as of `today`: what is stored when it was decided for good (kept, broken,
 * cancelled); a pending one is kept once the payments since it reach its amount, broken once its
 * day has passed without, else still pending.
 */
export const promiseStatus = (p: string, today: string): RawBuilder<PromiseStatus> =>
  sql<PromiseStatus>`(CASE WHEN ${sql.ref(`${p}.status`)} <> 'pending' THEN ${sql.ref(`${p}.status`)}
     WHEN ${paidTowards(p)} >= ${sql.ref(`${p}.amount`)} THEN 'kept'
     WHEN ${sql.ref(`${p}.promised_for`)} < ${today}::date THEN 'broken'
     ELSE 'pending' END)`;

export interface NewPromise {
  credit_id: string;
  amount: string;
  promised_for: string;
  note: string | null;
  created_by: string;
}

export async function insertPromise(db: Executor, businessId: string, input: NewPromise): Promise<PromiseRow> {
  return db
    .insertInto('promises')
    .values({ ...input, business_id: businessId })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A promise with its status as of today. */
export function getPromise(
  db: Executor,
  businessId: string,
  creditId: string,
  id: string,
  today: string,
  forUpdate = false,
): Promise<PromiseRow | undefined> {
  const q = db
    .selectFrom('promises as p')
    .selectAll('p')
    .select(promiseStatus('p', today).as('status'))
    .where('p.business_id', '=', businessId)
    .where('p.credit_id', '=', creditId)
    .where('p.id', '=', id);
  return (forUpdate ? q.forUpdate() : q).executeTakeFirst();
}

/** A credit's promises, newest first, each with its status as of today. */
export function promisesOfCredit(
  db: Executor,
  businessId: string,
  creditId: string,
  today: string,
): Promise<PromiseRow[]> {
  return db
    .selectFrom('promises as p')
    .selectAll('p')
    .select(promiseStatus('p', today).as('status'))
    .where('p.business_id', '=', businessId)
    .where('p.credit_id', '=', creditId)
    .orderBy('p.created_at', 'desc')
    .orderBy('p.id', 'desc')
    .execute();
}

export function cancelPromise(db: Executor, businessId: string, id: string): Promise<PromiseRow> {
  return db
    .updateTable('promises')
    .set({ status: 'cancelled', cancelled_at: sql`now()`, updated_at: sql`now()` })
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * The daily run: every pending promise whose day is before `today` is decided for good, kept or
 * broken, in one statement. A promise another run decided meanwhile no longer matches (its row
 * is re-read under the lock), so each is decided, and announced, once.
 */
export async function settlePromises(db: Executor, businessId: string, today: string): Promise<PromiseRow[]> {
  const r = await sql<PromiseRow>`
    UPDATE promises p
       SET status = CASE WHEN ${paidTowards('p')} >= p.amount THEN 'kept' ELSE 'broken' END,
           broken_at = CASE WHEN ${paidTowards('p')} >= p.amount THEN NULL ELSE now() END,
           updated_at = now()
     WHERE p.business_id = ${businessId} AND p.status = 'pending' AND p.promised_for < ${today}::date
     RETURNING p.*`.execute(db);
  return r.rows;
}

/** These promises, each with its status as of today (the worklist's latest promises). */
export function promisesByIds(db: Executor, businessId: string, ids: string[], today: string): Promise<PromiseRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('promises as p')
    .selectAll('p')
    .select(promiseStatus('p', today).as('status'))
    .where('p.business_id', '=', businessId)
    .where('p.id', '=', sql<string>`ANY(${sql.val(ids)}::uuid[])`)
    .execute();
}
