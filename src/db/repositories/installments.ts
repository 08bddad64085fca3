// The installments table, scoped to one business: a credit's schedule, its status updates, the
// collections worklist and what the daily run reads.
import { sql, type Insertable } from 'kysely';
import type { Executor } from '../connection.ts';
import { pageOf, type Page, type PageRequest } from './page.ts';
import { promiseStatus } from './promises.ts';
import { foldSql } from './clients.ts';
import type {
  Credit,
  CreditStatus,
  Installment,
  InstallmentStatus,
  InstallmentsTable,
  LedgerEntry,
} from '../schema.ts';

export type NewInstallment = Omit<Insertable<InstallmentsTable>, 'business_id' | 'id' | 'created_at' | 'updated_at'>;

/** A credit's schedule, by number. */
export function installmentsOfCredit(db: Executor, businessId: string, creditId: string): Promise<Installment[]> {
  return db
    .selectFrom('installments')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('credit_id', '=', creditId)
    .orderBy('number')
    .execute();
}

/**
 * A new credit's schedule and its 'installment' ledger entries (one each, in number order), in one
 * statement. Returns the installments by number and the entries in the order written.
 */
export async function insertSchedule(
  db: Executor,
  businessId: string,
  creditId: string,
  rows: Pick<
    NewInstallment,
    | 'number'
    | 'amount'
    | 'due_date'
    | 'principal'
    | 'interest'
    | 'vat'
    | 'insurance'
    | 'insurance_vat'
    | 'fees'
    | 'fees_vat'
    | 'tolerance_days'
  >[],
  entry: { effective_date: string; branch_id: string | null; created_by: string },
): Promise<{ installments: Installment[]; entries: LedgerEntry[] }> {
  if (rows.length === 0) return { installments: [], entries: [] };
  // each row: the installment's columns, and its entry's under l_ names
  const r = await sql<Record<string, unknown>>`
    WITH i AS (
      INSERT INTO installments (business_id, credit_id, number, amount, due_date, principal, interest, vat,
                                insurance, insurance_vat, fees, fees_vat, tolerance_days)
      SELECT ${businessId}::uuid, ${creditId}::uuid, r.number, r.amount, r.due_date, r.principal, r.interest, r.vat,
             coalesce(r.insurance, 0), coalesce(r.insurance_vat, 0), coalesce(r.fees, 0), coalesce(r.fees_vat, 0),
             coalesce(r.tolerance_days, 0)
        FROM json_to_recordset(${JSON.stringify(rows)}::json)
          AS r(number int, amount numeric, due_date date, principal numeric, interest numeric, vat numeric,
               insurance numeric, insurance_vat numeric, fees numeric, fees_vat numeric, tolerance_days int)
       ORDER BY r.number
      RETURNING *),
    l AS (
      INSERT INTO ledger (business_id, credit_id, installment_id, type, origin, amount, effective_date, branch_id, created_by)
      SELECT i.business_id, i.credit_id, i.id, 'installment', 'schedule', i.amount, ${entry.effective_date}::date,
             ${entry.branch_id}::uuid, ${entry.created_by}::text
        FROM i ORDER BY i.number
      RETURNING *)
    SELECT i.*, l.business_id AS l_business_id, l.id AS l_id, l.credit_id AS l_credit_id,
           l.installment_id AS l_installment_id, l.type AS l_type, l.amount AS l_amount,
           l.punitory_part AS l_punitory_part, l.vat_part AS l_vat_part, l.interest_part AS l_interest_part,
           l.fees_part AS l_fees_part, l.insurance_part AS l_insurance_part,
           l.origin AS l_origin, l.effective_date AS l_effective_date, l.payment_id AS l_payment_id,
           l.branch_id AS l_branch_id, l.created_by AS l_created_by, l.created_at AS l_created_at
      FROM i JOIN l ON l.installment_id = i.id
     ORDER BY i.number`.execute(db);
  const installments: Installment[] = [];
  const entries: LedgerEntry[] = [];
  for (const row of r.rows) {
    const inst: Record<string, unknown> = {};
    const entry: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(row)) {
      if (k.startsWith('l_')) entry[k.slice(2)] = v;
      else inst[k] = v;
    }
    installments.push(inst as Installment);
    entries.push(entry as LedgerEntry);
  }
  return { installments, entries };
}

export function setInstallmentState(
  db: Executor,
  businessId: string,
  id: string,
  status: InstallmentStatus,
  paidDate: string | null,
) {
  return db
    .updateTable('installments')
    .set({ status, paid_date: paidDate, updated_at: sql`now()` })
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .execute();
}

