// The credits table, scoped to one business: reads, the row lock every writer of a credit takes,
// writes, the list, and the daily run's batches and automatic write-off.
import { sql, type Insertable, type RawBuilder } from 'kysely';
import type { Executor } from '../connection.ts';
import { pageOf, type Page, type PageRequest } from './page.ts';
import { postedThrough } from './creditAccruals.ts';
import type { Credit, CreditConfig, CreditStatus, CreditsTable } from '../schema.ts';

export type NewCredit = Omit<
  Insertable<CreditsTable>,
  'business_id' | 'id' | 'sequential_id' | 'created_at' | 'updated_at'
>;

export function getCredit(db: Executor, businessId: string, id: string): Promise<Credit | undefined> {
  return db
    .selectFrom('credits')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The credit row, locked until the transaction ends: payments, write-off, refinance and the daily run on one credit queue up here. */
export function lockCredit(db: Executor, businessId: string, id: string): Promise<Credit | undefined> {
  return db
    .selectFrom('credits')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

// The share locks a new credit takes on what it names. They read other tables (credit_configs,
// branches) but belong to granting a credit: the plan and branch services own those tables' rules.

/** Read with a share lock: the plan cannot be deactivated or edited until this transaction ends. */
export function sharePlan(db: Executor, businessId: string, id: string): Promise<CreditConfig | undefined> {
  return db
    .selectFrom('credit_configs')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .forShare()
    .executeTakeFirst();
}

export function insertCredit(
  db: Executor,
  businessId: string,
  sequentialId: number,
  values: NewCredit,
): Promise<Credit> {
  return db
    .insertInto('credits')
    .values({ ...values, business_id: businessId, sequential_id: sequentialId })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function updateCredit(
  db: Executor,
  businessId: string,
  id: string,
  patch: { status?: CreditStatus; write_off_reason?: string | null; written_off_at?: Date },
): Promise<Credit> {
  return db
    .updateTable('credits')
    .set({ ...patch, updated_at: sql`now()` })
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

// ---- lists ----

export interface CreditFilter {
  status?: CreditStatus;
  clientId?: string;
  branchId?: string;
}

export async function listCredits(
  db: Executor,
  businessId: string,
  f: CreditFilter & PageRequest,
): Promise<Page<Credit>> {
  let base = db.selectFrom('credits').where('business_id', '=', businessId);
  if (f.status) base = base.where('status', '=', f.status);
  if (f.clientId) base = base.where('client_id', '=', f.clientId);
  if (f.branchId) base = base.where('branch_id', '=', f.branchId);
  return pageOf(base, (q) => q.selectAll().orderBy('sequential_id', 'desc'), f);
}

// ---- the daily run ----

export interface AccrualCandidate {
  id: string;
  status: CreditStatus;
  written_off_at: Date | null;
  write_off_days: number;
  daily_punitory_rate: string;
  punitory_mode: Credit['punitory_mode'];
  grace_days: number;
  max_punitory_days: number;
  punitory_cap_pct: string;
  branch_id: string | null;
}

/**
 * The next batch of credits the run has to look at as of `asOf`, locked. A credit qualifies
 * when it is active or written off, has an unpaid installment due before asOf and has not been
 * accrued through asOf (a written-off one only until its write-off date). SKIP LOCKED: a credit
 * a payment or another run holds is left to them; keyset order on id so each credit is seen
 * once a run. `lastId` is where the next batch starts (null: nothing left).
 */
export async function lockAccrualBatch(
  db: Executor,
  businessId: string,
  o: { asOf: string; timezone: string; afterId: string | null; limit: number },
): Promise<{ credits: AccrualCandidate[]; lastId: string | null }> {
  const after = o.afterId ?? '00000000-0000-0000-0000-000000000000';
  const r = await sql<AccrualCandidate>`
    SELECT c.id, c.status, c.written_off_at, c.write_off_days, c.daily_punitory_rate,
           c.punitory_mode, c.grace_days, c.max_punitory_days, c.punitory_cap_pct, c.branch_id
      FROM credits c
      LEFT JOIN credit_accruals a ON a.business_id = c.business_id AND a.credit_id = c.id
     WHERE c.business_id = ${businessId}
       AND c.id > ${after}::uuid
       AND c.status IN ('active', 'written_off')
       AND (a.posted_through IS NULL OR a.posted_through < ${o.asOf}::date)
       AND (c.status = 'active' OR a.posted_through IS NULL
            OR a.posted_through < (c.written_off_at AT TIME ZONE ${o.timezone})::date)
       AND EXISTS (SELECT 1 FROM installments i
                    WHERE i.business_id = c.business_id AND i.credit_id = c.id
                      AND i.status <> 'paid' AND i.due_date < ${o.asOf}::date)
     ORDER BY c.id
     LIMIT ${o.limit}
     FOR UPDATE OF c SKIP LOCKED`.execute(db);
  if (r.rows.length === 0) return { credits: [], lastId: null };
  // The watermark above was read in the statement's snapshot. A payment that held a credit's
  // lock and committed just before this statement locked it may have moved it since (it writes
  // credit_accruals, not the credits row, so no re-check happened): read it again now that the
  // locks are held, and leave out what is already accrued through asOf.
  const ids = r.rows.map((c) => c.id);
  const fresh = await postedThrough(db, businessId, ids);
  return {
    credits: r.rows.filter((c) => {
      const pt = fresh.get(c.id);
      return pt === undefined || pt < o.asOf;
    }),
    lastId: ids[ids.length - 1]!,
  };
}

/**
 * Automatic write-off (DOMAIN.md): every active credit accrued through asOf with an unpaid
 * installment at least write_off_days late as of asOf. Credits another transaction holds are
 * skipped (SKIP LOCKED): the next run gets them. `at` is when it happened: the run's now for
 * today's run; null for a run on a past date, which writes them off at the last instant of the
 * as-of day (business time zone), so the write-off date is that day either way.
 */
export async function writeOffOverdue(
  db: Executor,
  businessId: string,
  o: { asOf: string; timezone: string; at: Date | null },
): Promise<string[]> {
  const when = o.at
    ? sql`${o.at}::timestamptz`
    : sql`((${o.asOf}::date + 1)::timestamp AT TIME ZONE ${o.timezone}) - interval '1 microsecond'`;
  const rule = (c: RawBuilder<unknown>) => sql<boolean>`
         ${c}.status = 'active'
         AND ${c}.write_off_days > 0
         AND EXISTS (SELECT 1 FROM credit_accruals a
                      WHERE a.business_id = ${c}.business_id AND a.credit_id = ${c}.id AND a.posted_through >= ${o.asOf}::date)
         AND EXISTS (SELECT 1 FROM installments i
                      WHERE i.business_id = ${c}.business_id AND i.credit_id = ${c}.id
                        AND i.status <> 'paid' AND i.due_date <= ${o.asOf}::date - ${c}.write_off_days)`;
  const locked = await sql<{ id: string }>`
    SELECT c.id FROM credits c
     WHERE c.business_id = ${businessId} AND ${rule(sql.raw('c'))}
     ORDER BY c.id
     FOR UPDATE OF c SKIP LOCKED`.execute(db);
  if (locked.rows.length === 0) return [];
  // checked again in a statement of its own, now that the locks are held: a payment that
  // committed just before the lock was taken (paying the late installment) is seen
  const r = await sql<{ id: string }>`
    UPDATE credits c
       SET status = 'written_off',
           written_off_at = ${when},
           write_off_reason = 'automatic: an installment reached ' || c.write_off_days || ' days late (write_off_days)',
           updated_at = now()
     WHERE c.business_id = ${businessId}
       AND c.id = ANY(${sql.val(locked.rows.map((x) => x.id))}::uuid[])
       AND ${rule(sql.raw('c'))}
    RETURNING c.id`.execute(db);
  return r.rows.map((x) => x.id);
}
