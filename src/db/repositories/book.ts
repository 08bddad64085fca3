// Reads of credits, installments, ledger entries and files, scoped to one business.
import { sql } from 'kysely';
import type { Executor } from '../connection.ts';
import type { Credit, Installment, LedgerEntry, ClientFile } from '../schema.ts';

export function getCredit(db: Executor, businessId: string, id: string): Promise<Credit | undefined> {
  return db.selectFrom('credits').selectAll().where('business_id', '=', businessId).where('id', '=', id).executeTakeFirst();
}

export function creditsOfClient(db: Executor, businessId: string, clientId: string): Promise<Credit[]> {
  return db
    .selectFrom('credits')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('client_id', '=', clientId)
    .orderBy('sequential_id')
    .execute();
}

export function installmentsOfCredits(db: Executor, businessId: string, creditIds: string[]): Promise<Installment[]> {
  if (creditIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('installments')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('credit_id', 'in', creditIds)
    .orderBy('credit_id')
    .orderBy('number')
    .execute();
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
    .innerJoin('installments as i', (j) => j.onRef('i.business_id', '=', 'l.business_id').onRef('i.id', '=', 'l.installment_id'))
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

export function filesOfClient(db: Executor, businessId: string, clientId: string): Promise<ClientFile[]> {
  return db
    .selectFrom('client_files')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('client_id', '=', clientId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}
