import type { Decimal } from './money.ts';
import { Dec, round2 } from './money.ts';
import { addDays, addMonthsClamped, isValidDate } from './dates.ts';
import { DomainError } from './errors.ts';
import { periodFeesOf, type PlanFee } from './fees.ts';

export type CutType = 'fixed' | 'monthly';

/** How interest is charged (docs/domain.md, "Interest methods, VAT and disclosed cost"). */
export type Amortization = 'flat' | 'french';

export interface ScheduleInput {
  amount: Decimal;
  interestRate: Decimal;
  installmentsCount: number;
  daysUntilFirstPayment: number;
  cutType: CutType;
  paymentDay: number;
  startDate: string;
  /**
   * flat (default): interestRate is the flat fraction over the whole credit; french: interestRate
   * is the nominal annual rate (TNA), the periodic rate is TNA / 12.
   */
  amortization?: Amortization;
  /** VAT on interest, a fraction (0.21 = 21 %); default 0. */
  vatRate?: Decimal;
  /** the plan's fees: its insurance and admin fee are added to each installment; default none */
  fees?: readonly PlanFee[];
}

export interface ScheduledInstallment {
  number: number;
  /** principal + interest + insurance + fees + vat, exactly. */
  amount: Decimal;
  dueDate: string;
  principal: Decimal;
  interest: Decimal;
  /** the VAT of the interest, the insurance and the fees */
  vat: Decimal;
  /** the life insurance of the period and the admin fee, and the VAT of each (inside vat) */
  insurance: Decimal;
  insuranceVat: Decimal;
  fees: Decimal;
  feesVat: Decimal;
}

export interface Schedule {
  total: Decimal;
  installments: ScheduledInstallment[];
}

/** Due date of the first installment. */
export function firstDueDate(
  input: Pick<ScheduleInput, 'cutType' | 'daysUntilFirstPayment' | 'paymentDay' | 'startDate'>,
): string {
  const earliest = addDays(input.startDate, input.daysUntilFirstPayment);
  if (input.cutType === 'fixed') return earliest;
  // monthly: the first date on day payment_day (1..28, so every month has it) on or after `earliest`.
  const onPaymentDay = `${earliest.slice(0, 8)}${String(input.paymentDay).padStart(2, '0')}`;
  return Number(earliest.slice(8)) <= input.paymentDay ? onPaymentDay : addMonthsClamped(onPaymentDay, 1);
}

/** An installment's money: principal + interest + vat = amount. */
interface Parts {
  amount: Decimal;
  principal: Decimal;
  interest: Decimal;
  vat: Decimal;
}

/** total over n: round2(total / n) each, the last takes the remainder. */
function spread(total: Decimal, n: number): (k: number) => Decimal {
  const each = round2(total.div(n));
  const last = total.minus(each.times(n - 1));
  return (k) => (k === n ? last : each);
}

/**
 * flat: interest = round2(amount × rate) and its VAT, over the whole credit. The installment
 * amounts are spread exactly as before VAT existed (with VAT 0, total = round2(amount × (1 + rate))
 * since amount is in cents); interest and VAT spread the same way, principal is the rest.
 */
function flatParts(amount: Decimal, rate: Decimal, vatRate: Decimal, n: number): Parts[] {
  const interestTotal = round2(amount.times(rate));
  const vatTotal = round2(interestTotal.times(vatRate));
  const amountOf = spread(amount.plus(interestTotal).plus(vatTotal), n);
  const interestOf = spread(interestTotal, n);
  const vatOf = spread(vatTotal, n);
  const parts: Parts[] = [];
  for (let k = 1; k <= n; k++) {
    const interest = interestOf(k);
    const vat = vatOf(k);
    parts.push({ amount: amountOf(k), principal: amountOf(k).minus(interest).minus(vat), interest, vat });
  }
  if (parts.every((p) => p.principal.gte(0) && p.interest.gte(0) && p.vat.gte(0))) return parts;
  // a tiny credit (2.88 at 7.3 % over 12: installments of 0.26 and 0.23, interest 0.02 each
  // leaving −0.01 on the last) cannot split its interest evenly: each installment then carries the
  // interest and VAT in proportion to its amount, so that no part is negative
  const total = amount.plus(interestTotal).plus(vatTotal);
  let soFar = new Dec(0);
  let interestBefore = new Dec(0);
  let vatBefore = new Dec(0);
  return parts.map((p) => {
    soFar = soFar.plus(p.amount);
    const interestThrough = round2(interestTotal.times(soFar).div(total));
    const vatThrough = round2(vatTotal.times(soFar).div(total));
    const interest = interestThrough.minus(interestBefore);
    const vat = vatThrough.minus(vatBefore);
    interestBefore = interestThrough;
    vatBefore = vatThrough;
    return { amount: p.amount, principal: p.amount.minus(interest).minus(vat), interest, vat };
  });
}

/**
 * french: rate is the nominal annual rate, i = rate / 12; the installment before VAT is
 * A = round2(P·i / (1 − (1+i)^−n)) (P / n when i is 0); each period's interest is
 * round2(balance × i) and the principal A − interest; the last installment's principal is what is
 * left of the balance. VAT is round2(interest × vatRate) per installment.
 */
function frenchParts(amount: Decimal, rate: Decimal, vatRate: Decimal, n: number): Parts[] {
  const i = rate.div(12);
  const one = new Dec(1);
  const installment = i.isZero() ? round2(amount.div(n)) : round2(amount.times(i).div(one.minus(one.plus(i).pow(-n))));
  const parts: Parts[] = [];
  let balance = amount;
  for (let k = 1; k <= n; k++) {
    const interest = round2(balance.times(i));
    const principal = k === n ? balance : installment.minus(interest);
    const vat = round2(interest.times(vatRate));
    parts.push({ amount: principal.plus(interest).plus(vat), principal, interest, vat });
    balance = balance.minus(principal);
  }
  return parts;
}

