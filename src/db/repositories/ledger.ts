// The ledger table, scoped to one business: entries are only ever inserted (corrections are new
// entries), read in the order they were written, and aggregated for the daily run.
import { sql, type Insertable, type RawBuilder } from 'kysely';
import type { Executor } from '../connection.ts';
import type { LedgerEntry, LedgerTable } from '../schema.ts';

export type NewLedgerEntry = Omit<Insertable<LedgerTable>, 'business_id' | 'id' | 'created_at'> & {
  punitory_part?: string | number;
  vat_part?: string | number;
  interest_part?: string | number;
  fees_part?: string | number;
  insurance_part?: string | number;
};

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

/**
 * The month close of these (locked) credits, in one statement: for each unpaid installment due
 * before `asOf`, the cumulative punitory as of `asOf` (punitory_cumulative, the SQL twin of
 * src/domain/punitory.ts, migration 005) minus what is posted, inserted as one punitory entry
 * effective `asOf`. Nothing of the rule runs in JS here: the database reads each installment's
 * payment history, computes and writes, so a close of a whole book is a few statements a batch.
 * No status changes: what is posted is never more than the figure as of a later date (the figure
 * grows with the date), so a close only ever adds punitory to unpaid installments.
 */
export async function postPunitoryThrough(
  db: Executor,
  businessId: string,
  creditIds: string[],
  o: { asOf: string; timezone: string; createdBy: string },
): Promise<{ entries: number; total: string; atStorableMax: string[]; ids: string[] }> {
  if (creditIds.length === 0) return { entries: 0, total: '0', atStorableMax: [], ids: [] };
  const ids = sql.val(creditIds);
  const r = await sql<{ entries: number; total: string; at_max: string[] | null; ids: string[] | null }>`
    WITH inst AS (
      SELECT i.id, i.credit_id, i.amount, i.due_date, c.branch_id, c.daily_punitory_rate, c.punitory_mode,
             greatest(c.grace_days, i.tolerance_days) AS grace_days, c.vat_rate,
             c.max_punitory_days, c.punitory_cap_pct, (c.written_off_at AT TIME ZONE ${o.timezone})::date AS stop_date
        FROM installments i
        JOIN credits c ON c.business_id = i.business_id AND c.id = i.credit_id
       WHERE i.business_id = ${businessId} AND i.credit_id = ANY(${ids}::uuid[])
         AND i.status <> 'paid' AND i.due_date < ${o.asOf}::date AND c.daily_punitory_rate > 0),
    h AS (
      SELECT l.installment_id,
             coalesce(sum(l.amount) FILTER (WHERE l.type = 'punitory'), 0) AS posted,
             coalesce(sum(l.vat_part) FILTER (WHERE l.type = 'punitory'), 0) AS vat_posted,
             array_agg(l.effective_date ORDER BY l.effective_date, l.created_at) FILTER (WHERE l.type = 'payment') AS paid_on,
             array_agg(l.amount - l.punitory_part - l.charge_part ORDER BY l.effective_date, l.created_at) FILTER (WHERE l.type = 'payment') AS principal,
             -- the punitory paid before its VAT (compound grows on that: lending/engine/state.ts netPunitoryPaid)
             array_agg(l.punitory_part / (1 + inst.vat_rate) ORDER BY l.effective_date, l.created_at) FILTER (WHERE l.type = 'payment') AS punitory
        FROM ledger l
        JOIN inst ON inst.id = l.installment_id
       WHERE l.business_id = ${businessId} AND l.credit_id = ANY(${ids}::uuid[]) AND l.type <> 'installment'
       GROUP BY l.installment_id),
    p AS (
      SELECT n.*, punitory_with_vat(n.net, n.vat_rate) AS cumulative
        FROM (SELECT inst.id, inst.credit_id, inst.branch_id, inst.vat_rate, coalesce(h.posted, 0) AS posted,
                     coalesce(h.vat_posted, 0) AS vat_posted,
                     punitory_cumulative(inst.amount, inst.due_date, ${o.asOf}::date, inst.stop_date, inst.daily_punitory_rate,
                       inst.punitory_mode, inst.grace_days, inst.max_punitory_days, inst.punitory_cap_pct,
                       h.paid_on, h.principal, h.punitory) AS net
                FROM inst LEFT JOIN h ON h.installment_id = inst.id) n),
    ins AS (
      -- the punitory with its VAT (vat_part: the VAT in it), as src/services/lending/engine/state.ts posts it
      INSERT INTO ledger (business_id, credit_id, installment_id, type, origin, amount, vat_part, effective_date,
                          branch_id, created_by)
      SELECT ${businessId}::uuid, p.credit_id, p.id, 'punitory', CASE WHEN p.cumulative < p.posted THEN 'correction' ELSE 'accrual' END,
             p.cumulative - p.posted, (p.cumulative - p.net) - p.vat_posted, ${o.asOf}::date, p.branch_id,
             ${o.createdBy}::text
        FROM p WHERE p.cumulative <> p.posted
      RETURNING id, amount)
    SELECT (SELECT count(*) FROM ins)::int AS entries,
           (SELECT array_agg(id::text) FROM ins) AS ids,
           (SELECT coalesce(sum(amount), 0) FROM ins)::text AS total,
           (SELECT array_agg(DISTINCT p.credit_id::text) FROM p WHERE p.cumulative >= 999999999999.99) AS at_max`.execute(
    db,
  );
  const row = r.rows[0]!;
  return { entries: Number(row.entries), total: row.total, atStorableMax: row.at_max ?? [], ids: row.ids ?? [] };
}

