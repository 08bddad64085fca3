// Where the lending use cases meet the database: a credit's book read under its lock, what the
// engine staged written in one statement, and the events of what was written. The rows the
// repositories give are the engine's shapes (./engine/shapes.ts) as they are; the book carries
// them typed as rows, so the use cases answer with rows.
import type { Transaction } from 'kysely';
import type { Executor } from '../../db/connection.ts';
import type { Credit, DB, Installment, LedgerEntry, Payment } from '../../db/schema.ts';
import { lockCredit } from '../../db/repositories/credits.ts';
import { installmentsOfCredit } from '../../db/repositories/installments.ts';
import { ledgerOfCredit } from '../../db/repositories/ledger.ts';
import { creditBook } from '../../db/repositories/creditBook.ts';
import { applyCreditChanges } from '../../db/repositories/creditChanges.ts';
import { notFound } from '../../domain/errors.ts';
import type { ActorContext } from '../context.ts';
import { emit } from '../events.ts';
import { presentCredit, presentLedgerEntry, presentPayment, type CreditDetailRows } from '../present.ts';
import { nothingStaged, openBook, settle, type Book } from './engine/book.ts';

export type { CreditDetailRows };

/** Who acts, for which business, in which time zone (its "today"). */
export type LendingContext = ActorContext;

/** A credit's book as read from the database. */
export type RowBook = Book<Credit, Installment, LedgerEntry, Payment>;

/** A credit with its installments and ledger, read (a step of a read or of a use case's transaction). */
export async function creditDetail(db: Executor, businessId: string, credit: Credit): Promise<CreditDetailRows> {
  const [installments, ledgerEntries] = await Promise.all([
    installmentsOfCredit(db, businessId, credit.id),
    ledgerOfCredit(db, businessId, credit.id),
  ]);
  return { credit, installments, ledgerEntries };
}

/**
 * The credit locked (FOR UPDATE), then its book in one statement: read after the lock, since every
 * writer of these holds it.
 */
export async function loadLocked(trx: Transaction<DB>, ctx: LendingContext, creditId: string): Promise<RowBook> {
  const credit = await lockCredit(trx, ctx.businessId, creditId);
  if (!credit) throw notFound('credit');
  const b = await creditBook(trx, ctx.businessId, credit.id);
  return openBook(credit, b.installments, b.ledger, b.payments, b.postedThrough);
}

/**
 * Writes what is staged in one statement, with every installment's status and paid_date brought in
 * line with its sums, a fully paid active credit closed and a closed one that owes again reopened;
 * `l` then holds the rows as written. Returns the entries written (what the use case created).
 */
export async function flush(trx: Transaction<DB>, ctx: LendingContext, l: RowBook): Promise<LedgerEntry[]> {
  const { moved, creditStatus } = settle(l);
  const { entries, now, paymentCreatedAt } = await applyCreditChanges(trx, ctx.businessId, {
    creditId: l.credit.id,
    entries: l.staged.entries,
    accruedThrough: l.staged.accruedThrough,
    installments: moved,
    creditStatus,
    payment: l.staged.payment,
    reversal: l.staged.reversal,
  });
  announceChanges(trx, ctx, l, { entries, now, paymentCreatedAt, creditStatus });
  l.staged = nothingStaged();
  // the rows as a re-read would give them, without the re-read
  const byId = new Map(moved.map((m) => [m.id, m]));
  l.installments = l.installments.map((i) => {
    const m = byId.get(i.id);
    return m ? { ...i, status: m.status, paid_date: m.paid_date, updated_at: now } : i;
  });
  if (creditStatus) l.credit = { ...l.credit, status: creditStatus, updated_at: now };
  l.ledger = [...l.ledger, ...entries];
  return entries;
}

/** The events of what flush wrote: the payment, its reversal, punitory posted, the credit's status. */
function announceChanges(
  trx: Transaction<DB>,
  ctx: LendingContext,
  l: RowBook,
  written: { entries: LedgerEntry[]; now: Date; paymentCreatedAt: Date | null; creditStatus: Credit['status'] | null },
): void {
  const creditId = l.credit.id;
  const { payment, reversal } = l.staged;
  // the punitory posted up to the payment's date comes before the payment, as in the ledger
  for (const e of written.entries)
    if (e.type === 'punitory') emit(trx, ctx.businessId, 'punitory.posted', presentLedgerEntry(e), { creditId });
  if (payment)
    emit(
      trx,
      ctx.businessId,
      'payment.created',
      presentPayment({
        ...payment,
        method: payment.method as Payment['method'],
        business_id: ctx.businessId,
        credit_id: creditId,
        created_at: written.paymentCreatedAt ?? written.now,
        reversed_at: null,
        reversal_reason: null,
        reversed_by: null,
      }),
      { creditId },
    );
  if (reversal) {
    const reversed = l.payments.find((p) => p.id === reversal.paymentId)!;
    emit(
      trx,
      ctx.businessId,
      'payment.reversed',
      presentPayment({ ...reversed, reversed_at: written.now, reversal_reason: reversal.reason }),
      { creditId },
    );
  }
  if (written.creditStatus)
    announceStatus(
      trx,
      ctx.businessId,
      { ...l.credit, status: written.creditStatus, updated_at: written.now },
      l.credit.status,
    );
}

/** credit.status_changed, with the status it had before (a step in the caller's transaction: the daily run's too). */
export function announceStatus(trx: Transaction<DB>, businessId: string, credit: Credit, previous: string): void {
  emit(trx, businessId, 'credit.status_changed', presentCredit(credit), {
    creditId: credit.id,
    extra: { previous_status: previous },
  });
}
