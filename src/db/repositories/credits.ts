// Writes and locked reads of the lending engine: credits, installments and ledger entries.
// Every query is scoped to one business. Reads without locks live in book.ts.
import { sql, type Insertable, type RawBuilder } from 'kysely';
import type { Executor } from '../connection.ts';
import { ledgerOfCredits } from './book.ts';
import type {
  Branch,
  Credit,
  CreditConfig,
  CreditStatus,
  CreditsTable,
  Installment,
  InstallmentStatus,
  InstallmentsTable,
  LedgerEntry,
  LedgerTable,
} from '../schema.ts';

export type NewCredit = Omit<Insertable<CreditsTable>, 'business_id' | 'id' | 'sequential_id' | 'created_at' | 'updated_at'>;
export type NewInstallment = Omit<Insertable<InstallmentsTable>, 'business_id' | 'id' | 'created_at' | 'updated_at'>;
export type NewLedgerEntry = Omit<Insertable<LedgerTable>, 'business_id' | 'id' | 'created_at'> & { punitory_part?: string | number };

/** The credit row, locked until the transaction ends: payments, write-off, refinance and the daily run on one credit queue up here. */
export function lockCredit(db: Executor, businessId: string, id: string): Promise<Credit | undefined> {
  return db.selectFrom('credits').selectAll().where('business_id', '=', businessId).where('id', '=', id).forUpdate().executeTakeFirst();
}

/** Read with a share lock: the plan cannot be deactivated or edited until this transaction ends. */
export function sharePlan(db: Executor, businessId: string, id: string): Promise<CreditConfig | undefined> {
  return db.selectFrom('credit_configs').selectAll().where('business_id', '=', businessId).where('id', '=', id).forShare().executeTakeFirst();
}

/** Read with a share lock: the branch cannot be deleted until this transaction ends. */
export function shareBranch(db: Executor, businessId: string, id: string): Promise<Branch | undefined> {
  return db.selectFrom('branches').selectAll().where('business_id', '=', businessId).where('id', '=', id).forShare().executeTakeFirst();
}

/**
 * The next per-business credit number. The row lock it takes lasts until the credit's
 * transaction ends, so numbers are given in commit order and a rolled-back credit gives its
 * number back: 1, 2, 3 … with no gap and no repeat.
 */
export async function nextCreditSequence(db: Executor, businessId: string): Promise<number> {
  const row = await db
    .insertInto('business_sequences')
    .values({ business_id: businessId, last_credit_seq: 1 })
    .onConflict((oc) => oc.column('business_id').doUpdateSet({ last_credit_seq: sql`business_sequences.last_credit_seq + 1` }))
    .returning('last_credit_seq')
    .executeTakeFirstOrThrow();
  return row.last_credit_seq;
}

