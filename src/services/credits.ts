// Reads of the credit book: a credit with its schedule and ledger, its ledger alone, the list of
// credits and the collections worklist. The writes are the use cases in lending/.
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { getCredit, listCredits as creditRows, type CreditFilter } from '../db/repositories/credits.ts';
import {
  listInstallments,
  WORKLIST_SORTS,
  type WorklistRow,
  type WorklistSort,
} from '../db/repositories/installments.ts';
import { promisesByIds } from '../db/repositories/promises.ts';
import { notesByIds } from '../db/repositories/notes.ts';
import type { Executor } from '../db/connection.ts';
import { historiesOfInstallments } from '../db/repositories/ledger.ts';
import { creditLedgerDocument } from '../db/repositories/documents.ts';
import { notFound, unprocessable } from '../domain/errors.ts';
import { instantBound } from '../domain/instants.ts';
import { readsOf, type ActorContext, type Database, type JsonText } from './context.ts';
import { creditDetail, type CreditDetailRows } from './lending/store.ts';
import { owedOf, stateFromHistory } from './lending/engine/state.ts';
import { presentNote, presentPromise, presentWorklistItem } from './present.ts';

export interface Paging {
  limit: number;
  offset: number;
}

export async function readCredit(db: Kysely<DB>, businessId: string, id: string): Promise<CreditDetailRows> {
  const credit = await getCredit(db, businessId, id);
  if (!credit) throw notFound('credit');
  return creditDetail(db, businessId, credit);
}

/** The ledger entries of all the credit's installments, oldest first (GET /api/credits/{id}/ledger), as JSON text built by the database. */
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

export { WORKLIST_SORTS };

export interface WorklistQuery extends Paging {
  overdue?: boolean;
  branchId?: string;
  creditId?: string;
  minDaysLate?: number;
  /** 'me': the signed-in user's credits (`userId`); a user's id; 'none': credits without a collector */
  collector?: string;
  /** the signed-in user (null with an API key) */
  userId?: string | null;
  promise?: 'pending' | 'broken' | 'none';
  sort?: WorklistSort;
}

/**
 * The collections worklist: installments, most days late first, each with its client and credit
 * number, its delinquency and what it owes as of the business's today (one more query for the
 * page's payment histories). Cancelled (inactive) credits are left out; written-off ones stay
 * (recoveries).
 */
export async function collectionsWorklist(database: Database, ctx: ActorContext, q: WorklistQuery) {
  const db = await readsOf(database, ctx);
  const { collector, userId, ...rest } = q;
  let byCollector: { userId: string } | 'none' | undefined;
  if (collector === 'me') {
    if (!userId)
      throw unprocessable('collector=me names the signed-in user: sign in, or give the user’s id', [
        { path: '/collector', message: 'no signed-in user (an API key acts for no user)' },
      ]);
    byCollector = { userId };
  } else if (collector === 'none') byCollector = 'none';
  else if (collector !== undefined) byCollector = { userId: collector };
  const page = await listInstallments(db, ctx.businessId, {
    ...rest,
    ...(byCollector ? { collector: byCollector } : {}),
    today: ctx.today,
  });
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
  const ids = (k: 'latest_promise_id' | 'last_note_id') => [
    ...new Set(rows.map((r) => r[k]).filter((v): v is string => v !== null)),
  ];
  const promises = await promisesByIds(db, ctx.businessId, ids('latest_promise_id'), ctx.today);
  const notes = await notesByIds(db, ctx.businessId, ids('last_note_id'));
  const promiseOf = new Map(promises.map((p) => [p.id, presentPromise(p)]));
  const noteOf = new Map(notes.map((n) => [n.id, presentNote(n)]));
  return rows.map((i) => {
    const owed = owedOf(
      stateFromHistory(i, historyOf.get(i.id)),
      { ...i, status: i.credit_status, fees: i.credit_fees },
      ctx.today,
      ctx.timezone,
    );
    return presentWorklistItem(i, ctx.today, owed, {
      latest_promise: i.latest_promise_id === null ? null : (promiseOf.get(i.latest_promise_id) ?? null),
      last_note: i.last_note_id === null ? null : (noteOf.get(i.last_note_id) ?? null),
    });
  });
}
