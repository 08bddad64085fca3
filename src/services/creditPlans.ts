// Credit plans (credit_configs): the terms a new credit copies. Omitted fields take the defaults on
// creation (the columns' defaults); an edit changes only the fields given and never the credits
// already created; simulate shows the schedule a credit would get, storing nothing.
import { withActor } from '../db/connection.ts';
import type { CreditConfig } from '../db/schema.ts';
import {
  getCreditConfig,
  insertCreditConfig,
  updateCreditConfig,
  type CreditConfigInput,
  type CreditConfigPatch,
} from '../db/repositories/creditConfigs.ts';
import {
  creditCost,
  feesProblem,
  disbursedOf,
  financedPrincipal,
  money,
  originationOf,
  toMoneyNumber,
  toMoneyString,
  type Decimal,
} from '../domain/index.ts';
import { plannedSchedule } from './lending/grant.ts';
import { positiveAmount } from './lending/engine/book.ts';
import { holidaySet } from './holidays.ts';
import { notFound, unprocessable } from '../domain/errors.ts';
import { withFeeDefaults, type PlanFee } from '../domain/fees.ts';
import { cleanText } from '../domain/text.ts';
import { plansDocument } from '../db/repositories/documents.ts';
import type { ActorContext, Database, JsonText } from './context.ts';
import { presentCreditConfig } from './present.ts';
import { emit, emitEdit } from './events.ts';

export type PlanInput = Omit<CreditConfigInput, 'fees'> & { fees?: PlanFee[] };
export type PlanPatch = Omit<CreditConfigPatch, 'fees'> & { fees?: PlanFee[] };

/** A plan's fees checked (at most one of each type, each with the fields its type takes) and written as JSON text. */
function feesColumn<T extends { fees?: PlanFee[] }>(input: T): Omit<T, 'fees'> & { fees?: string } {
  const { fees, ...rest } = input;
  if (fees === undefined) return rest;
  const problem = feesProblem(fees);
  if (problem) throw unprocessable(`fees: ${problem.detail}`, [{ path: problem.path, message: problem.message }]);
  return { ...rest, fees: JSON.stringify(withFeeDefaults(fees)) };
}

/** The plans, oldest first (GET /api/credit-configs), as JSON text built by the database. */
export async function listPlans(db: Database, ctx: ActorContext): Promise<JsonText> {
  return (await plansDocument(db, ctx.businessId)) as JsonText;
}

async function existingPlan(db: Database, ctx: ActorContext, id: string): Promise<CreditConfig> {
  const plan = await getCreditConfig(db.kysely, ctx.businessId, id);
  if (!plan) throw notFound('credit plan');
  return plan;
}

export async function getPlan(db: Database, ctx: ActorContext, id: string) {
  return presentCreditConfig(await existingPlan(db, ctx, id));
}

export async function createPlan(db: Database, ctx: ActorContext, input: PlanInput) {
  const fields = feesColumn(cleanText(input));
  return withActor(db.kysely, ctx, async (trx) => {
    const plan = presentCreditConfig(await insertCreditConfig(trx, ctx.businessId, fields));
    emit(trx, ctx.businessId, 'plan.created', plan);
    return plan;
  });
}

/** Only the fields given change; nothing given changes nothing. */
export async function editPlan(db: Database, ctx: ActorContext, id: string, input: PlanPatch) {
  const patch = feesColumn(cleanText(input));
  const plan = await withActor(db.kysely, ctx, async (trx) => {
    const current = await getCreditConfig(trx, ctx.businessId, id, { lock: true });
    if (!current) throw notFound('credit plan');
    if (Object.keys(patch).length === 0) return current;
    const updated = await updateCreditConfig(trx, ctx.businessId, id, patch);
    if (updated)
      emitEdit(trx, ctx.businessId, 'plan.updated', presentCreditConfig(current), presentCreditConfig(updated));
    return updated;
  });
  if (!plan) throw notFound('credit plan');
  return presentCreditConfig(plan);
}

const sum = (xs: Decimal[]) => xs.reduce((a, x) => a.plus(x), money(0));

/** The schedule of a credit of amount on this plan, starting startDate (the business's today by default). */
/** The simulation's fees: the origination fee, and the insurance and admin fees over every installment, each when more than 0. */
function simulatedFees(
  origination: ReturnType<typeof originationOf>,
  installments: readonly { insurance: Decimal; insuranceVat: Decimal; fees: Decimal; feesVat: Decimal }[],
) {
  const total = (f: (i: (typeof installments)[number]) => Decimal) => sum(installments.map(f));
  const out: { type: 'origination' | 'insurance' | 'admin'; amount: number; vat: number; financed: boolean }[] = [];
  if (!origination.total.isZero())
    out.push({
      type: 'origination',
      amount: toMoneyNumber(origination.fee),
      vat: toMoneyNumber(origination.vat),
      financed: origination.financed,
    });
  const insurance = total((i) => i.insurance);
  const insuranceVat = total((i) => i.insuranceVat);
  if (insurance.plus(insuranceVat).gt(0))
    out.push({
      type: 'insurance',
      amount: toMoneyNumber(insurance),
      vat: toMoneyNumber(insuranceVat),
      financed: false,
    });
  const admin = total((i) => i.fees);
  const adminVat = total((i) => i.feesVat);
  if (admin.plus(adminVat).gt(0))
    out.push({ type: 'admin', amount: toMoneyNumber(admin), vat: toMoneyNumber(adminVat), financed: false });
  return out;
}

export async function simulate(
  db: Database,
  ctx: ActorContext,
  id: string,
  input: { amount: number; startDate?: string },
) {
  const plan = await existingPlan(db, ctx, id);
  const startDate = input.startDate ?? ctx.today;
  // the schedule credit creation would give, due dates moved by the business-day rule included
  // an amount of 0 or less is refused as granting refuses it, before any fee is worked out on it
  const amount = positiveAmount(input.amount);
  const origination = originationOf(plan.fees, amount, money(plan.vat_rate));
  const principal = financedPrincipal(amount, origination);
  const disbursed = disbursedOf(amount, origination);
  if (disbursed.lte(0))
    throw unprocessable(
      `the origination fee ${toMoneyString(origination.total)} (VAT included) leaves nothing to hand over`,
      [{ path: '/amount', message: `more than ${toMoneyString(origination.total)}` }],
    );
  const { schedule, rows } = plannedSchedule(plan, principal, startDate, await holidaySet(db.kysely, ctx.businessId));
  const cost = creditCost({
    amount: principal,
    disbursed,
    startDate,
    amortization: plan.amortization,
    interestRate: plan.interest_rate,
    installments: rows.map((r) => ({
      dueDate: r.due_date,
      amount: r.amount,
      principal: r.principal,
      interest: r.interest,
      vat: r.vat,
    })),
  });
  return {
    installments: rows.map((r) => ({
      number: r.number,
      amount: toMoneyNumber(money(r.amount)),
      due_date: r.due_date,
      principal: toMoneyNumber(money(r.principal)),
      interest: toMoneyNumber(money(r.interest)),
      vat: toMoneyNumber(money(r.vat)),
      insurance: toMoneyNumber(money(r.insurance)),
      fees: toMoneyNumber(money(r.fees)),
    })),
    total: toMoneyNumber(schedule.total),
    cost: { tna: cost.tna.toNumber(), tea: cost.tea.toNumber(), cft_tea: cost.cft_tea?.toNumber() ?? null },
    // what granting would charge and hand over (docs/api.md "Simulate a schedule")
    fees: simulatedFees(origination, schedule.installments),
    disbursed: toMoneyNumber(disbursed),
  };
}
