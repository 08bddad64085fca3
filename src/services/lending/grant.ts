// Granting a credit: its schedule from the plan's terms (weekends and holidays moved under the
// plan's rule), numbered in the business's sequence, its installments and their ledger entries,
// one transaction. A refinance grants its new credit the same way (./lifecycle.ts).
import type { Transaction } from 'kysely';
import { withActor } from '../../db/connection.ts';
import type { DB } from '../../db/schema.ts';
import { getClient } from '../../db/repositories/clients.ts';
import { insertNumberedCredit, sharePlan } from '../../db/repositories/credits.ts';
import { insertSchedule } from '../../db/repositories/installments.ts';
import {
  disbursedOf,
  financedPrincipal,
  money,
  originationOf,
  scheduleFor,
  STORABLE_MAX,
  toMoneyString,
  type Decimal,
} from '../../domain/index.ts';
import { AppError, notFound, unprocessable } from '../../domain/errors.ts';
import type { Role } from '../../domain/access.ts';
import { approvalSettings } from '../settings.ts';
import { nextBusinessDay, toleranceDays } from '../../domain/businessDays.ts';
import type { Database } from '../context.ts';
import { actingBranch, usableBranch } from '../branches.ts';
import { holidaySet } from '../holidays.ts';
import { emit } from '../events.ts';
import { computeCost, costColumns, presentCredit } from '../present.ts';
import { positiveAmount } from './engine/book.ts';
import type { CreditDetailRows, LendingContext } from './store.ts';

export interface CreateCreditInput {
  clientId: string;
  creditConfigId: string;
  amount: number | string;
  branchId?: string | null;
  originTransactionReference?: string | null;
  startDate?: string;
  refinancedFromId?: string | null;
  /** the application disbursed into this credit (./../applications.ts) */
  applicationId?: string | null;
}

/**
 * The schedule a credit of `amount` on this plan gets when it starts on startDate: a due date on a
 * weekend or holiday moved to the next business day under the `next` rule; either way it cannot be
 * late before the end of the next business day (tolerance_days). Refuses (422) a total too large.
 */
export function plannedSchedule(
  plan: Parameters<typeof scheduleFor>[0] & { business_day_rule: string },
  amount: Decimal,
  startDate: string,
  holidays: ReadonlySet<string>,
) {
  const schedule = scheduleFor(plan, amount, startDate);
  if (schedule.total.gt(STORABLE_MAX)) throw unprocessable('the credit total (amount plus interest) is too large');
  const rows = schedule.installments.map((i) => {
    const dueDate = plan.business_day_rule === 'next' ? nextBusinessDay(i.dueDate, holidays) : i.dueDate;
    return {
      number: i.number,
      amount: toMoneyString(i.amount),
      principal: toMoneyString(i.principal),
      interest: toMoneyString(i.interest),
      vat: toMoneyString(i.vat),
      insurance: toMoneyString(i.insurance),
      insurance_vat: toMoneyString(i.insuranceVat),
      fees: toMoneyString(i.fees),
      fees_vat: toMoneyString(i.feesVat),
      due_date: dueDate,
      tolerance_days: toleranceDays(dueDate, holidays),
    };
  });
  return { schedule, rows };
}

