// Fees of a plan (docs/domain.md, "Fees and charges"). Pure money rules: what an origination fee
// comes to, and what it does to the principal a schedule is built on and to the cash handed over.
import type { Decimal } from './money.ts';
import { Dec, money, round2 } from './money.ts';
import { addDays, compareDates } from './dates.ts';

export type FeeType = 'origination' | 'insurance' | 'admin' | 'collection';

/** A fee as a plan declares it (the `fees` of CreditConfig): at most one of each type. */
export interface PlanFee {
  type: FeeType;
  /** origination: a fraction of the amount lent (0.03 = 3 %), or `amount`; insurance: a fraction a month of the principal outstanding */
  rate?: number;
  /** origination: a fixed amount, or `rate`; admin: per installment; collection: per installment late */
  amount?: number;
  /** VAT at the plan's vat_rate on it */
  vat: boolean;
  /** origination: added to the principal (true) or deducted from what is handed over (false, default) */
  financed?: boolean;
  /** collection: posted once an installment is this many days late */
  after_days?: number;
}

/**
 * What a fee of each type takes (docs/domain.md, "Fees and charges"): `rate` or `amount` or
 * either; `financed` and `after_days` only where they mean something.
 */
const FEE_FIELDS: Record<FeeType, { rate: boolean; amount: boolean; financed: boolean; after_days: boolean }> = {
  origination: { rate: true, amount: true, financed: true, after_days: false },
  insurance: { rate: true, amount: false, financed: false, after_days: false },
  admin: { rate: false, amount: true, financed: false, after_days: false },
  collection: { rate: false, amount: true, financed: false, after_days: true },
};

/** Why a plan's fees cannot be (a path under /fees and a message), or null when they can. */
export function feesProblem(fees: readonly PlanFee[]): { path: string; message: string; detail: string } | null {
  const seen = new Set<string>();
  for (const [k, f] of fees.entries()) {
    const at = `/fees/${k}`;
    if (seen.has(f.type))
      return { path: `${at}/type`, message: 'repeated', detail: `at most one fee of type ${f.type}` };
    seen.add(f.type);
    const takes = FEE_FIELDS[f.type];
    if (takes.rate && takes.amount) {
      if ((f.rate === undefined) === (f.amount === undefined))
        return {
          path: at,
          message: 'give rate or amount, not both',
          detail: `the ${f.type} fee takes either rate or amount`,
        };
    } else {
      const needed = takes.rate ? 'rate' : 'amount';
      const other = takes.rate ? 'amount' : 'rate';
      if (f[other] !== undefined)
        return {
          path: `${at}/${other}`,
          message: `not for ${f.type}`,
          detail: `the ${f.type} fee takes ${needed}, not ${other}`,
        };
      if (f[needed] === undefined)
        return { path: at, message: `${needed} is required`, detail: `the ${f.type} fee takes ${needed}` };
    }
    for (const field of ['financed', 'after_days'] as const)
      if (f[field] !== undefined && !takes[field])
        return {
          path: `${at}/${field}`,
          message: `not for ${f.type}`,
          detail: `${field} is only for the ${field === 'financed' ? 'origination' : 'collection'} fee`,
        };
    if (f.type === 'collection' && f.after_days === undefined)
      return { path: at, message: 'after_days is required', detail: 'the collection fee takes after_days' };
  }
  return null;
}

/** The fees as stored and shown: an origination fee sent without `financed` is `financed: false`, the default (DOMAIN.md). */
export function withFeeDefaults(fees: readonly PlanFee[]): PlanFee[] {
  return fees.map((f) => (f.type === 'origination' && f.financed === undefined ? { ...f, financed: false } : f));
}

export interface Origination {
  fee: Decimal;
  vat: Decimal;
  /** fee + vat */
  total: Decimal;
  financed: boolean;
}

const ZERO = new Dec(0);

/** The origination fee of a credit of `amount` (none: zeros): rate × amount or the fixed amount, rounded to the cent, and its VAT on the rounded fee. */
export function originationOf(fees: readonly PlanFee[], amount: Decimal, vatRate: Decimal): Origination {
  const f = fees.find((x) => x.type === 'origination');
  if (!f) return { fee: ZERO, vat: ZERO, total: ZERO, financed: false };
  const fee = round2(f.rate !== undefined ? amount.times(money(f.rate)) : money(f.amount ?? 0));
  const vat = f.vat ? round2(fee.times(vatRate)) : ZERO;
  return { fee, vat, total: fee.plus(vat), financed: f.financed === true };
}

/** The principal the schedule is built on: the amount, plus the fee and its VAT when financed. */
export function financedPrincipal(amount: Decimal, o: Origination): Decimal {
  return o.financed ? amount.plus(o.total) : amount;
}

/** The cash handed over: the amount, less the fee and its VAT when deducted. */
export function disbursedOf(amount: Decimal, o: Origination): Decimal {
  return o.financed ? amount : amount.minus(o.total);
}

