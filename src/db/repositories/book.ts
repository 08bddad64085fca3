// Reads of credits, installments, ledger entries and files, scoped to one business.
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

export function ledgerOfCredits(db: Executor, businessId: string, creditIds: string[]): Promise<LedgerEntry[]> {
  if (creditIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('ledger')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('credit_id', 'in', creditIds)
    .orderBy('created_at')
    .orderBy('id')
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