/** `holidays`: the business's (holidaySet), read first in the transaction, before any row lock it takes. */
export async function createCreditIn(
  trx: Transaction<DB>,
  ctx: LendingContext,
  input: CreateCreditInput,
  holidays: ReadonlySet<string>,
): Promise<CreditDetailRows> {
  const bid = ctx.businessId;
  const plan = await sharePlan(trx, bid, input.creditConfigId);
  if (!plan)
    throw unprocessable(`credit_config_id ${input.creditConfigId} names no credit plan of this business`, [
      { path: '/credit_config_id', message: 'no such plan' },
    ]);
  if (!plan.is_active)
    throw unprocessable(`the credit plan "${plan.name}" is inactive`, [
      { path: '/credit_config_id', message: 'plan is inactive' },
    ]);
  const branchId = input.branchId ? await usableBranch(trx, bid, input.branchId) : null;
  const amount = positiveAmount(input.amount);
  const startDate = input.startDate ?? ctx.today;

  // an origination fee (docs/domain.md, "Fees and charges"): financed, the schedule is built on
  // the amount plus the fee and its VAT; deducted, less cash is handed over
  const origination = originationOf(plan.fees, amount, money(plan.vat_rate));
  if (disbursedOf(amount, origination).lte(0))
    throw unprocessable(
      `the origination fee ${toMoneyString(origination.total)} (VAT included) leaves nothing to hand over from ${toMoneyString(amount)}`,
      [{ path: '/amount', message: `more than ${toMoneyString(origination.total)}` }],
    );
  const { schedule, rows } = plannedSchedule(plan, financedPrincipal(amount, origination), startDate, holidays);
  // the disclosed cost, solved once from the schedule as granted and kept with the credit: every
  // answer with the credit's detail reads it (docs/lending-engine.md, "The disclosed cost")
  const cost = computeCost(
    {
      amount: toMoneyString(amount),
      disbursed: toMoneyString(disbursedOf(amount, origination)),
      start_date: startDate,
      amortization: plan.amortization,
      interest_rate: plan.interest_rate,
    },
    rows,
  );

  const credit = await insertNumberedCredit(trx, bid, {
    client_id: input.clientId,
    credit_config_id: plan.id,
    amount: toMoneyString(amount),
    total: toMoneyString(schedule.total),
    refinanced_from_id: input.refinancedFromId ?? null,
    application_id: input.applicationId ?? null,
    created_by: ctx.actor,
    origin_transaction_reference: input.originTransactionReference ?? null,
    branch_id: branchId,
    start_date: startDate,
    // the plan's terms as they are now: editing the plan later never changes this credit
    installments_count: plan.installments_count,
    days_until_first_payment: plan.days_until_first_payment,
    cut_type: plan.cut_type,
    payment_day: plan.payment_day,
    interest_rate: plan.interest_rate,
    daily_punitory_rate: plan.daily_punitory_rate,
    grace_days: plan.grace_days,
    punitory_mode: plan.punitory_mode,
    max_punitory_days: plan.max_punitory_days,
    punitory_cap_pct: plan.punitory_cap_pct,
    write_off_days: plan.write_off_days,
    amortization: plan.amortization,
    vat_rate: plan.vat_rate,
    business_day_rule: plan.business_day_rule,
    fees: plan.fees,
    origination_fee: toMoneyString(origination.total),
    origination_financed: origination.financed,
    ...costColumns(cost),
  });
  const { installments, entries: ledgerEntries } = await insertSchedule(trx, bid, credit.id, rows, {
    effective_date: startDate,
    branch_id: branchId,
    created_by: ctx.actor,
  });
  emit(trx, bid, 'credit.created', presentCredit(credit), { creditId: credit.id });
  return { credit, installments, ledgerEntries };
}

/**
 * With approval.required, an employee grants credits only through applications: a credit granted
 * directly, or a refinance (which grants a new credit), is 409 approval_required. Admins, keys and
 * the CLI (`actingRole` not employee) may still grant directly; the audit shows who.
 */
export async function refuseWithoutApproval(
  trx: Transaction<DB>,
  ctx: LendingContext,
  actingRole: Role | null | undefined,
): Promise<void> {
  if (actingRole === 'employee' && (await approvalSettings(trx, ctx.businessId)).required)
    throw new AppError(
      'approval_required',
      'credits of this business need an approved application: submit one (POST /api/clients/{id}/applications) and disburse it once approved',
    );
}

/**
 * A credit granted directly. `actingRole`: the signed-in user's role (null for a key or the CLI);
 * with approval.required, an employee grants only through applications (409 approval_required).
 */
export async function createCredit(
  db: Database,
  ctx: LendingContext,
  input: CreateCreditInput,
  opts: { actingRole?: Role | null } = {},
): Promise<CreditDetailRows> {
  return withActor(db.kysely, ctx, async (trx) => {
    await refuseWithoutApproval(trx, ctx, opts.actingRole);
    // before any row lock: a holiday change holds the business's holiday lock while it updates installments
    const holidays = await holidaySet(trx, ctx.businessId);
    const client = await getClient(trx, ctx.businessId, input.clientId);
    if (!client) throw notFound('client');
    // not given: the signed-in user's branch, if they have one
    const branchId = input.branchId !== undefined ? input.branchId : await actingBranch(trx, ctx);
    return createCreditIn(trx, ctx, { ...input, branchId }, holidays);
  });
}