/** A worklist item: the installment, its client and credit number, and what its credit's punitory is computed from. */
export type WorklistRow = Installment &
  Pick<
    Credit,
    | 'client_id'
    | 'collector_id'
    | 'written_off_at'
    | 'daily_punitory_rate'
    | 'punitory_mode'
    | 'grace_days'
    | 'max_punitory_days'
    | 'punitory_cap_pct'
    | 'vat_rate'
  > & {
    credit_sequential_id: number;
    credit_status: CreditStatus;
    /** the credit's fees (its collection charge), as snapshotted when it was granted */
    credit_fees: Credit['fees'];
    client_name: string;
    /** the credit's latest promise that is not cancelled */
    latest_promise_id: string | null;
    /** the client's latest contact note */
    last_note_id: string | null;
  };

/** The worklist's orders (docs/api.md "Collections worklist"); ties go by due date, credit number, installment number. */
export const WORKLIST_SORTS = [
  'due_date',
  '-due_date',
  'days_late',
  '-days_late',
  'amount',
  '-amount',
  'client',
] as const;
export type WorklistSort = (typeof WORKLIST_SORTS)[number];

export interface WorklistFilter {
  today: string;
  overdue?: boolean;
  branchId?: string;
  creditId?: string;
  minDaysLate?: number;
  /** a user's credits, or 'none': credits without a collector */
  collector?: { userId: string } | 'none';
  /** the status of the credit's latest promise that is not cancelled; 'none': it has none */
  promise?: 'pending' | 'broken' | 'none';
  sort?: WorklistSort;
}

// the credit's latest promise that is not cancelled (promises_credit, backwards)
const latestPromise = (cols: string) =>
  sql.raw(`(SELECT ${cols} FROM promises lp WHERE lp.business_id = c.business_id AND lp.credit_id = c.id
     AND lp.status <> 'cancelled' ORDER BY lp.created_at DESC, lp.id DESC LIMIT 1)`);

/**
 * Installments for collections, most days late first unless `sort` says otherwise. Cancelled
 * (inactive) credits are out of every figure; written-off ones stay (recoveries are collected too).
 */
export async function listInstallments(
  db: Executor,
  businessId: string,
  f: WorklistFilter & PageRequest,
): Promise<Page<WorklistRow>> {
  let base = worklistBase(db, businessId).where('c.status', '<>', 'inactive');
  const overdue = sql<boolean>`(i.status <> 'paid' AND i.due_date < ${f.today}::date)`;
  const daysLate = sql<number>`(CASE WHEN i.status = 'paid' THEN coalesce(i.paid_date - i.due_date, 0)
                    ELSE ${f.today}::date - i.due_date END)`;
  if (f.overdue === true) base = base.where(overdue);
  if (f.overdue === false) base = base.where(sql<boolean>`NOT ${overdue}`);
  if (f.branchId) base = base.where('c.branch_id', '=', f.branchId);
  if (f.creditId) base = base.where('i.credit_id', '=', f.creditId);
  if (f.minDaysLate !== undefined && f.minDaysLate > 0)
    // on the overdue list every installment is unpaid, so days late is today − due date: said as a
    // bound on the due date, the count reads the range of the unpaid-by-due-date index, not every row
    base = base.where(
      f.overdue === true
        ? sql<boolean>`i.due_date <= ${f.today}::date - ${f.minDaysLate}::int`
        : sql<boolean>`${daysLate} >= ${f.minDaysLate}`,
    );
  if (f.collector === 'none') base = base.where('c.collector_id', 'is', null);
  else if (f.collector) base = base.where('c.collector_id', '=', f.collector.userId);
  if (f.promise === 'none') base = base.where(sql<boolean>`NOT EXISTS ${latestPromise('1')}`);
  else if (f.promise)
    base = base.where(
      sql<boolean>`(SELECT ${promiseStatus('lp', f.today)} FROM promises lp WHERE lp.business_id = c.business_id
         AND lp.credit_id = c.id AND lp.status <> 'cancelled' ORDER BY lp.created_at DESC, lp.id DESC LIMIT 1) = ${f.promise}`,
    );
  const sort = f.sort ?? 'due_date';
  const page = await pageOf(
    base,
    (q) => {
      let r = worklistColumns(q);
      if (sort === 'days_late') r = r.orderBy(daysLate);
      if (sort === '-days_late') r = r.orderBy(daysLate, 'desc');
      if (sort === 'amount') r = r.orderBy('i.amount');
      if (sort === '-amount') r = r.orderBy('i.amount', 'desc');
      if (sort === 'client')
        r = r.orderBy(foldSql(sql`coalesce(cl.last_name, '')`)).orderBy(foldSql(sql`coalesce(cl.first_name, '')`));
      if (sort === '-due_date') r = r.orderBy('i.due_date', 'desc');
      return inWorklistOrder(r);
    },
    f,
  );
  return page as Page<WorklistRow>;
}