/** The schedule of a new credit (docs/domain.md, "The schedule of a new credit" and "Interest methods, VAT and disclosed cost"). */
export function buildSchedule(input: ScheduleInput): Schedule {
  const { amount, interestRate, installmentsCount: n, daysUntilFirstPayment, cutType, paymentDay, startDate } = input;
  if (!new Dec(amount).isFinite() || new Dec(amount).lte(0))
    throw new DomainError('invalid_amount', 'amount must be > 0');
  if (new Dec(amount).decimalPlaces() > 2) throw new DomainError('invalid_amount', 'amount must be in cents');
  if (!new Dec(interestRate).isFinite() || new Dec(interestRate).lt(0))
    throw new DomainError('invalid_interest_rate', 'interest_rate must be >= 0');
  if (!Number.isInteger(n) || n < 1)
    throw new DomainError('invalid_installments_count', 'installments_count must be an integer >= 1');
  if (!Number.isInteger(daysUntilFirstPayment) || daysUntilFirstPayment < 0)
    throw new DomainError('invalid_days_until_first_payment', 'days_until_first_payment must be an integer >= 0');
  if (cutType !== 'fixed' && cutType !== 'monthly')
    throw new DomainError('invalid_cut_type', 'cut_type must be fixed or monthly');
  // 1..28 (the contract's range) so every month has that day; only monthly reads it.
  if (cutType === 'monthly' && (!Number.isInteger(paymentDay) || paymentDay < 1 || paymentDay > 28))
    throw new DomainError('invalid_payment_day', 'payment_day must be an integer from 1 to 28');
  if (!isValidDate(startDate)) throw new DomainError('invalid_start_date', 'start_date must be YYYY-MM-DD');
  const amortization = input.amortization ?? 'flat';
  if (amortization !== 'flat' && amortization !== 'french')
    throw new DomainError('unprocessable', 'amortization must be flat or french');
  const vatRate = new Dec(input.vatRate ?? 0);
  if (!vatRate.isFinite() || vatRate.lt(0)) throw new DomainError('unprocessable', 'vat_rate must be >= 0');

  const parts = (amortization === 'french' ? frenchParts : flatParts)(
    new Dec(amount),
    new Dec(interestRate),
    vatRate,
    n,
  );
  // Tiny totals (e.g. 0.06 over 12) would give a zero or negative installment: refuse rather than book it.
  if (parts.some((p) => p.amount.lte(0)))
    throw new DomainError('amount_too_small', 'the total is too small to split into installments of at least 0.01');
  // Likewise a tiny interest (0.06 over 12: 0.01 each, −0.05 on the last) would give a negative part.
  if (parts.some((p) => p.principal.lt(0) || p.interest.lt(0) || p.vat.lt(0)))
    throw new DomainError(
      'amount_too_small',
      'the interest or its VAT is too small to split into installments without a negative part',
    );
  const installments: ScheduledInstallment[] = [];
  // the insurance and the admin fee on top of each installment (docs/domain.md, "Fees and
  // charges"): insurance on the principal outstanding at the start of the period
  let balance = new Dec(amount);
  const periodFees = parts.map((p) => {
    const f = periodFeesOf(input.fees ?? [], balance, vatRate);
    balance = balance.minus(p.principal);
    return f;
  });
  let total = new Dec(0);
  try {
    const first = firstDueDate({ cutType, daysUntilFirstPayment, paymentDay, startDate });
    for (let k = 1; k <= n; k++) {
      const p = parts[k - 1]!;
      const f = periodFees[k - 1]!;
      const vat = p.vat.plus(f.insuranceVat).plus(f.feesVat);
      const amount = p.principal.plus(p.interest).plus(f.insurance).plus(f.fees).plus(vat);
      total = total.plus(amount);
      installments.push({
        number: k,
        amount,
        // Counted from the first due date, not chained: Jan 31 → Feb 29 → Mar 31.
        dueDate: addMonthsClamped(first, k - 1),
        principal: p.principal,
        interest: p.interest,
        vat,
        ...f,
      });
    }
  } catch (err) {
    if (err instanceof RangeError)
      throw new DomainError(
        'schedule_out_of_range',
        'the schedule would fall after 9999-12-31: start_date is out of range',
      );
    throw err;
  }
  return { total, installments };
}

/** A plan's schedule terms as stored (a plan row, or the snapshot of them on a credit). */
export interface PlanScheduleTerms {
  interest_rate: string | number;
  installments_count: number;
  days_until_first_payment: number;
  cut_type: CutType;
  payment_day: number;
  /** absent or null: flat */
  amortization?: Amortization | null;
  /** absent or null: 0 */
  vat_rate?: string | number | null;
  /** the plan's fees (absent: none): the insurance and the admin fee go into the installments */
  fees?: readonly PlanFee[] | null;
}

/** The schedule a credit of `amount` on these terms gets when it starts on startDate. */
export function scheduleFor(terms: PlanScheduleTerms, amount: Decimal | string | number, startDate: string): Schedule {
  return buildSchedule({
    amount: new Dec(amount),
    interestRate: new Dec(terms.interest_rate),
    installmentsCount: terms.installments_count,
    daysUntilFirstPayment: terms.days_until_first_payment,
    cutType: terms.cut_type,
    paymentDay: terms.payment_day,
    startDate,
    amortization: terms.amortization ?? 'flat',
    vatRate: new Dec(terms.vat_rate ?? 0),
    fees: terms.fees ?? [],
  });
}
