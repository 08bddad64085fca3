import type { Decimal } from './money.ts';
import { Dec, round2 } from './money.ts';
import type { InstallmentStatus } from './delinquency.ts';

export interface InstallmentBalance {
  id: string;
  number: number;
  amount: Decimal;
  /** what is paid of `amount` (all but punitory: its VAT, interest and principal) */
  principalPaid: Decimal;
  /** Posted punitory − punitory paid; negative when a negative posting left a credit. */
  punitoryOwed: Decimal;
  /** the VAT and interest in `amount` still unpaid (absent: none), paid before its principal */
  vatDue?: Decimal;
  interestDue?: Decimal;
  /** the fees and the insurance in `amount` still unpaid, their VAT included (absent: none), paid before the interest's VAT */
  feesDue?: Decimal;
  insuranceDue?: Decimal;
}

export interface PaymentSlice {
  installmentId: string;
  /** principal + punitory */
  amount: Decimal;
  /** the part applied to the installment's amount: its fees, insurance, VAT, interest and principal proper */
  principal: Decimal;
  punitory: Decimal;
  /** of `principal`, what went to the interest's VAT and to the interest */
  vat: Decimal;
  interest: Decimal;
  /** of `principal`, what went to the fees and to the insurance, their VAT included */
  fees: Decimal;
  insurance: Decimal;
}

/**
 * The parts of an installment's amount a payment covers before its principal proper, in the order
 * it covers them (docs/domain.md, "Fees and charges"): the fees and the insurance (with their VAT),
 * the interest's VAT, the interest. What owes something outside the amount (punitory, charges)
 * comes before all of them.
 */
export const AMOUNT_PARTS = [
  { part: 'fees', due: 'feesDue' },
  { part: 'insurance', due: 'insuranceDue' },
  { part: 'vat', due: 'vatDue' },
  { part: 'interest', due: 'interestDue' },
] as const;
export type AmountPart = (typeof AMOUNT_PARTS)[number]['part'];

/** What `paid` (applied to the installment's amount) covers of each part, in order; the rest is principal. */
export function splitAmountPaid(
  paid: Decimal,
  inst: Pick<InstallmentBalance, 'vatDue' | 'interestDue' | 'feesDue' | 'insuranceDue'>,
): Record<AmountPart, Decimal> {
  let left = paid;
  const out = {} as Record<AmountPart, Decimal>;
  for (const { part, due } of AMOUNT_PARTS) {
    const x = Dec.max(Dec.min(left, max0(inst[due] ?? ZERO)), ZERO);
    out[part] = x;
    left = left.minus(x);
  }
  return out;
}

export interface Allocation {
  slices: PaymentSlice[];
  /** What could not be applied; > 0 means the payment exceeds what is owed (the caller answers 422). */
  unallocated: Decimal;
}

const ZERO = new Dec(0);
const max0 = (d: Decimal) => (d.gt(0) ? d : ZERO);
const min0 = (d: Decimal) => (d.lt(0) ? d : ZERO);

/**
 * What one installment still owes, split in its two parts. A negative part (punitory overpaid
 * after a negative posting) offsets the other part of the same installment, never another one.
 */
export function installmentDue(i: Pick<InstallmentBalance, 'amount' | 'principalPaid' | 'punitoryOwed'>): {
  principal: Decimal;
  punitory: Decimal;
} {
  const p = new Dec(i.amount).minus(i.principalPaid);
  const u = new Dec(i.punitoryOwed);
  return { principal: max0(p.plus(min0(u))), punitory: max0(u.plus(min0(p))) };
}

/**
 * Splits a payment over installments in order of `number`; within one, unpaid punitory (with its
 * VAT) first, then unpaid amount: its fees and insurance, the interest's VAT, its interest, its principal. One slice per installment
 * touched; never more than owed.
 */
export function allocatePayment(amount: Decimal, installments: InstallmentBalance[]): Allocation {
  let left = round2(new Dec(amount));
  const slices: PaymentSlice[] = [];
  const ordered = [...installments].sort((a, b) => a.number - b.number);
  for (const inst of ordered) {
    if (left.lte(0)) break;
    const due = installmentDue(inst);
    const punitory = Dec.min(left, due.punitory);
    left = left.minus(punitory);
    const principal = Dec.min(left, due.principal);
    left = left.minus(principal);
    if (punitory.gt(0) || principal.gt(0)) {
      // inside the amount: fees and insurance, the interest's VAT, the interest, then principal
      const parts = splitAmountPaid(principal, inst);
      slices.push({ installmentId: inst.id, amount: punitory.plus(principal), principal, punitory, ...parts });
    }
  }
  return { slices, unallocated: max0(left) };
}

/** Total still owed over these installments (each one at least 0). */
export function outstanding(
  installments: Pick<InstallmentBalance, 'amount' | 'principalPaid' | 'punitoryOwed'>[],
): Decimal {
  let sum = new Dec(0);
  for (const i of installments) {
    const d = installmentDue(i);
    sum = sum.plus(d.principal).plus(d.punitory);
  }
  return sum;
}

/** DOMAIN.md "Payments": paid when amount and all posted punitory are covered. */
export function installmentStatus(i: {
  amount: Decimal;
  principalPaid: Decimal;
  punitoryOwed: Decimal;
  anythingPaid: boolean;
}): InstallmentStatus {
  const d = installmentDue(i);
  if (d.principal.lte(0) && d.punitory.lte(0)) return 'paid';
  return i.anythingPaid ? 'partial' : 'pending';
}
