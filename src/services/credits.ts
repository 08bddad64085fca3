// Reads of the credit book: a credit with its schedule and ledger, its ledger alone, the list of
// credits and the collections worklist. The writes are the use cases in lending/.
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { getCredit, listCredits as creditRows, type CreditFilter } from '../db/repositories/credits.ts';
import { listInstallments, type WorklistRow } from '../db/repositories/installments.ts';
import type { Executor } from '../db/connection.ts';
import { historiesOfInstallments } from '../db/repositories/ledger.ts';
import { creditLedgerDocument } from '../db/repositories/documents.ts';
import { notFound } from '../domain/errors.ts';
import { instantBound } from '../domain/instants.ts';
import { readsOf, type ActorContext, type Database, type JsonText } from './context.ts';
import { creditDetail, type CreditDetailRows } from './lending/store.ts';
import { owedOf, stateFromHistory } from './lending/engine/state.ts';
import { presentWorklistItem } from './present.ts';

export interface Paging {
  limit: number;
  offset: number;
}

export async function readCredit(db: Kysely<DB>, businessId: string, id: string): Promise<CreditDetailRows> {
  const credit = await getCredit(db, businessId, id);
  if (!credit) throw notFound('credit');
  return creditDetail(db, businessId, credit);
}

/** The ledger entries of all the credit's installments, oldest first (contract 3), as JSON text built by the database. */
export async function creditLedger(db: Database, ctx: ActorContext, id: string): Promise<JsonText> {
  const body = await creditLedgerDocument(db, ctx.businessId, id);
  if (body === undefined) throw notFound('credit');
  return body as JsonText;
}

/**
 * Credits newest first, optionally by status, client or branch. With updatedSince (RFC 3339), only
 * the credits changed at or after it, oldest change first.
 */
export async function listCredits(
  db: Database,
  ctx: ActorContext,
  q: Omit<CreditFilter, 'updatedSince'> & Paging & { updatedSince?: string },
) {
  const { updatedSince, ...rest } = q;
  const bound = updatedSince === undefined ? {} : { updatedSince: instantBound('/updated_since', updatedSince) };
  return creditRows(await readsOf(db, ctx), ctx.businessId, { ...rest, ...bound });
}

export interface WorklistQuery extends Paging {
  overdue?: boolean;
  branchId?: string;
  creditId?: string;
  minDaysLate?: number;
}

/**
 * The collections worklist: installments, most days late first, each with its client and credit
 * number, its delinquency and what it owes as of the business's today (one more query for the
 * page's payment histories). Cancelled (inactive) credits are left out; written-off ones stay
 * (recoveries).
 */
export async function collectionsWorklist(database: Database, ctx: ActorContext, q: WorklistQuery) {
  const db = await readsOf(database, ctx);
  const page = await listInstallments(db, ctx.businessId, { ...q, today: ctx.today });
  return { items: await worklistItems(db, ctx, page.items), total: page.total };
}

/** Worklist items of these rows: each installment's delinquency and what it owes as of the business's today. */
export async function worklistItems(
  db: Executor,
  ctx: Pick<ActorContext, 'businessId' | 'today' | 'timezone'>,
  rows: WorklistRow[],
) {
  const histories = await historiesOfInstallments(
    db,
    ctx.businessId,
    rows.map((i) => i.id),
  );
  const historyOf = new Map(histories.map((h) => [h.installment_id, h]));
  return rows.map((i) => {
    const owed = owedOf(
      stateFromHistory(i, historyOf.get(i.id)),
      { ...i, status: i.credit_status },
      ctx.today,
      ctx.timezone,
    );
    return presentWorklistItem(i, ctx.today, owed);
  });
}
