// Reads of the credit book: a credit with its schedule and ledger, its ledger alone, the list of
// credits and the collections worklist. The writes are the use cases in lending.ts.
import type { Kysely } from 'kysely';
import type { DB, LedgerEntry } from '../db/schema.ts';
import { getCredit, listCredits as creditRows, type CreditFilter } from '../db/repositories/credits.ts';
import { listInstallments, type WorklistRow } from '../db/repositories/installments.ts';
import { ledgerOfCredit } from '../db/repositories/ledger.ts';
import { notFound } from '../domain/errors.ts';
import { creditDetail, type CreditDetailRows } from './lending.ts';

export interface Paging {
  limit: number;
  offset: number;
}

export async function readCredit(db: Kysely<DB>, businessId: string, id: string): Promise<CreditDetailRows> {
  const credit = await getCredit(db, businessId, id);
  if (!credit) throw notFound('credit');
  return creditDetail(db, businessId, credit);
}

/** The ledger entries of all the credit's installments, oldest first. */
export async function creditLedger(db: Kysely<DB>, businessId: string, id: string): Promise<LedgerEntry[]> {
  const credit = await getCredit(db, businessId, id);
  if (!credit) throw notFound('credit');
  return ledgerOfCredit(db, businessId, credit.id);
}

/** Credits newest first, optionally by status, client or branch. */
export function listCredits(db: Kysely<DB>, businessId: string, q: CreditFilter & Paging) {
  return creditRows(db, businessId, q);
}

export interface WorklistQuery extends Paging {
  /** the business's today: what is overdue and how many days late */
  today: string;
  overdue?: boolean;
  branchId?: string;
  creditId?: string;
  minDaysLate?: number;
}

/**
 * The collections worklist: installments, most days late first, each with its client and credit
 * number. Cancelled (inactive) credits are left out; written-off ones stay (recoveries).
 */
export function collectionsWorklist(db: Kysely<DB>, businessId: string, q: WorklistQuery): Promise<{ items: WorklistRow[]; total: number }> {
  return listInstallments(db, businessId, q);
}
