import type { Decimal } from './money.ts';
import { Dec, round2 } from './money.ts';
import { addDays, addMonthsClamped, isValidDate } from './dates.ts';
import { DomainError } from './errors.ts';

export type CutType = 'fixed' | 'monthly';

export interface ScheduleInput {
  amount: Decimal;
  interestRate: Decimal;
  installmentsCount: number;
  daysUntilFirstPayment: number;
  cutType: CutType;
  paymentDay: number;
  startDate: string;
}

export interface ScheduledInstallment {
  number: number;
  amount: Decimal;
  dueDate: string;
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

/** The schedule of a new credit (DOMAIN.md "The schedule of a new credit"). */
export function buildSchedule(input: ScheduleInput): Schedule {
  const { amount, interestRate, installmentsCount: n, daysUntilFirstPayment, cutType, paymentDay, startDate } = input;
  if (!new Dec(amount).isFinite() || new Dec(amount).lte(0))
    throw new DomainError('invalid_amount', 'amount must be > 0');
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

  const total = round2(new Dec(amount).times(new Dec(1).plus(interestRate)));
  const each = round2(total.div(n));
  const last = total.minus(each.times(n - 1));
  // Tiny totals (e.g. 0.06 over 12) would give a zero or negative installment: refuse rather than book it.
  if (each.lte(0) || last.lte(0))
    throw new DomainError('amount_too_small', 'the total is too small to split into installments of at least 0.01');

  const installments: ScheduledInstallment[] = [];
  try {
    const first = firstDueDate({ cutType, daysUntilFirstPayment, paymentDay, startDate });
    for (let k = 1; k <= n; k++) {
      installments.push({
        number: k,
        amount: k === n ? last : each,
        // Counted from the first due date, not chained: Jan 31 → Feb 29 → Mar 31.
        dueDate: addMonthsClamped(first, k - 1),
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
  });
}
