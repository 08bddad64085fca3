// The early payoff quote: what settles a credit on a date (docs/domain.md, "Early payoff"), from
// its ledger as it stands on that date. A read: it writes nothing.
import { withActor } from '../../db/connection.ts';
import { getCredit } from '../../db/repositories/credits.ts';
import { installmentsOfCredit } from '../../db/repositories/installments.ts';
import { ledgerOfCredit } from '../../db/repositories/ledger.ts';
import { paymentsOfCredit } from '../../db/repositories/payments.ts';
import { compareDates, Dec } from '../../domain/index.ts';
import { notFound, unprocessable } from '../../domain/errors.ts';
import type { Database } from '../context.ts';
import { openBook, payoffOf, type Payoff } from './engine/book.ts';
import { ACCRUING } from './engine/state.ts';
import type { LendingContext } from './store.ts';

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
    if (!ACCRUING.has(credit.status)) return { ...payoffOf(ctx, l, date), amount: ZERO, refundable: ZERO };
    return payoffOf(ctx, l, date);
  });
}