// what a worklist item is built from: the installment, its credit's number and client, and the terms its punitory needs
const worklistBase = (db: Executor, businessId: string) =>
  db
    .selectFrom('installments as i')
    .innerJoin('credits as c', (j) => j.onRef('c.business_id', '=', 'i.business_id').onRef('c.id', '=', 'i.credit_id'))
    .innerJoin('clients as cl', (j) =>
      j.onRef('cl.business_id', '=', 'c.business_id').onRef('cl.id', '=', 'c.client_id'),
    )
    .where('i.business_id', '=', businessId);

function worklistColumns(q: ReturnType<typeof worklistBase>) {
  return q
    .selectAll('i')
    .select(['c.client_id', 'c.sequential_id as credit_sequential_id', 'c.status as credit_status', 'c.written_off_at'])
    .select(['c.collector_id', 'c.fees as credit_fees'])
    .select(sql<string>`trim(coalesce(cl.first_name, '') || ' ' || coalesce(cl.last_name, ''))`.as('client_name'))
    .select(latestPromise('lp.id').as('latest_promise_id'))
    .select(
      sql<
        string | null
      >`(SELECT n.id FROM client_notes n WHERE n.business_id = c.business_id AND n.client_id = c.client_id
         ORDER BY n.created_at DESC, n.id DESC LIMIT 1)`.as('last_note_id'),
    )
    .select([
      'c.daily_punitory_rate',
      'c.punitory_mode',
      'c.grace_days',
      'c.max_punitory_days',
      'c.punitory_cap_pct',
      // the punitory carries the credit's VAT
      'c.vat_rate',
    ]);
}

// the worklist's own order, and the ties of every sort: due date (most days late first), credit number, installment number
function inWorklistOrder<Q extends ReturnType<typeof worklistColumns>>(q: Q): Q {
  return q.orderBy('i.due_date').orderBy('c.sequential_id').orderBy('i.number') as Q;
}

/**
 * The unpaid installments of active credits due within from..to (both included; from null: every
 * one due up to to): those that became late on the days after them (the daily run's
 * installment.overdue).
 */
export async function newlyOverdue(
  db: Executor,
  businessId: string,
  range: { from: string | null; to: string },
): Promise<WorklistRow[]> {
  let q = worklistBase(db, businessId)
    .where('c.status', '=', 'active')
    .where('i.status', '<>', 'paid')
    .where('i.due_date', '<=', range.to);
  if (range.from !== null) q = q.where('i.due_date', '>=', range.from);
  const rows = await inWorklistOrder(worklistColumns(q)).execute();
  return rows as WorklistRow[];
}

/** The unpaid installments of active credits due on one of these days (the reminders of the daily run). */
export async function unpaidDueOn(db: Executor, businessId: string, days: string[]): Promise<WorklistRow[]> {
  if (days.length === 0) return [];
  const rows = await worklistColumns(
    worklistBase(db, businessId)
      .where('c.status', '=', 'active')
      .where('i.status', '<>', 'paid')
      .where('i.due_date', 'in', days),
  ).execute();
  return rows as WorklistRow[];
}

export type AccrualInstallment = Pick<
  Installment,
  'id' | 'credit_id' | 'number' | 'amount' | 'due_date' | 'status' | 'paid_date' | 'interest' | 'vat' | 'tolerance_days'
>;

/** The installments of these credits that can still accrue (not paid). */
export async function accrualInstallments(
  db: Executor,
  businessId: string,
  creditIds: string[],
): Promise<AccrualInstallment[]> {
  if (creditIds.length === 0) return [];
  return db
    .selectFrom('installments')
    .select([
      'id',
      'credit_id',
      'number',
      'amount',
      'due_date',
      'status',
      'paid_date',
      'interest',
      'vat',
      'tolerance_days',
    ])
    .where('business_id', '=', businessId)
    .where('credit_id', '=', sql<string>`ANY(${sql.val(creditIds)}::uuid[])`)
    .where('status', '<>', 'paid')
    .execute();
}
