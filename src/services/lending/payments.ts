// Payments: registering one (punitory posted up to its date, an early payoff's rebate, every
// active payment allocated again in date order, corrections for what moved), listing them, and
// reversing one. One transaction each, under the credit's lock.
import { withActor, withActorInFirstStatement } from '../../db/connection.ts';
import type { Transaction } from 'kysely';
import type { Executor } from '../../db/connection.ts';
import type { DB, LedgerEntry, Payment, PaymentMethod } from '../../db/schema.ts';
import { getCredit } from '../../db/repositories/credits.ts';
import { paymentByReference, paymentsOfCredit } from '../../db/repositories/payments.ts';
import { compareDates, money, toMoneyString, type Decimal } from '../../domain/index.ts';
import { AppError, conflict, notFound, unprocessable } from '../../domain/errors.ts';
import { readsOf, type Database } from '../context.ts';
import { branchCandidates, pickBranch } from '../branches.ts';
import {
  activePayments,
  payoffFloor,
  payoffOfStates,
  positiveAmount,
  postPunitory,
  postThrough,
  replay,
  stageCorrections,
  stageReversal,
  stageSlices,
  statesOf,
} from './engine/book.ts';
import { creditTerms, stopDate } from './engine/state.ts';
import { guarantorsOfCredit } from '../../db/repositories/guarantors.ts';
import { presentGuarantor } from '../guarantors.ts';
import type { SharedBranch } from '../../db/repositories/creditBook.ts';
import { flush, loadLocked, loadLockedAs, type CreditDetailRows, type LendingContext, type RowBook } from './store.ts';

export interface PaymentReference {
  channel: string | null;
  externalReference: string | null;
}

export interface PaymentInput {
  amount: number | string;
  paidOn?: string;
  /**
   * where it was taken: undefined = the acting user's branch, else the credit's (none if deleted
   * since), null = no branch
   */
  branchId?: string | null;
  /** how it was paid (default cash) */
  method?: PaymentMethod;
  /** through which network or bank; with externalReference it identifies the payment (blank: none) */
  channel?: string | null;
  externalReference?: string | null;
}

export interface PaymentResult extends CreditDetailRows {
  /** only the entries this payment created: punitory posted, payment slices, corrections */
  created: LedgerEntry[];
  /** the payment recorded, how it was paid (the default applied) and its channel and reference (trimmed; blank is none) */
  paymentId: string;
  method: PaymentMethod;
  reference: PaymentReference;
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
  const ref = paymentReference(input);
  // a reference already paid answers before the credit is locked; two requests racing past this
  // meet the unique index (migration 033), and the one that loses answers the same
  await refuseKnownReference(db.kysely, ctx.businessId, ref);
  try {
    // three statements and the commit: the lock (with the audit actor) and the book read after it
    // (with the branches the payment may take, share-locked), the write, the commit (docs/lending-engine.md)
    return await withActorInFirstStatement(db.kysely, ctx, async (trx, as) => {
      const { book: l, branches } = await loadLockedAs(trx, ctx, as, creditId, branchCandidates(ctx, input.branchId));
      const paid = await payOnBook(trx, ctx, l, branches, input);
      return { credit: l.credit, installments: l.installments, ledgerEntries: l.ledger, ...paid };
    });
  } catch (err) {
    if (isReferenceTaken(err)) {
      await refuseKnownReference(db.kysely, ctx.businessId, ref);
      throw duplicatePayment(null, ref);
    }
    throw err;
  }
}

/** The channel and reference of a payment, trimmed; blank is none. */
export function paymentReference(input: Pick<PaymentInput, 'channel' | 'externalReference'>): PaymentReference {
  const channel = input.channel?.trim() || null;
  const externalReference = input.externalReference?.trim() || null;
  return { channel, externalReference };
}

/** 409 duplicate_payment when the business already has a payment with this channel and reference. */
async function refuseKnownReference(db: Executor, businessId: string, ref: PaymentReference): Promise<void> {
  if (ref.externalReference === null) return;
  const existing = await paymentByReference(db, businessId, ref.channel, ref.externalReference);
  if (existing) throw duplicatePayment(existing.id, ref);
}

/** The unique index of channel and reference refused an insert (a racing payment took it first). */
export function isReferenceTaken(err: unknown): boolean {
  const e = err as { code?: string; constraint?: string; message?: string } | null;
  return (
    e?.code === '23505' &&
    (e.constraint === 'payments_external_reference' || (e.message ?? '').includes('payments_external_reference'))
  );
}

export function duplicatePayment(existingId: string | null, ref: PaymentReference): AppError {
  const what = ref.channel
    ? `channel ${ref.channel}, reference ${ref.externalReference}`
    : `reference ${ref.externalReference}`;
  return new AppError(
    'duplicate_payment',
    `a payment with ${what} was already registered${existingId ? ` (payment ${existingId})` : ''}: it is not paid twice`,
    [{ path: '/external_reference', message: existingId ? `already used by payment ${existingId}` : 'already used' }],
  );
}

