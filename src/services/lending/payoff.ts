// The early payoff quote: what settles a credit on a date (docs/domain.md, "Early payoff"), from
// its ledger as it stands on that date. A read: it writes nothing.
import { withActor, withActorInFirstStatement } from '../../db/connection.ts';
import type { LedgerEntry, PaymentMethod } from '../../db/schema.ts';
import { guarantorsOfCredit } from '../../db/repositories/guarantors.ts';
import { getCredit } from '../../db/repositories/credits.ts';
import { installmentsOfCredit } from '../../db/repositories/installments.ts';
import { ledgerOfCredit } from '../../db/repositories/ledger.ts';
import { paymentsOfCredit } from '../../db/repositories/payments.ts';
import { compareDates, Dec, toMoneyString, type Decimal } from '../../domain/index.ts';
import { conflict, notFound, unprocessable } from '../../domain/errors.ts';
import { branchCandidates, pickBranch } from '../branches.ts';
import { presentGuarantor } from '../guarantors.ts';
import type { Database } from '../context.ts';
import {
  activePayments,
  openBook,
  payoffOf,
  settle,
  stagePayoffClose,
  zeroBreakdown,
  type Payoff,
} from './engine/book.ts';
import { ACCRUING } from './engine/state.ts';
import { flush, loadLockedAs, type CreditDetailRows, type LendingContext } from './store.ts';

export type { Payoff };

const ZERO = new Dec(0);

/** The payoff quote of a credit as of a date (default today; not before its start, not after today). */
export async function payoffQuote(db: Database, ctx: LendingContext, creditId: string, asOf?: string): Promise<Payoff> {
  const date = asOf ?? ctx.today;
  return withActor(db.kysely, ctx, async (trx) => {
    const credit = await getCredit(trx, ctx.businessId, creditId);
    if (!credit) throw notFound('credit');
    if (compareDates(date, ctx.today) > 0)
      throw unprocessable(`as_of ${date} is in the future (today is ${ctx.today})`, [
        { path: '/as_of', message: 'in the future' },
      ]);
    if (compareDates(date, credit.start_date) < 0)
      throw unprocessable(`as_of ${date} is before the credit's start date ${credit.start_date}`, [
        { path: '/as_of', message: 'before start_date' },
      ]);
    // closed, refinanced or cancelled: nothing settles it, so nothing is broken down either (a
    // cancelled credit's installments are void, a closed one's history is not a debt)
    if (!ACCRUING.has(credit.status)) return nothingOwed(date);
    const [installments, ledger, payments] = await Promise.all([
      installmentsOfCredit(trx, ctx.businessId, credit.id),
      ledgerOfCredit(trx, ctx.businessId, credit.id),
      paymentsOfCredit(trx, ctx.businessId, credit.id),
    ]);
    const l = openBook(
      credit,
      installments,
      ledger.filter((e) => compareDates(e.effective_date, date) <= 0 || e.type === 'installment'),
      payments,
      null,
    );
    return payoffOf(ctx, l, date);
  });
}

/** The quote of a credit that no longer accrues: 0, and every figure of it 0. */
function nothingOwed(asOf: string): Payoff {
  return { asOf, amount: ZERO, refundable: ZERO, breakdown: zeroBreakdown(), rebates: [] };
}

export interface PayoffCloseInput {
  /** the day of the close (default today): not before the start, the latest payment, nor after today */
  asOf?: string;
  /** how the refund is handed back (default cash) */
  method?: PaymentMethod;
}

export interface PayoffCloseResult extends CreditDetailRows {
  /** the entries the close wrote: punitory posted, the rebate, the refund */
  created: LedgerEntry[];
  /** the close, recorded as a payment of the credit whose amount is minus the refund */
  paymentId: string;
  /** the amount handed back to the client */
  refund: Decimal;
}

const STATUS_FORBIDS_CLOSE: Record<string, string> = {
  refinanced: 'the credit was refinanced',
  closed: 'the credit is already closed',
  inactive: 'the credit was cancelled',
  written_off: 'the credit is written off: what comes in are recoveries',
};

/**
 * Closes an active credit whose payoff is 0 (docs/domain.md, "Early payoff"): the rebate written,
 * the credit closed, the refund reported. Recorded as a payment of amount −refund (the cash handed
 * back), so the rebate belongs to it: reversing it reopens the credit. A quote above 0 is 409.
 */
export async function closePayoff(
  db: Database,
  ctx: LendingContext,
  creditId: string,
  input: PayoffCloseInput,
): Promise<PayoffCloseResult> {
  return withActorInFirstStatement(db.kysely, ctx, async (trx, as) => {
    const { book: l, branches } = await loadLockedAs(trx, ctx, as, creditId, branchCandidates(ctx, undefined));
    const why = STATUS_FORBIDS_CLOSE[l.credit.status];
    if (why) throw conflict(`close refused: ${why}`);
    const date = input.asOf ?? ctx.today;
    if (compareDates(date, ctx.today) > 0)
      throw unprocessable(`as_of ${date} is in the future (today is ${ctx.today})`, [
        { path: '/as_of', message: 'in the future' },
      ]);
    if (compareDates(date, l.credit.start_date) < 0)
      throw unprocessable(`as_of ${date} is before the credit's start date ${l.credit.start_date}`, [
        { path: '/as_of', message: 'before start_date' },
      ]);
    const latest = activePayments(l).reduce<string | null>(
      (d, p) => (d === null || compareDates(p.paidOn, d) > 0 ? p.paidOn : d),
      null,
    );
    if (latest !== null && compareDates(date, latest) < 0)
      throw unprocessable(`as_of ${date} is before the credit's latest payment (${latest})`, [
        { path: '/as_of', message: `not before ${latest}` },
      ]);
    const branchId = pickBranch(ctx, l.credit, undefined, branches);
    const paymentId = crypto.randomUUID();
    const { refund } = stagePayoffClose(ctx, l, date, paymentId, branchId);
    l.staged.payment = {
      id: paymentId,
      amount: toMoneyString(refund.isZero() ? ZERO : refund.neg()),
      paid_on: date,
      branch_id: branchId,
      created_by: ctx.actor,
      method: input.method ?? 'cash',
      channel: null,
      external_reference: null,
    };
    if (settle(l).creditStatus !== 'closed')
      throw conflict(`close refused: the credit would still owe after the rebate as of ${date}`);
    const created = await flush(trx, ctx, l);
    const guarantors = (await guarantorsOfCredit(trx, ctx.businessId, creditId)).map(presentGuarantor);
    return {
      credit: l.credit,
      installments: l.installments,
      ledgerEntries: l.ledger,
      guarantors,
      created,
      paymentId,
      refund,
    };
  });
}