/**
 * The collection charges of the month close of these (locked) credits, in one statement
 * (docs/domain.md, "Fees and charges"; the SQL twin of src/domain/fees.ts collectionChargeOwed, the
 * fee's figures from collection_charge, migration 055): for each unpaid installment whose charge
 * day (due date + the credit's collection `after_days`) is on or before `asOf`, the charge it owes
 * (the fixed amount and its VAT when the fee says `vat`, if the payments dated before that day left
 * some of its amount unpaid and it was not written off before) minus what is posted, inserted
 * dated the charge day. Nothing is posted twice: an installment already charged has nothing left
 * to post.
 */
export async function postChargesThrough(
  db: Executor,
  businessId: string,
  creditIds: string[],
  o: { asOf: string; timezone: string; createdBy: string },
): Promise<{ entries: number; ids: string[] }> {
  if (creditIds.length === 0) return { entries: 0, ids: [] };
  const ids = sql.val(creditIds);
  const r = await sql<{ entries: number; ids: string[] | null }>`
    WITH inst AS (
      SELECT i.id, i.credit_id, i.amount, c.branch_id, i.due_date + f.after_days AS day,
             (c.written_off_at AT TIME ZONE ${o.timezone})::date AS stop_date,
             f.amount AS fee, f.vat AS fee_vat
        FROM installments i
        JOIN credits c ON c.business_id = i.business_id AND c.id = i.credit_id
        CROSS JOIN LATERAL collection_charge(c.fees, c.vat_rate) f
       WHERE i.business_id = ${businessId} AND i.credit_id = ANY(${ids}::uuid[])
         AND i.status <> 'paid' AND i.due_date + f.after_days <= ${o.asOf}::date),
    h AS (
      SELECT l.installment_id,
             coalesce(sum(l.amount) FILTER (WHERE l.type = 'charge'), 0) AS posted,
             coalesce(sum(l.vat_part) FILTER (WHERE l.type = 'charge'), 0) AS vat_posted,
             coalesce(sum(l.amount - l.punitory_part - l.charge_part)
                        FILTER (WHERE l.type = 'payment' AND l.effective_date < inst.day), 0) AS paid_before
        FROM ledger l
        JOIN inst ON inst.id = l.installment_id
       WHERE l.business_id = ${businessId} AND l.credit_id = ANY(${ids}::uuid[]) AND l.type IN ('charge', 'payment')
       GROUP BY l.installment_id),
    t AS (
      SELECT inst.*, coalesce(h.posted, 0) AS posted, coalesce(h.vat_posted, 0) AS vat_posted,
             (inst.stop_date IS NULL OR inst.day <= inst.stop_date) AND coalesce(h.paid_before, 0) < inst.amount
               AND inst.fee + inst.fee_vat > 0 AS owed
        FROM inst LEFT JOIN h ON h.installment_id = inst.id),
    ins AS (
      INSERT INTO ledger (business_id, credit_id, installment_id, type, origin, amount, vat_part, effective_date,
                          branch_id, created_by)
      SELECT ${businessId}::uuid, t.credit_id, t.id, 'charge',
             CASE WHEN t.owed THEN 'fee' ELSE 'correction' END,
             CASE WHEN t.owed THEN t.fee + t.fee_vat ELSE 0 END - t.posted,
             CASE WHEN t.owed THEN t.fee_vat ELSE 0 END - t.vat_posted, t.day, t.branch_id, ${o.createdBy}::text
        FROM t WHERE CASE WHEN t.owed THEN t.fee + t.fee_vat ELSE 0 END <> t.posted
      RETURNING id)
    SELECT (SELECT count(*) FROM ins)::int AS entries, (SELECT array_agg(id::text) FROM ins) AS ids`.execute(db);
  const row = r.rows[0]!;
  return { entries: Number(row.entries), ids: row.ids ?? [] };
}