/**
 * Validates and stages one payment on a credit already locked and read (with the branches it may
 * take: branchCandidates), then writes it (one statement): what registerPayment does inside its
 * transaction. On a refusal (an AppError) nothing was written, but `l` may hold staged entries:
 * read the credit again before using it.
 */
async function payOnBook(
  trx: Transaction<DB>,
  ctx: LendingContext,
  l: RowBook,
  branches: SharedBranch[],
  input: PaymentInput,
): Promise<Pick<PaymentResult, 'created' | 'paymentId' | 'method' | 'reference' | 'punitoryAtStorableMax'>> {
  const checked = checkPayment(ctx, l, input);
  const branchId = pickBranch(ctx, l.credit, input.branchId, branches);
  const paymentId = stagePayment(ctx, l, checked, branchId);
  const created = await flush(trx, ctx, l);
  return { created, paymentId, method: checked.method, reference: checked.ref, punitoryAtStorableMax: l.atStorableMax };
}

/** A payment checked against its credit (the refusals that need no query), ready to stage. */
export interface CheckedPayment {
  amount: Decimal;
  paidOn: string;
  method: PaymentMethod;
  ref: PaymentReference;
}

/** The refusals of a payment on a credit read under its lock: the credit's status, the amount, the date. */
export function checkPayment(ctx: LendingContext, l: RowBook, input: PaymentInput): CheckedPayment {
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
  return { amount, paidOn, method: input.method ?? 'cash', ref: paymentReference(input) };
}

/**
 * Stages a checked payment on the book (nothing written): punitory up to its date, an early
 * payoff's rebate, every active payment allocated again, corrections. Returns the payment's id.
 * Throws an AppError when the allocation refuses it (more than is owed), `l` then holding what was
 * staged so far.
 */
export function stagePayment(ctx: LendingContext, l: RowBook, p: CheckedPayment, branchId: string | null): string {
  const { amount, paidOn } = p;
  const paymentId = crypto.randomUUID();
  // 0. punitory up to the payment's date, before anything is allocated (a payment counts from
  //    the next day, so this does not depend on it)
  const posted =
    l.postedThrough === null || compareDates(paidOn, l.postedThrough) > 0 ? postPunitory(ctx, l, paidOn) : null;
  const active = activePayments(l);
  const latest = active.every((x) => compareDates(x.paidOn, paidOn) <= 0);

  // 1. an early payoff: a payment of exactly the payoff amount, dated on or after every other,
  //    first writes off the interest not owed (the rebate). The states are those the posting just
  //    read and added to (the ledger as it now stands); a payment below the quote's floor cannot
  //    be it, and is not quoted (payoffFloor)
  if (latest) {
    const states = posted ?? statesOf(l);
    if (!amount.lt(payoffFloor(states, paidOn))) {
      const quote = payoffOfStates(l.credit, states, creditTerms(l.credit), stopDate(l.credit, ctx.timezone), paidOn);
      if (quote.breakdown.rebate.gt(0) && amount.eq(quote.amount))
        stageSlices(ctx, l, quote.rebates, { origin: 'rebate', paymentId, paidOn, branchId });
    }
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
    method: p.method,
    channel: p.ref.channel,
    external_reference: p.ref.externalReference,
  };

  // 3. a payment dated before punitory already posted changed the history: the punitory up to
  //    the latest posting, computed again, and the difference posted (negative when too much had
  //    been charged); nothing otherwise
  postPunitory(ctx, l, l.postedThrough!);
  return paymentId;
}

/** A credit's payments, reversed ones included, in the order they apply. */
export async function listPayments(db: Database, ctx: LendingContext, creditId: string): Promise<Payment[]> {
  const from = await readsOf(db, ctx);
  const credit = await getCredit(from, ctx.businessId, creditId);
  if (!credit) throw notFound('credit');
  return paymentsOfCredit(from, ctx.businessId, creditId);
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
    // a close without payment (docs/domain.md, "Early payoff") stands on the payments before it:
    // the refund was handed back on them. It is reversed first (the credit reopens), then they may be
    const close = l.payments.find((p) => p.reversed_at === null && money(p.amount).lte(0));
    if (close && close.id !== paymentId)
      throw conflict(
        `the credit was closed on ${close.paid_on} with a refund of ${toMoneyString(money(close.amount).neg())} (payment ${close.id}): reverse that close first, then this payment`,
      );

    // what it owes up to today with the history as it stands, then the history without the payment
    postThrough(ctx, l, ctx.today);
    stageReversal(ctx, l, payment, reason);
    const rest = activePayments(l).filter((p) => p.id !== paymentId);
    stageCorrections(ctx, l, replay(ctx, l, rest), paymentId);
    postPunitory(ctx, l, l.postedThrough!);
    await flush(trx, ctx, l);
    // the answer is the credit read: with the clients who back it
    const guarantors = (await guarantorsOfCredit(trx, ctx.businessId, creditId)).map(presentGuarantor);
    return { credit: l.credit, installments: l.installments, ledgerEntries: l.ledger, guarantors };
  });
}
