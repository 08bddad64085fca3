import type { Decimal } from './money.ts';
import { Dec, round2 } from './money.ts';
import type { InstallmentStatus } from './delinquency.ts';

export interface InstallmentBalance {
  id: string;
  number: number;
  amount: Decimal;
  /** what is paid of `amount` (all but punitory: its VAT, interest and principal) */
  principalPaid: Decimal;
  /** Posted punitory − punitory paid − punitory waived; negative when a negative posting left a credit. */
  punitoryOwed: Decimal;
  /** charges posted (VAT included) − paid − waived (absent: none); paid before anything else */
  chargesOwed?: Decimal;
  /** the VAT and interest in `amount` still unpaid (absent: none), paid before its principal */
  vatDue?: Decimal;
  interestDue?: Decimal;
  /** the fees and the insurance in `amount` still unpaid, their VAT included (absent: none), paid before the interest's VAT */
  feesDue?: Decimal;
  insuranceDue?: Decimal;
}

export interface PaymentSlice {
  installmentId: string;
  /** principal + punitory + charge */
  amount: Decimal;
  /** the part applied to the installment's amount: its fees, insurance, VAT, interest and principal proper */
  principal: Decimal;
  punitory: Decimal;
  /** what went to the installment's posted charges (their VAT included) */
  charge: Decimal;
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
 * The parts of an installment a payment pays, in the order it pays them (docs/domain.md, "Fees and
 * charges"): posted charges with their VAT, then punitory with its VAT, then the amount (inside it:
 * its VAT, its interest, its principal). A new part slots into this list.
 */
export const ALLOCATION_ORDER = ['charge', 'punitory', 'principal'] as const;
export type AllocationPart = (typeof ALLOCATION_ORDER)[number];

/** What each part of one installment still owes (each at least 0). */
export function partsDue(i: InstallmentBalance): Record<AllocationPart, Decimal> {
  const d = installmentDue(i);
  return { charge: max0(i.chargesOwed ?? ZERO), punitory: d.punitory, principal: d.principal };
}

/**
 * Splits a payment over installments in order of `number`; within one, part by part in
 * ALLOCATION_ORDER, and inside the amount its fees and insurance, the interest's VAT, its interest,
 * its principal (AMOUNT_PARTS). One slice per installment touched; never more than owed.
 */
export function allocatePayment(amount: Decimal, installments: InstallmentBalance[]): Allocation {
  let left = round2(new Dec(amount));
  const slices: PaymentSlice[] = [];
  const ordered = [...installments].sort((a, b) => a.number - b.number);
  for (const inst of ordered) {
    if (left.lte(0)) break;
    const due = partsDue(inst);
    const paid: Record<AllocationPart, Decimal> = { charge: ZERO, punitory: ZERO, principal: ZERO };
    for (const part of ALLOCATION_ORDER) {
      paid[part] = Dec.min(left, due[part]);
      left = left.minus(paid[part]);
    }
    const { charge, punitory, principal } = paid;
    if (charge.gt(0) || punitory.gt(0) || principal.gt(0)) {
      // inside the amount: fees and insurance, the interest's VAT, the interest, then principal
      const parts = splitAmountPaid(principal, inst);
      slices.push({
        installmentId: inst.id,
        amount: charge.plus(punitory).plus(principal),
        principal,
        punitory,
        charge,
        ...parts,
      });
    }
  }
  return { slices, unallocated: max0(left) };
}

/** Total still owed over these installments (each one at least 0). */
export function outstanding(
  installments: Pick<InstallmentBalance, 'amount' | 'principalPaid' | 'punitoryOwed' | 'chargesOwed'>[],
): Decimal {
  let sum = new Dec(0);
  for (const i of installments) {
    const d = installmentDue(i);
    sum = sum
      .plus(d.principal)
      .plus(d.punitory)
      .plus(max0(i.chargesOwed ?? ZERO));
  }
  return sum;
}

/** docs/domain.md "Payments": paid when amount, all posted punitory and all posted charges are covered (or waived). */
export function installmentStatus(i: {
  amount: Decimal;
  principalPaid: Decimal;
  punitoryOwed: Decimal;
  chargesOwed?: Decimal;
  anythingPaid: boolean;
}): InstallmentStatus {
  const d = installmentDue(i);
  if (d.principal.lte(0) && d.punitory.lte(0) && (i.chargesOwed ?? ZERO).lte(0)) return 'paid';
  return i.anythingPaid ? 'partial' : 'pending';
}