/**
 * Oldest first. Entries recorded in the same instant (one statement; the embedded database's clock
 * ticks in milliseconds) keep the order they were written in: by effective date, then installment,
 * punitory, payment, then installment number.
 */
export function ledgerOfCredits(db: Executor, businessId: string, creditIds: string[]): Promise<LedgerEntry[]> {
  if (creditIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('ledger as l')
    .innerJoin('installments as i', (j) =>
      j.onRef('i.business_id', '=', 'l.business_id').onRef('i.id', '=', 'l.installment_id'),
    )
    .selectAll('l')
    .where('l.business_id', '=', businessId)
    .where('l.credit_id', 'in', creditIds)
    .orderBy('l.created_at')
    .orderBy('l.effective_date')
    .orderBy(sql`CASE l.type WHEN 'installment' THEN 0 WHEN 'punitory' THEN 1 ELSE 2 END`)
    .orderBy('i.number')
    .orderBy('l.id')
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

export interface InstallmentHistory {
  installment_id: string;
  punitory_posted: string;
  punitory_vat_posted: string;
  /** punitory waived; charges posted, their VAT, paid and waived (migration 047) */
  punitory_waived: string;
  charges_posted: string;
  charge_vat_posted: string;
  charges_paid: string;
  charges_waived: string;
  /** [effective_date, principal, punitory] of each payment slice, as text (never a float) */
  payments: [string, string, string][] | null;
}

/** Posted punitory and payment history of every installment of these credits, aggregated in one query. */
export function installmentHistories(
  db: Executor,
  businessId: string,
  creditIds: string[],
): Promise<InstallmentHistory[]> {
  if (creditIds.length === 0) return Promise.resolve([]);
  return histories(db, businessId, sql`l.credit_id = ANY(${sql.val(creditIds)}::uuid[])`);
}

/** The same, for these installments (a page of the worklist). */
export function historiesOfInstallments(
  db: Executor,
  businessId: string,
  installmentIds: string[],
): Promise<InstallmentHistory[]> {
  if (installmentIds.length === 0) return Promise.resolve([]);
  return histories(db, businessId, sql`l.installment_id = ANY(${sql.val(installmentIds)}::uuid[])`);
}

async function histories(db: Executor, businessId: string, which: RawBuilder<unknown>): Promise<InstallmentHistory[]> {
  const r = await sql<InstallmentHistory>`
    SELECT l.installment_id,
           coalesce(sum(l.amount) FILTER (WHERE l.type = 'punitory'), 0)::text AS punitory_posted,
           coalesce(sum(l.vat_part) FILTER (WHERE l.type = 'punitory'), 0)::text AS punitory_vat_posted,
           coalesce(-sum(l.punitory_part) FILTER (WHERE l.type = 'waiver'), 0)::text AS punitory_waived,
           coalesce(sum(l.amount) FILTER (WHERE l.type = 'charge'), 0)::text AS charges_posted,
           coalesce(sum(l.vat_part) FILTER (WHERE l.type = 'charge'), 0)::text AS charge_vat_posted,
           coalesce(sum(l.charge_part) FILTER (WHERE l.type = 'payment'), 0)::text AS charges_paid,
           coalesce(-sum(l.charge_part) FILTER (WHERE l.type = 'waiver'), 0)::text AS charges_waived,
           json_agg(json_build_array(l.effective_date::text, (l.amount - l.punitory_part - l.charge_part)::text, l.punitory_part::text)
                    ORDER BY l.effective_date, l.created_at) FILTER (WHERE l.type = 'payment') AS payments
      FROM ledger l
     WHERE l.business_id = ${businessId}
       AND ${which}
       AND l.type <> 'installment'
     GROUP BY l.installment_id`.execute(db);
  return r.rows;
}

/** These entries of the business (the month close's postings, to announce them). */
export function ledgerEntriesByIds(db: Executor, businessId: string, ids: string[]): Promise<LedgerEntry[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('ledger')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('id', 'in', ids)
    .orderBy('credit_id')
    .orderBy('effective_date')
    .execute();
}