export function insertCredit(db: Executor, businessId: string, sequentialId: number, values: NewCredit): Promise<Credit> {
  return db
    .insertInto('credits')
    .values({ ...values, business_id: businessId, sequential_id: sequentialId })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function insertInstallments(db: Executor, businessId: string, rows: NewInstallment[]): Promise<Installment[]> {
  if (rows.length === 0) return Promise.resolve([]);
  return db
    .insertInto('installments')
    .values(rows.map((r) => ({ ...r, business_id: businessId })))
    .returningAll()
    .execute()
    .then((r) => r.sort((a, b) => a.number - b.number));
}

/** One multi-row INSERT; entries come back in the order given (created_at is clock_timestamp()). */
export async function insertLedger(db: Executor, businessId: string, rows: NewLedgerEntry[]): Promise<LedgerEntry[]> {
  if (rows.length === 0) return [];
  const out: LedgerEntry[] = [];
  // 10 parameters a row: stay well under PostgreSQL's 65,535 bind parameters
  for (let i = 0; i < rows.length; i += 5000) {
    const chunk = rows.slice(i, i + 5000);
    const inserted = await db
      .insertInto('ledger')
      .values(chunk.map((r) => ({ ...r, business_id: businessId }) as never))
      .returningAll()
      .execute();
    out.push(...inserted);
  }
  return out;
}

export function installmentsOfCredit(db: Executor, businessId: string, creditId: string): Promise<Installment[]> {
  return db
    .selectFrom('installments')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('credit_id', '=', creditId)
    .orderBy('number')
    .execute();
}

export function ledgerOfCredit(db: Executor, businessId: string, creditId: string): Promise<LedgerEntry[]> {
  return ledgerOfCredits(db, businessId, [creditId]);
}

export async function hasPayments(db: Executor, businessId: string, creditId: string): Promise<boolean> {
  const row = await db
    .selectFrom('ledger')
    .select('id')
    .where('business_id', '=', businessId)
    .where('credit_id', '=', creditId)
    .where('type', '=', 'payment')
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export function setInstallmentState(db: Executor, businessId: string, id: string, status: InstallmentStatus, paidDate: string | null) {
  return db
    .updateTable('installments')
    .set({ status, paid_date: paidDate, updated_at: sql`now()` })
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .execute();
}

export function updateCredit(
  db: Executor,
  businessId: string,
  id: string,
  patch: { status?: CreditStatus; write_off_reason?: string | null; written_off_now?: boolean },
): Promise<Credit> {
  const { written_off_now, ...rest } = patch;
  return db
    .updateTable('credits')
    .set({ ...rest, ...(written_off_now ? { written_off_at: sql`now()` } : {}), updated_at: sql`now()` })
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

// ---- how far punitory is posted (credit_accruals, not audited: derived from the ledger) ----

/**
 * The date punitory is posted through on each of these credits (absent: never posted). Read it
 * while holding the credits' row locks: every writer holds them, so the value cannot move.
 */
export async function postedThrough(db: Executor, businessId: string, creditIds: string[]): Promise<Map<string, string>> {
  if (creditIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('credit_accruals')
    .select(['credit_id', 'posted_through'])
    .where('business_id', '=', businessId)
    .where('credit_id', '=', sql<string>`ANY(${sql.val(creditIds)}::uuid[])`)
    .execute();
  return new Map(rows.map((r) => [r.credit_id, r.posted_through]));
}

/**
 * Marks these credits as accrued through `date`: one multi-row upsert, never moving a
 * watermark backwards. Touches no credits row, so no audit entry and no new updated_at.
 */
export async function markAccrued(db: Executor, businessId: string, creditIds: string[], date: string): Promise<void> {
  if (creditIds.length === 0) return;
  await db
    .insertInto('credit_accruals')
    .values(creditIds.map((id) => ({ business_id: businessId, credit_id: id, posted_through: date })))
    .onConflict((oc) =>
      oc.columns(['business_id', 'credit_id']).doUpdateSet({ posted_through: sql`greatest(credit_accruals.posted_through, excluded.posted_through)` }),
    )
    .execute();
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
  f: CreditFilter & { limit: number; offset: number },
): Promise<{ items: Credit[]; total: number }> {
  let base = db.selectFrom('credits').where('business_id', '=', businessId);
  if (f.status) base = base.where('status', '=', f.status);
  if (f.clientId) base = base.where('client_id', '=', f.clientId);
  if (f.branchId) base = base.where('branch_id', '=', f.branchId);
  const [items, count] = await Promise.all([
    base.selectAll().orderBy('sequential_id', 'desc').limit(f.limit).offset(f.offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { items, total: Number(count.n) };
}

export type WorklistRow = Installment & { client_id: string; credit_sequential_id: number };

/**
 * Installments for collections, most days late first. Cancelled (inactive) credits are out of
 * every figure; written-off ones stay (recoveries are collected too).
 */
export async function listInstallments(
  db: Executor,
  businessId: string,
  f: { today: string; overdue?: boolean; branchId?: string; creditId?: string; minDaysLate?: number; limit: number; offset: number },
): Promise<{ items: WorklistRow[]; total: number }> {
  let base = db
    .selectFrom('installments as i')
    .innerJoin('credits as c', (j) => j.onRef('c.business_id', '=', 'i.business_id').onRef('c.id', '=', 'i.credit_id'))
    .where('i.business_id', '=', businessId)
    .where('c.status', '<>', 'inactive');
  const overdue = sql<boolean>`(i.status <> 'paid' AND i.due_date < ${f.today}::date)`;
  if (f.overdue === true) base = base.where(overdue);
  if (f.overdue === false) base = base.where(sql<boolean>`NOT ${overdue}`);
  if (f.branchId) base = base.where('c.branch_id', '=', f.branchId);
  if (f.creditId) base = base.where('i.credit_id', '=', f.creditId);
  if (f.minDaysLate !== undefined && f.minDaysLate > 0) {
    const n = f.minDaysLate;
    base = base.where(
      sql<boolean>`(CASE WHEN i.status = 'paid' THEN coalesce(i.paid_date - i.due_date, 0)
                    ELSE ${f.today}::date - i.due_date END) >= ${n}`,
    );
  }
  const [items, count] = await Promise.all([
    base
      .selectAll('i')
      .select(['c.client_id', 'c.sequential_id as credit_sequential_id'])
      .orderBy('i.due_date')
      .orderBy('c.sequential_id')
      .orderBy('i.number')
      .limit(f.limit)
      .offset(f.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { items: items as WorklistRow[], total: Number(count.n) };
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

export type AccrualInstallment = Pick<Installment, 'id' | 'credit_id' | 'number' | 'amount' | 'due_date' | 'status' | 'paid_date'>;

/** The installments of these credits that can still accrue (not paid). */
export async function accrualInstallments(db: Executor, businessId: string, creditIds: string[]): Promise<AccrualInstallment[]> {
  if (creditIds.length === 0) return [];
  return db
    .selectFrom('installments')
    .select(['id', 'credit_id', 'number', 'amount', 'due_date', 'status', 'paid_date'])
    .where('business_id', '=', businessId)
    .where('credit_id', '=', sql<string>`ANY(${sql.val(creditIds)}::uuid[])`)
    .where('status', '<>', 'paid')
    .execute();
}

export interface InstallmentHistory {
  installment_id: string;
  punitory_posted: string;
  /** [effective_date, principal, punitory] of each payment slice, as text (never a float) */
  payments: [string, string, string][] | null;
}

/** Posted punitory and payment history of every installment of these credits, aggregated in one query. */
export async function installmentHistories(db: Executor, businessId: string, creditIds: string[]): Promise<InstallmentHistory[]> {
  if (creditIds.length === 0) return [];
  const r = await sql<InstallmentHistory>`
    SELECT l.installment_id,
           coalesce(sum(l.amount) FILTER (WHERE l.type = 'punitory'), 0)::text AS punitory_posted,
           json_agg(json_build_array(l.effective_date::text, (l.amount - l.punitory_part)::text, l.punitory_part::text)
                    ORDER BY l.effective_date, l.created_at) FILTER (WHERE l.type = 'payment') AS payments
      FROM ledger l
     WHERE l.business_id = ${businessId}
       AND l.credit_id = ANY(${sql.val(creditIds)}::uuid[])
       AND l.type <> 'installment'
     GROUP BY l.installment_id`.execute(db);
  return r.rows;
}

/**
 * Automatic write-off (DOMAIN.md): every active credit accrued through asOf with an unpaid
 * installment at least write_off_days late as of asOf. Credits another transaction holds are
 * skipped (SKIP LOCKED): the next run gets them. `at` is when it happened: now for today's run,
 * the last instant of the as-of day (business time zone) for a run on a past date, so the
 * write-off date is that day either way.
 */
export async function writeOffOverdue(
  db: Executor,
  businessId: string,
  o: { asOf: string; timezone: string; now: boolean },
): Promise<string[]> {
  const when = o.now ? sql`now()` : sql`((${o.asOf}::date + 1)::timestamp AT TIME ZONE ${o.timezone}) - interval '1 microsecond'`;
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

// ---- Idempotency-Key answers ----

export function findIdempotencyKey(db: Executor, businessId: string, key: string) {
  return db
    .selectFrom('idempotency_keys')
    .select(['request_hash', 'status_code', 'response'])
    .where('business_id', '=', businessId)
    .where('key', '=', key)
    .executeTakeFirst();
}

/** Stored in the transaction of the write it answers: both commit, or neither. */
export async function saveIdempotencyKey(
  db: Executor,
  businessId: string,
  v: { key: string; requestHash: string; statusCode: number; response: unknown },
): Promise<void> {
  await db
    .insertInto('idempotency_keys')
    .values({
      business_id: businessId,
      key: v.key,
      request_hash: v.requestHash,
      status_code: v.statusCode,
      response: sql`${JSON.stringify(v.response)}::jsonb`,
    })
    .execute();
}