/**
 * The least amount lent whose cash handed over (disbursedOf) covers `target`: what a refinance
 * must lend to settle a balance of `target` (docs/domain.md, "Write-off, refinance, cancel").
 * `target` itself unless an origination fee is deducted from the amount; then the amount, the
 * fee and its VAT rounded as originationOf rounds them. null when no amount can (a rate that,
 * with its VAT, takes the whole amount or more).
 */
export function amountDisbursing(target: Decimal, fees: readonly PlanFee[], vatRate: Decimal): Decimal | null {
  const f = fees.find((x) => x.type === 'origination');
  if (!f || f.financed === true) return target;
  const covers = (a: Decimal) => disbursedOf(a, originationOf(fees, a, vatRate)).gte(target);
  let a: Decimal;
  if (f.rate === undefined) a = target.plus(originationOf(fees, target, vatRate).total);
  else {
    const kept = new Dec(1).minus(money(f.rate).times(f.vat ? vatRate.plus(1) : 1));
    if (kept.lte(0)) return null;
    a = target.div(kept).toDecimalPlaces(2, Dec.ROUND_DOWN);
  }
  // the fee's and its VAT's rounding move the result by a cent or two: the least that covers
  while (a.gt(target) && covers(a.minus('0.01'))) a = a.minus('0.01');
  while (!covers(a)) a = a.plus('0.01');
  return a;
}

/** An installment's insurance and admin fee, each with its VAT (zeros: none). */
export interface PeriodFees {
  insurance: Decimal;
  insuranceVat: Decimal;
  fees: Decimal;
  feesVat: Decimal;
}

export const NO_PERIOD_FEES: PeriodFees = { insurance: ZERO, insuranceVat: ZERO, fees: ZERO, feesVat: ZERO };

/**
 * The insurance and admin fee of one period: insurance is `rate` (a month) × the principal
 * outstanding at the start of the period, rounded to the cent; the admin fee is its fixed
 * `amount`; each with its VAT, rounded on the rounded figure, only when the fee says `vat`.
 */
export function periodFeesOf(fees: readonly PlanFee[], principalAtStart: Decimal, vatRate: Decimal): PeriodFees {
  const ins = fees.find((x) => x.type === 'insurance');
  const adm = fees.find((x) => x.type === 'admin');
  const insurance = ins ? round2(principalAtStart.times(money(ins.rate ?? 0))) : ZERO;
  const admin = adm ? round2(money(adm.amount ?? 0)) : ZERO;
  return {
    insurance,
    insuranceVat: ins?.vat ? round2(insurance.times(vatRate)) : ZERO,
    fees: admin,
    feesVat: adm?.vat ? round2(admin.times(vatRate)) : ZERO,
  };
}

/** A plan's collection charge (docs/domain.md, "Fees and charges"): what one late installment is charged, and when. */
export interface CollectionCharge {
  /** the fixed amount and its VAT, each rounded to the cent; total = amount + vat */
  amount: Decimal;
  vat: Decimal;
  total: Decimal;
  /** days late that charge it (≥ 1) */
  afterDays: number;
}

/** The collection charge of these fees, or null when they have none. VAT on the rounded amount, when the fee says `vat`. */
export function collectionChargeOf(
  fees: readonly PlanFee[] | null | undefined,
  vatRate: Decimal,
): CollectionCharge | null {
  const f = fees?.find((x) => x.type === 'collection');
  if (!f || f.after_days === undefined) return null;
  const amount = round2(money(f.amount ?? 0));
  const vat = f.vat ? round2(amount.times(vatRate)) : ZERO;
  return { amount, vat, total: amount.plus(vat), afterDays: f.after_days };
}

/** The day an installment due on `dueDate` becomes `afterDays` days late: the charge's date. */
export function chargeDay(dueDate: string, afterDays: number): string {
  return addDays(dueDate, afterDays);
}

/**
 * The collection charge one installment owes as of `asOf` (its total, or 0), from its payment
 * history: owed once its charge day (due date + after_days) is on or before `asOf` (and not after
 * `stop`, the write-off date) when the payments dated before that day left some of its amount
 * unpaid. A payment made on the charge day itself comes too late: the installment is after_days
 * days late that day (docs/domain.md, "Delinquency": paid on due + 10, it was late 10 days).
 */
export function collectionChargeOwed(
  i: { amount: Decimal; dueDate: string; payments: readonly { paidOn: string; principal: Decimal }[] },
  charge: CollectionCharge | null,
  asOf: string,
  stop: string | null,
): Decimal {
  if (!charge || charge.total.lte(0)) return ZERO;
  const day = chargeDay(i.dueDate, charge.afterDays);
  if (compareDates(day, asOf) > 0 || (stop !== null && compareDates(day, stop) > 0)) return ZERO;
  let paid = ZERO;
  for (const p of i.payments) if (compareDates(p.paidOn, day) < 0) paid = paid.plus(p.principal);
  return paid.lt(i.amount) ? charge.total : ZERO;
}
