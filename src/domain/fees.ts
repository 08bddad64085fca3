// Fees of a plan (docs/domain.md, "Fees and charges"). Pure money rules: what an origination fee
// comes to, and what it does to the principal a schedule is built on and to the cash handed over.
import type { Decimal } from './money.ts';
import { Dec, money, round2 } from './money.ts';

/** A fee as a plan declares it (the `fees` of CreditConfig). */
export interface PlanFee {
  type: 'origination';
  /** a fraction of the amount lent (0.03 = 3 %); or `amount` */
  rate?: number;
  /** a fixed amount; or `rate` */
  amount?: number;
  /** VAT at the plan's vat_rate on it */
  vat: boolean;
  /** origination: added to the principal (true) or deducted from what is handed over (false, default) */
  financed?: boolean;
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
