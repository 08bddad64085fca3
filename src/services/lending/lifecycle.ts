// A credit's way out other than being paid: written off (punitory posted up to the day, nothing
// accrues after), cancelled (granted by mistake), or refinanced into a new credit that settles it.
// One transaction each, under the credit's lock.
import { withActor } from '../../db/connection.ts';
import type { Credit } from '../../db/schema.ts';
import { updateCredit } from '../../db/repositories/credits.ts';
import { getCreditConfig } from '../../db/repositories/creditConfigs.ts';
import {
  allocatePayment,
  amountDisbursing,
  compareDates,
  money,
  outstanding,
  toMoneyString,
} from '../../domain/index.ts';
import { conflict, unprocessable } from '../../domain/errors.ts';
import type { Database } from '../context.ts';
import { inheritedBranch } from '../branches.ts';
import { holidaySet } from '../holidays.ts';
import { positiveAmount, postThrough, stageSlices, statesOf } from './engine/book.ts';
import { balanceOf } from './engine/state.ts';
import { createCreditIn, refuseWithoutApproval } from './grant.ts';
import type { Role } from '../../domain/access.ts';
import { announceStatus, flush, loadLocked, type CreditDetailRows, type LendingContext } from './store.ts';

export async function writeOffCredit(
  db: Database,
  ctx: LendingContext,
  creditId: string,
  reason: string,
): Promise<Credit> {
  return withActor(db.kysely, ctx, async (trx) => {
    const l = await loadLocked(trx, ctx, creditId);
    if (l.credit.status !== 'active')
      throw conflict(`only an active credit can be written off; this one is ${l.credit.status}`);
    // what it owes on the day it is written off is posted first; nothing accrues after
    postThrough(ctx, l, ctx.today);
    await flush(trx, ctx, l);
    const written = await updateCredit(trx, ctx.businessId, l.credit.id, {
      status: 'written_off',
      written_off_at: ctx.now,
      write_off_reason: reason,
    });
    announceStatus(trx, ctx.businessId, written, l.credit.status);
    return written;
  });
}

/**
 * A credit granted by mistake: active, with no payment (reversed ones do not count) and no
 * installment due yet (docs/domain.md, "Cancel"); later, the ways out are write-off
 * and refinance.
 */
export async function cancelCredit(db: Database, ctx: LendingContext, creditId: string): Promise<Credit> {
  return withActor(db.kysely, ctx, async (trx) => {
    const l = await loadLocked(trx, ctx, creditId);
    const { credit } = l;
    if (credit.status !== 'active')
      throw conflict(`only an active credit can be cancelled; this one is ${credit.status}`);
    if (l.payments.some((p) => p.reversed_at === null))
      throw conflict('the credit has payments and cannot be cancelled: write it off or refinance it');
    const first = l.installments[0];
    if (first && compareDates(first.due_date, ctx.today) <= 0)
      throw conflict(
        `the credit's first installment was due on ${first.due_date}: it can no longer be cancelled; write it off or refinance it`,
      );
    const cancelled = await updateCredit(trx, ctx.businessId, credit.id, { status: 'inactive' });
    announceStatus(trx, ctx.businessId, cancelled, credit.status);
    return cancelled;
  });
}

export interface RefinanceInput {
  creditConfigId: string;
  amount?: number | string;
  /** must be today when given: the new credit starts the day the old one is settled */
  startDate?: string;
  /** the new credit's branch: undefined = the old credit's (none if deleted since), null = no branch */
  branchId?: string | null;
  originTransactionReference?: string | null;
}

/**
 * Punitory is posted up to today, the old credit's whole balance is settled by entries that say
 * they are a refinance settlement (no cash), the old credit becomes refinanced, and a new credit
 * for at least that balance, starting today, is created for the same client — one transaction.
 */
export async function refinanceCredit(
  db: Database,
  ctx: LendingContext,
  creditId: string,
  input: RefinanceInput,
  opts: { actingRole?: Role | null } = {},
): Promise<CreditDetailRows> {
  return withActor(db.kysely, ctx, async (trx) => {
    // a refinance grants a new credit: under approval, as a credit granted directly
    await refuseWithoutApproval(trx, ctx, opts.actingRole);
    // before the credit's lock: a holiday change holds the business's holiday lock while it updates installments
    const holidays = await holidaySet(trx, ctx.businessId);
    const l = await loadLocked(trx, ctx, creditId);
    const old = l.credit;
    if (old.status !== 'active') throw conflict(`only an active credit can be refinanced; this one is ${old.status}`);
    if (input.startDate !== undefined && input.startDate !== ctx.today)
      throw unprocessable(
        `start_date ${input.startDate}: a refinancing credit starts today (${ctx.today}), the day the old one is settled`,
        [{ path: '/start_date', message: `must be ${ctx.today} or omitted` }],
      );
    postThrough(ctx, l, ctx.today);
    const states = statesOf(l);
    const balance = outstanding(states.map((s) => balanceOf(s)));
    if (balance.lte(0)) throw unprocessable('the credit owes nothing: there is no balance to refinance');
    // the new credit's cash handed over settles the balance: with an origination fee deducted
    // from the amount, the amount covers the balance and the fee (docs/domain.md, "Write-off,
    // refinance, cancel"); an unknown or inactive plan is refused below, as a new credit's
    const plan = await getCreditConfig(trx, ctx.businessId, input.creditConfigId);
    const least = plan ? amountDisbursing(balance, plan.fees, money(plan.vat_rate)) : balance;
    if (least === null)
      throw unprocessable(
        `the plan's origination fee, with its VAT, takes the whole amount lent: it cannot settle a balance`,
        [{ path: '/credit_config_id', message: 'its origination fee leaves nothing to settle the balance' }],
      );
    const amount = input.amount === undefined ? least : positiveAmount(input.amount);
    if (amount.lt(least))
      throw unprocessable(
        least.eq(balance)
          ? `amount ${toMoneyString(amount)} is less than the balance to refinance ${toMoneyString(balance)}`
          : `amount ${toMoneyString(amount)} is less than ${toMoneyString(least)}: the balance to refinance ` +
              `${toMoneyString(balance)} and the plan's origination fee deducted from it`,
        [{ path: '/amount', message: `at least ${toMoneyString(least)}` }],
      );

    // the settlement belongs to the old credit's book: its branch, whatever the new credit's
    const settlementBranch = await inheritedBranch(trx, old);
    const allocation = allocatePayment(
      balance,
      states.map((s) => balanceOf(s)),
    );
    stageSlices(ctx, l, allocation.slices, {
      origin: 'refinance',
      paymentId: crypto.randomUUID(),
      paidOn: ctx.today,
      branchId: settlementBranch,
    });
    l.credit = await updateCredit(trx, ctx.businessId, old.id, { status: 'refinanced' });
    announceStatus(trx, ctx.businessId, l.credit, old.status);
    await flush(trx, ctx, l);

    return createCreditIn(
      trx,
      ctx,
      {
        clientId: old.client_id,
        creditConfigId: input.creditConfigId,
        amount: toMoneyString(amount),
        // checked like a new credit's: an unknown or deleted branch is 422
        branchId: input.branchId === undefined ? settlementBranch : input.branchId,
        originTransactionReference: input.originTransactionReference ?? null,
        startDate: ctx.today,
        refinancedFromId: old.id,
      },
      holidays,
    );
  });
}
