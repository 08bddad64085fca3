// Payments: registering one (punitory posted up to its date, an early payoff's rebate, every
// active payment allocated again in date order, corrections for what moved), listing them, and
// reversing one. One transaction each, under the credit's lock.
import { withActor } from '../../db/connection.ts';
import type { LedgerEntry, Payment } from '../../db/schema.ts';
import { getCredit } from '../../db/repositories/credits.ts';
import { paymentsOfCredit } from '../../db/repositories/payments.ts';
import { compareDates, toMoneyString } from '../../domain/index.ts';
import { conflict, notFound, unprocessable } from '../../domain/errors.ts';
import type { Database } from '../context.ts';
import { chosenBranch } from '../branches.ts';
import {
  activePayments,
  payoffOf,
  positiveAmount,
  postPunitory,
  postThrough,
  replay,
  stageCorrections,
  stageReversal,
  stageSlices,
} from './engine/book.ts';
import { flush, loadLocked, type CreditDetailRows, type LendingContext } from './store.ts';

export interface PaymentInput {
  amount: number | string;
  paidOn?: string;
  /**
   * where it was taken: undefined = the acting user's branch, else the credit's (none if deleted
   * since), null = no branch
   */
  branchId?: string | null;
}

export interface PaymentResult extends CreditDetailRows {
  /** only the entries this payment created: punitory posted, payment slices, corrections */
  created: LedgerEntry[];
  /** the payment recorded */
  paymentId: string;
  /** some installment's punitory stopped at the storable maximum (the route logs it) */
  punitoryAtStorableMax: boolean;
}

const STATUS_FORBIDS_PAYMENT: Record<string, string> = {
  refinanced: 'the credit was refinanced: pay the new credit instead',
  closed: 'the credit is closed: nothing is owed',
  inactive: 'the credit was cancelled',
};

export async function registerPayment(
  db: Database,
  ctx: LendingContext,
  creditId: string,
  input: PaymentInput,
): Promise<PaymentResult> {
  return withActor(db.kysely, ctx, async (trx) => {
    const l = await loadLocked(trx, ctx, creditId);
    const { credit } = l;
    const why = STATUS_FORBIDS_PAYMENT[credit.status];
    if (why) throw conflict(`payment refused: ${why}`);

    const amount = positiveAmount(input.amount);
    const paidOn = input.paidOn ?? ctx.today;
    if (compareDates(paidOn, ctx.today) > 0)
      throw unprocessable(`paid_on ${paidOn} is in the future (today is ${ctx.today})`, [
        { path: '/paid_on', message: 'in the future' },
      ]);
    if (compareDates(paidOn, credit.start_date) < 0)
      throw unprocessable(`paid_on ${paidOn} is before the credit's start date ${credit.start_date}`, [
        { path: '/paid_on', message: 'before start_date' },
      ]);
    const branchId = await chosenBranch(trx, ctx, credit, input.branchId);
    const paymentId = crypto.randomUUID();
    // 0. punitory up to the payment's date, before anything is allocated (a payment counts from
    //    the next day, so this does not depend on it)
    if (l.postedThrough === null || compareDates(paidOn, l.postedThrough) > 0) postPunitory(ctx, l, paidOn);
    const active = activePayments(l);
    const latest = active.every((p) => compareDates(p.paidOn, paidOn) <= 0);

    // 1. an early payoff: a payment of exactly the payoff amount, dated on or after every other,
    //    first writes off the interest not owed (the rebate)
    if (latest) {
      const quote = payoffOf(ctx, l, paidOn);
      if (quote.breakdown.rebate.gt(0) && amount.eq(quote.amount))
        stageSlices(ctx, l, quote.rebates, { origin: 'rebate', paymentId, paidOn, branchId });
    }

    // 2. every active payment and this one allocated in date order (this one after those of its
    //    date); unchanged earlier payments give no entry
    const list = [...active, { id: paymentId, amount, paidOn, isNew: true }].sort(
      (a, b) => compareDates(a.paidOn, b.paidOn) || Number(a.isNew) - Number(b.isNew),
    );
    const replayed = replay(ctx, l, list);
    stageCorrections(ctx, l, replayed, null);
    // an early payoff may take back what a prepayment paid beyond an installment's amount once its
    // rebate is written (negative slices) and pay it toward the installments still owing: those
    // slices are corrections, the rest the payment's own
    const own = replayed.get(paymentId)!;
    stageSlices(
      ctx,
      l,
      own.filter((s) => s.amount.gt(0)),
      { origin: 'payment', paymentId, paidOn, branchId },
    );
    stageSlices(
      ctx,
      l,
      own.filter((s) => s.amount.lt(0)),
      { origin: 'correction', paymentId, paidOn, branchId },
    );
    l.staged.payment = {
      id: paymentId,
      amount: toMoneyString(amount),
      paid_on: paidOn,
      branch_id: branchId,
      created_by: ctx.actor,
    };

    // 3. a payment dated before punitory already posted changed the history: the punitory up to
    //    the latest posting, computed again, and the difference posted (negative when too much had
    //    been charged); nothing otherwise
    postPunitory(ctx, l, l.postedThrough!);

    const created = await flush(trx, ctx, l);
    const result = {
      credit: l.credit,
      installments: l.installments,
      ledgerEntries: l.ledger,
      created,
      paymentId,
      punitoryAtStorableMax: l.atStorableMax,
    };
    return result;
  });
}

/** A credit's payments, reversed ones included, in the order they apply. */
export async function listPayments(db: Database, ctx: LendingContext, creditId: string): Promise<Payment[]> {
  const credit = await getCredit(db.kysely, ctx.businessId, creditId);
  if (!credit) throw notFound('credit');
  return paymentsOfCredit(db.kysely, ctx.businessId, creditId);
}

/**
 * Undoes one payment: entries cancelling its slices (and its rebate), then every later payment
 * allocated again as if it had never been made, punitory recomputed up to today, statuses after.
 */
export async function reversePayment(
  db: Database,
  ctx: LendingContext,
  creditId: string,
  paymentId: string,
  reason: string,
): Promise<CreditDetailRows> {
  return withActor(db.kysely, ctx, async (trx) => {
    const l = await loadLocked(trx, ctx, creditId);
    const payment = l.payments.find((p) => p.id === paymentId);
    if (!payment) throw notFound('payment');
    if (payment.reversed_at !== null)
      throw conflict(`the payment was already reversed (${new Date(payment.reversed_at).toISOString()})`);
    if (l.credit.status === 'refinanced' || l.credit.status === 'inactive')
      throw conflict(`the credit is ${l.credit.status}: its payments can no longer be reversed`);

    // what it owes up to today with the history as it stands, then the history without the payment
    postThrough(ctx, l, ctx.today);
    stageReversal(ctx, l, payment, reason);
    const rest = activePayments(l).filter((p) => p.id !== paymentId);
    stageCorrections(ctx, l, replay(ctx, l, rest), paymentId);
    postPunitory(ctx, l, l.postedThrough!);
    await flush(trx, ctx, l);
    return { credit: l.credit, installments: l.installments, ledgerEntries: l.ledger };
  });
}
