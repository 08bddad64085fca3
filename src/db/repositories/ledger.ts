// The ledger table, scoped to one business: entries are only ever inserted (corrections are new
// entries), read in the order they were written, and aggregated for the daily run.
import { sql, type Insertable, type RawBuilder } from 'kysely';
import type { Executor } from '../connection.ts';
import type { LedgerEntry, LedgerTable } from '../schema.ts';

export type NewLedgerEntry = Omit<Insertable<LedgerTable>, 'business_id' | 'id' | 'created_at'> & {
  punitory_part?: string | number;
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
           json_agg(json_build_array(l.effective_date::text, (l.amount - l.punitory_part)::text, l.punitory_part::text)
                    ORDER BY l.effective_date, l.created_at) FILTER (WHERE l.type = 'payment') AS payments
      FROM ledger l
     WHERE l.business_id = ${businessId}
       AND ${which}
       AND l.type <> 'installment'
     GROUP BY l.installment_id`.execute(db);
  return r.rows;
}
